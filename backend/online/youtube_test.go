package online

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/carrel-app/carrel/backend/ingest"
	"github.com/carrel-app/carrel/internal/testsites"
)

func captionsOf(t *testing.T, c *Client, raw string) (ingest.Captions, error) {
	t.Helper()
	u, err := ParseURL(raw)
	if err != nil {
		t.Fatal(err)
	}
	if youtubeID(u) == "" {
		t.Fatalf("%s is not taken for a video", raw)
	}
	src, err := c.youtube(context.Background(), u)
	var capt ingest.Captions
	if err == nil {
		if src.Kind != KindVideo || src.Ext != ".json" {
			t.Errorf("source %q %q", src.Kind, src.Ext)
		}
		err = json.Unmarshal(src.Data, &capt)
	}
	return capt, err
}

// verifies YouTube captions from the tracks a watch page lists: manual captions before
// automatic ones, the user's language before English, every timedtext format read, the
// canonical watch URL whatever form the link had.
func TestYouTubeCaptions(t *testing.T) {
	s := testsites.Start(t)
	en := New(Options{Resolve: s.Resolve, TLS: s.TLS})
	for _, link := range []string{"https://www.youtube.com/watch?v=" + testsites.YouTubeVideo + "&t=30s", "https://youtu.be/" + testsites.YouTubeVideo, "https://m.youtube.com/shorts/" + testsites.YouTubeVideo} {
		c, err := captionsOf(t, en, link)
		if err != nil {
			t.Fatalf("%s: %v", link, err)
		}
		if c.URL != "https://www.youtube.com/watch?v="+testsites.YouTubeVideo || c.Language != "en" || c.Automatic || c.Title != "How Bees Find Flowers" || c.Channel != "The Bee Lab" || c.Duration != 142 {
			t.Fatalf("%s: %+v", link, c)
		}
		if len(c.Cues) != 21 || c.Cues[18].Text != testsites.YouTubeFact || c.Cues[18].Start != testsites.YouTubeFactStart || c.Cues[18].End != 71.2 {
			t.Fatalf("cues %+v", c.Cues)
		}
		if c.Cues[1].Text != "Today we follow a forager from the hive to the flowers & back." || c.Cues[2].Text != "Bees don't wander at random: scouts tell them where to go." {
			t.Errorf("entities: %q %q", c.Cues[1].Text, c.Cues[2].Text)
		}
	}
	de := New(Options{Resolve: s.Resolve, TLS: s.TLS, Language: "de-AT"})
	c, err := captionsOf(t, de, "https://www.youtube.com/watch?v="+testsites.YouTubeVideo)
	if err != nil || c.Language != "de" || len(c.Cues) != 2 || c.Cues[1].Start != 65.5 || !strings.HasPrefix(c.Cues[1].Text, "Eine Sammlerin") {
		t.Fatalf("German: %+v %v", c, err)
	}
	auto, err := captionsOf(t, en, "https://www.youtube.com/watch?v="+testsites.YouTubeAuto)
	if err != nil || !auto.Automatic || len(auto.Cues) != 1 || auto.Cues[0].Text != "welcome to this lecture AUTOMATIC" || auto.Cues[0].Start != 0.5 {
		t.Fatalf("automatic: %+v %v", auto, err)
	}
	for id, want := range map[string]error{testsites.YouTubeNoCaptions: ErrNoContent, testsites.YouTubeLogin: ErrLogin, "gone0000000": ErrNotFound} {
		if _, err := captionsOf(t, en, "https://www.youtube.com/watch?v="+id); !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", id, err, want)
		}
	}
	for _, notVideo := range []string{"https://www.youtube.com/channel/UCbees", "https://www.youtube.com/watch?v=short", "https://example.com/watch?v=" + testsites.YouTubeVideo} {
		u, _ := url.Parse(notVideo)
		if youtubeID(u) != "" {
			t.Errorf("%s taken for a video", notVideo)
		}
	}
}
