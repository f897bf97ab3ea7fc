package chat

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/carrel-app/carrel/backend/llm"
	"github.com/carrel-app/carrel/backend/provider"
)

var passages = []Passage{
	{N: 1, DocTitle: "Walden", Page: 12, Text: "I went to the woods because I wished to live deliberately, to front only the essential facts of life."},
	{N: 2, DocTitle: "FAISS", Page: 3, Text: "An IndexFlatIP performs exhaustive inner product search over all stored vectors."},
}

// verifies known alignments: unmarked sentences get the passage they draw from, valid
// markers are kept, invalid ones dropped, unsupported sentences left unmarked.
func TestGround(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"attach", "Thoreau went to the woods to live deliberately.", "Thoreau went to the woods to live deliberately [1]."},
		{"second passage", "IndexFlatIP does exhaustive inner product search. ", "IndexFlatIP does exhaustive inner product search [2]. "},
		{"keep model marker", "He lived deliberately [2].", "He lived deliberately [2]."},
		{"keep agreeing marker", "Thoreau went to the woods [1].", "Thoreau went to the woods [1]."},
		{"correct disagreeing marker", "Thoreau went to the woods to live deliberately [2].", "Thoreau went to the woods to live deliberately [1]."},
		{"drop invalid marker", "Stored vectors are searched exhaustively [7].", "Stored vectors are searched exhaustively [2]."},
		{"unsupported", "The moon is made of cheese.", "The moon is made of cheese."},
		{"two sentences", "He went to the woods deliberately. Inner product search is exhaustive!",
			"He went to the woods deliberately [1]. Inner product search is exhaustive [2]!"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Ground(c.in, passages); got != c.want {
				t.Errorf("Ground(%q)\n got %q\nwant %q", c.in, got, c.want)
			}
		})
	}
}

// verifies sentence splitting never loses bytes, whatever the text.
func FuzzSplitSentences(f *testing.F) {
	f.Add("One. Two! Three? [1] Four\nfive.")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		if got := strings.Join(splitSentences(s), ""); got != s {
			t.Fatalf("split lost text: %q → %q", s, got)
		}
		_ = Ground(s, passages)
	})
}

// verifies the prompt keeps the best passages that fit the budget and always at least one.
func TestMessagesBudget(t *testing.T) {
	long := make([]Passage, 10)
	for i := range long {
		long[i] = Passage{N: i + 1, DocTitle: "D", Page: i + 1, Text: strings.Repeat("word ", 300)}
	}
	msgs, kept := Messages("what?", long, 1500)
	if len(kept) == 0 || len(kept) >= 10 {
		t.Fatalf("kept %d passages for a 1500-token budget", len(kept))
	}
	if EstimateTokens(msgs[0].Content)+EstimateTokens(msgs[1].Content) > 1500+50 {
		t.Fatalf("prompt exceeds budget")
	}
	if !strings.Contains(msgs[1].Content, "[1] \"D\", page 1") || strings.Contains(msgs[1].Content, "[10]") {
		t.Fatalf("prompt does not number the kept passages: %.200s", msgs[1].Content)
	}
	_, kept = Messages("what?", long, 10)
	if len(kept) != 1 {
		t.Fatalf("tiny budget kept %d passages, want 1", len(kept))
	}
}

// verifies the two answers that need no model: nothing found, and passages quoted.
func TestRespondWithoutModel(t *testing.T) {
	ans, err := Respond(context.Background(), Request{Question: "q", Searched: 5}, nil)
	if err != nil || ans.Mode != ModeNotFound || !strings.Contains(ans.Text, "5 searched") {
		t.Fatalf("not found: %+v %v", ans, err)
	}
	ans, _ = Respond(context.Background(), Request{Question: "q", Searched: 2, SearchedTitles: []string{"Walden", "Go"}}, nil)
	if !strings.Contains(ans.Text, `searched "Walden", "Go"`) {
		t.Fatalf("not found names the documents searched: %q", ans.Text)
	}
	var started []Passage
	ans, err = Respond(context.Background(), Request{Question: "q", Passages: passages, NoModelReason: "Ollama is not running."},
		func(e Event) error {
			if e.IsStart {
				started = e.Start
			}
			return nil
		})
	if err != nil || ans.Mode != ModePassages || len(started) != 2 {
		t.Fatalf("passages: %+v %v", ans, err)
	}
	if !strings.Contains(ans.Text, "[1]") || !strings.Contains(ans.Text, "[2]") || !strings.Contains(ans.Note, "Ollama is not running") {
		t.Fatalf("passages answer lacks markers or note: %q / %q", ans.Text, ans.Note)
	}
	// Each quoted passage is a claim whose span is the quoted text of its passage.
	runes := []rune(ans.Text)
	if len(ans.Claims) != 2 {
		t.Fatalf("claims = %+v", ans.Claims)
	}
	for i, c := range ans.Claims {
		sp := c.Spans[0]
		line := string(runes[c.Start:c.End])
		quoted := string([]rune(passages[i].Text)[sp.Start:sp.End])
		if !c.Supported || sp.N != i+1 || !strings.Contains(line, sp.Quote) || quoted != sp.Quote || !strings.HasSuffix(line, fmt.Sprintf("[%d]", i+1)) {
			t.Fatalf("claim %d: line %q, span %+v, passage text at span %q", i, line, sp, quoted)
		}
	}
}

type cutShort struct{}

func (cutShort) Name() provider.Name { return "fake" }
func (cutShort) Chat(_ context.Context, _ llm.ChatRequest, fn func(llm.Delta) error) (*llm.Usage, error) {
	fn(llm.Delta{Text: "He went to the woods "})
	fn(llm.Delta{Text: "to live deliberately."})
	return nil, fmt.Errorf("chat: %w", llm.ErrTruncated)
}

// verifies a stream that ends without its final message (Ollama's repeat guard) gives a
// finished answer marked as cut off, grounded, with estimated usage, not an error.
func TestRespondCutShort(t *testing.T) {
	ans, err := Respond(context.Background(), Request{Question: "why the woods?", Passages: passages, Model: cutShort{}, ModelName: "m"},
		func(Event) error { return nil })
	if err != nil || !ans.Truncated || ans.Note == "" {
		t.Fatalf("cut-short answer: %+v %v", ans, err)
	}
	if ans.Text != "He went to the woods to live deliberately [1]." || ans.Usage.CompletionTokens != 2 || ans.Usage.PromptTokens == 0 {
		t.Fatalf("cut-short answer text/usage: %q %+v", ans.Text, ans.Usage)
	}
}

// verifies claims on fixed answers with known alignments: each cited sentence gets the
// character span of the passage sentence that supports it, unsupported sentences are
// marked, and offsets count characters (not bytes) in both texts.
func TestClaims(t *testing.T) {
	ps := []Passage{
		{N: 1, Text: "Préface. I went to the woods because I wished to live deliberately. Simplify, simplify."},
		{N: 2, Text: "An IndexFlatIP performs exhaustive inner product search over all stored vectors."},
	}
	answer := Ground("Thoreau went to the woods to live deliberately. The moon is made of cheese. Search is exhaustive over stored vectors [2].", ps)
	claims := Claims(answer, ps)
	if len(claims) != 3 {
		t.Fatalf("claims = %+v", claims)
	}
	runes := []rune(answer)
	if got := string(runes[claims[0].Start:claims[0].End]); got != "Thoreau went to the woods to live deliberately [1]." {
		t.Fatalf("first claim covers %q", got)
	}
	sp := claims[0].Spans
	if !claims[0].Supported || len(sp) != 1 || sp[0].N != 1 || sp[0].Quote != "I went to the woods because I wished to live deliberately." ||
		string([]rune(ps[0].Text)[sp[0].Start:sp[0].End]) != sp[0].Quote {
		t.Fatalf("first claim's support: %+v", claims[0])
	}
	if claims[1].Supported || len(claims[1].Spans) != 0 || string(runes[claims[1].Start:claims[1].End]) != "The moon is made of cheese." {
		t.Fatalf("unsupported claim: %+v", claims[1])
	}
	if !claims[2].Supported || claims[2].Spans[0].N != 2 || claims[2].Spans[0].Start != 0 {
		t.Fatalf("model-cited claim: %+v", claims[2])
	}
}

// verifies calibration keeps the most cautious ratio, with a margin, never above the
// default, and that estimates follow it.
func TestCalibrate(t *testing.T) {
	e := Calibrate(0, 4000, 1000) // 4 bytes/token observed: the default 3 stays
	if e != DefaultCharsPerToken {
		t.Fatalf("Calibrate(4 B/token) = %v", e)
	}
	e = Calibrate(e, 1000, 1000) // 1 byte/token: 0.9 with the margin
	if e != 0.9 {
		t.Fatalf("Calibrate(1 B/token) = %v", e)
	}
	if e2 := Calibrate(e, 3000, 1000); e2 != e {
		t.Fatalf("a cached (undercounted) prompt raised the ratio: %v", e2)
	}
	if n := e.Tokens(strings.Repeat("x", 900)); n != 1001 {
		t.Fatalf("Tokens at 0.9 B/token = %d", n)
	}
	if Estimator(0).Tokens("abc") != EstimateTokens("abc") {
		t.Fatal("the zero estimator differs from EstimateTokens")
	}
}

// verifies the embedding step of grounding with known vectors: a paraphrase sharing no
// words with any passage gets the marker of the passage its vector is closest to, when
// close enough; a distant one stays unsupported, and marked sentences are left alone.
func TestAttachBySimilarity(t *testing.T) {
	answer := Ground("He sought a purposeful existence in nature. Cheese is tasty. Vectors are compared exhaustively [2].", passages)
	un := Unsupported(answer)
	if len(un) != 2 || un[0] != "He sought a purposeful existence in nature." {
		t.Fatalf("unsupported = %q", un)
	}
	sent := [][]float32{{0.8, 0.6, 0}, {0, 0, 1}}
	pass := [][]float32{{1, 0, 0}, {0, 1, 0}}
	got := AttachBySimilarity(answer, passages, sent, pass, SimilarityThreshold)
	want := "He sought a purposeful existence in nature [1]. Cheese is tasty. Vectors are compared exhaustively [2]."
	if got != want {
		t.Fatalf("AttachBySimilarity\n got %q\nwant %q", got, want)
	}
}
