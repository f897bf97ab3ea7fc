package online

import (
	"context"
	"testing"

	"github.com/carrel-app/carrel/internal/testsites"
)

// BenchmarkHackerNewsThread reads the 60-comment story from the fake item API, whose
// every answer takes 5 ms (a round trip): 61 requests, 8 at a time.
func BenchmarkHackerNewsThread(b *testing.B) {
	s := testsites.Start(b)
	c := New(Options{Resolve: s.Resolve, TLS: s.TLS})
	for b.Loop() {
		if _, err := c.Get(context.Background(), "https://news.ycombinator.com/item?id=2000"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWebPage fetches the article with navigation noise and makes its snapshot
// (readability included).
func BenchmarkWebPage(b *testing.B) {
	s := testsites.Start(b)
	c := New(Options{})
	for b.Loop() {
		if _, err := c.Get(context.Background(), s.URL+"/article"); err != nil {
			b.Fatal(err)
		}
	}
}
