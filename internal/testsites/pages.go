package testsites

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ArticleTitle and ArticleFact are the test article's title and a sentence only its
// main content holds; NavNoise is text only its navigation, sidebar and footer hold.
const (
	ArticleTitle = "The Quiet Return of Urban Beekeeping"
	ArticleFact  = "Rooftop hives in Paris produce about twenty kilograms of honey per colony each summer."
	ChangedFact  = "A new survey counted eleven hundred registered hives inside the city walls."
	NavNoise     = "Subscribe to our newsletter for celebrity gossip"
)

// articleBody is the article's main text: enough paragraphs for readability to take it
// as the page's content.
var articleBody = []string{
	"Beekeeping has come back to the city. On rooftops, balconies and the flat roofs of schools, " +
		"colonies of honey bees now live a few metres above the traffic, tended by office workers, " +
		"teachers and retired engineers who learnt the craft in evening classes.",
	ArticleFact + " That is more than many rural hives yield, because city parks, avenues of lime trees " +
		"and private gardens flower one after another from March to October, and pesticides are rarer " +
		"in town than on farmland.",
	"Not everyone welcomes the trend. Ecologists warn that too many honey bees compete with wild " +
		"bees for the same flowers, and that a city can hold only as many hives as its blossoms feed. " +
		"Some districts now ask new beekeepers to register their colonies and to plant flowers in return.",
	"Those who keep bees describe a slower rhythm of life. A hive must be opened on warm, calm days, " +
		"the queen found, the frames inspected for disease, and the honey taken only when the colony " +
		"has stored enough to survive the winter.",
}

func articlePage(changed bool) string {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title>` + ArticleTitle + ` | Example Media</title>
<link rel="canonical" href="/articles/urban-bees">
<meta name="author" content="Jane Doe">
<script>window.analytics = {track: function(){}};</script>
<style>body{font-family:sans-serif}</style>
</head><body>
<header><nav><a href="/">Home</a> <a href="/news">News</a> <a href="/sport">Sport</a> <a href="/weather">Weather</a>
<a href="/subscribe">` + NavNoise + `</a></nav></header>
<div class="layout">
<aside class="sidebar"><h3>Trending</h3><ul><li><a href="/t1">Ten celebrity kitchens you must see</a></li>
<li><a href="/t2">The best sofas of the year, ranked</a></li><li><a href="/t3">Why everyone is talking about the final</a></li></ul></aside>
<main><article>
<h1>` + ArticleTitle + `</h1>
<p class="byline">By Jane Doe</p>
<img src="https://tracker.example/pixel.gif" alt="">
`)
	for i, p := range articleBody {
		fmt.Fprintf(&b, "<p>%s</p>\n", p)
		if i == 1 {
			b.WriteString(`<div class="ad"><iframe src="https://ads.example/frame"></iframe></div>` + "\n")
		}
	}
	if changed {
		fmt.Fprintf(&b, "<p>%s Most of them stand on the roofs of public buildings.</p>\n", ChangedFact)
	}
	b.WriteString(`</article></main></div>
<section class="comments"><h3>Comments</h3><p>First!</p></section>
<footer><p>© 2026 Example Media. <a href="/privacy">Privacy</a> <a href="/cookies">Cookie settings</a></p></footer>
<script src="https://cdn.example/app.js"></script>
</body></html>`)
	return b.String()
}

const loginPage = `<!DOCTYPE html><html><head><title>Sign in</title></head><body>
<main><h1>Sign in to continue</h1><p>You need an account to read this article.</p>
<form action="/session" method="post"><label>Email <input type="email" name="email"></label>
<label>Password <input type="password" name="password"></label><button>Sign in</button></form></main></body></html>`

// pngBytes is the start of a PNG file.
var pngBytes = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 200)...)

// Serve adds a file the plain pages serve at path with the given Content-Type.
func (s *Sites) Serve(path, contentType string, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.files == nil {
		s.files = map[string]servedFile{}
	}
	s.files[path] = servedFile{contentType, body}
}

type servedFile struct {
	contentType string
	body        []byte
}

func (s *Sites) pages(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	s.mu.Lock()
	f, ok := s.files[p]
	s.mu.Unlock()
	switch {
	case ok:
		w.Header().Set("Content-Type", f.contentType)
		w.Write(f.body)
	case p == "/article" || p == "/articles/urban-bees":
		// ?delay=MS answers late (at most 5 s), for a client to see the fetch under way.
		if ms, err := strconv.Atoi(r.URL.Query().Get("delay")); err == nil {
			select {
			case <-time.After(time.Duration(min(ms, 5000)) * time.Millisecond):
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(articlePage(s.changed.Load())))
	case strings.HasPrefix(p, "/redirect/"):
		n, _ := strconv.Atoi(strings.TrimPrefix(p, "/redirect/"))
		to := "/article"
		if n > 1 {
			to = "/redirect/" + strconv.Itoa(n-1)
		}
		if r.URL.RawQuery != "" {
			to += "?" + r.URL.RawQuery
		}
		http.Redirect(w, r, to, http.StatusFound)
	case p == "/loop":
		http.Redirect(w, r, "/loop", http.StatusMovedPermanently)
	case p == "/to-ftp":
		http.Redirect(w, r, "ftp://example.com/file", http.StatusFound)
	case strings.HasPrefix(p, "/status/"):
		code, _ := strconv.Atoi(strings.TrimPrefix(p, "/status/"))
		if code == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "120")
		}
		http.Error(w, http.StatusText(code), code)
	case p == "/login":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(loginPage))
	case p == "/big" || p == "/big-chunked":
		w.Header().Set("Content-Type", "text/html")
		chunk := []byte("<p>" + strings.Repeat("filler text ", 8000) + "</p>\n")
		n := (6 << 20) / len(chunk)
		if p == "/big" {
			w.Header().Set("Content-Length", strconv.Itoa(n*len(chunk)+len("<html><body>")))
		}
		w.Write([]byte("<html><body>"))
		for range n {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	case p == "/slow":
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
			return
		}
		w.Write([]byte(articlePage(false)))
	case p == "/slow-body":
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body><p>The start of a page that never ends"))
		w.(http.Flusher).Flush()
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
	case p == "/image-as-html":
		w.Header().Set("Content-Type", "text/html")
		w.Write(pngBytes)
	case p == "/data.json":
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"items": [1, 2, 3]}`))
	case p == "/notes.txt":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("Lecture notes on bees.\n\nA colony has one queen, thousands of workers and a few hundred drones in summer.\n"))
	default:
		http.NotFound(w, r)
	}
}
