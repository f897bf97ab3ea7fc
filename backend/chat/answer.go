package chat

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/llm"
	"github.com/carrel-app/carrel/backend/provider"
)

// Answer modes: how an answer was produced (declared in backend/library, which stores them).
const (
	ModeModel    = library.AnswerModel    // a chat model wrote it
	ModePassages = library.AnswerPassages // no model: the best passages, quoted
	ModeNotFound = library.AnswerNotFound
)

// Usage is what an answer cost.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// CachedTokens is the part of PromptTokens served from a cloud provider's cache.
	CachedTokens int     `json:"cached_tokens"`
	CostUSD      float64 `json:"cost_usd"`
	// DurationMS is the wall-clock time of the model call(s); TokensPerSec the
	// generation speed (0 when unknown).
	DurationMS   int64   `json:"duration_ms"`
	TokensPerSec float64 `json:"tokens_per_sec"`
}

// Answer is a finished answer.
type Answer struct {
	Text      string             `json:"answer"`
	Citations []Passage          `json:"citations"`
	Usage     Usage              `json:"usage"`
	Model     string             `json:"model"`
	Mode      library.AnswerMode `json:"mode"`
	Note      string             `json:"note,omitempty"`
	// Truncated is set when the model's stream ended early; Text holds what arrived.
	Truncated bool `json:"truncated,omitempty"`
	// Stopped is set when the user stopped the answer; Text holds what arrived.
	Stopped bool `json:"stopped,omitempty"`
	// Provider answered ("" when no model answered).
	Provider provider.Name `json:"provider,omitempty"`
	// Question is the question as asked; Standalone is the rewritten form used for
	// retrieval and the prompt, when a follow-up needed one.
	Question   string `json:"question,omitempty"`
	Standalone string `json:"standalone,omitempty"`
	// SessionID and MessageID say where the exchange was saved (set by the engine).
	SessionID string `json:"session_id,omitempty"`
	MessageID int64  `json:"message_id,omitempty"`
	// Warning is a one-line notice for the user, such as a budget nearly spent.
	Warning string `json:"warning,omitempty"`
	// Cached says where a reused answer came from (nil when a model answered now).
	Cached *CachedFrom `json:"cached,omitempty"`
	// Claims are the answer's sentences with the passage text supporting each (character
	// spans for the viewer to highlight); unsupported sentences are marked. Empty when
	// no model wrote the answer.
	Claims []Claim `json:"claims"`
	// PromptBytes is the length of the prompt sent; UsageEstimated is set when the server
	// reported no usage and Usage is an estimate (not to calibrate with).
	PromptBytes    int  `json:"-"`
	UsageEstimated bool `json:"-"`
}

// Event is streamed while answering: first Start with the passages, then Tokens.
type Event struct {
	Start   []Passage // set once, before any token
	Token   string
	IsStart bool
	// SessionID is the study session the answer goes to (set by the engine on Start).
	SessionID string
}

// Request is one question.
type Request struct {
	Question string
	// Asked is the question as the user typed it when Question is a rewrite of it (a
	// follow-up made standalone); "" when they are the same. A no-model answer judges and
	// windows its passages by the words asked: "exam tips" after a question about
	// bufio.Scanner retrieves with the earlier question attached, but a bufio passage is
	// not a close match for it.
	Asked    string
	Passages []Passage // retrieved, best first, numbered from 1
	// Model is the chat model; nil means no model is available and NoModelReason says why.
	Model         llm.Provider
	ModelName     string
	NoModelReason string
	NumCtx        int // the model's context window in tokens; 0 means 4096
	MaxTokens     int // answer length cap; 0 means 1024
	Searched      int // number of documents searched, for the "not found" message
	// SearchedTitles names the documents searched, so that "not found" says where it looked.
	SearchedTitles []string
	// KeepAlive is how long a local model stays loaded after answering (see llm.ChatRequest).
	KeepAlive time.Duration
	// Tokens estimates token counts for the budget; 0 is the default ratio. Calibrate it
	// per model with the answer's PromptBytes and Usage.PromptTokens.
	Tokens Estimator
	// AboutUser are the user's memories, put in the prompt apart from the passages.
	AboutUser []string
}

// Respond produces the answer for req, streaming events to fn. When the model fails
// mid-stream the partial answer is returned along with the error.
func Respond(ctx context.Context, req Request, fn func(Event) error) (*Answer, error) {
	if len(req.Passages) == 0 {
		scope := "your documents"
		switch t := req.SearchedTitles; {
		case len(t) > 0 && len(t) <= 4:
			q := make([]string, len(t))
			for i, s := range t {
				q[i] = strconv.Quote(s)
			}
			scope = "your documents (searched " + strings.Join(q, ", ") + ")"
		case req.Searched > 0:
			scope = fmt.Sprintf("your documents (%d searched)", req.Searched)
		}
		return &Answer{Mode: ModeNotFound, Model: req.ModelName, Citations: []Passage{}, Claims: []Claim{},
			Text: "Not in " + scope + ": nothing relevant was found for this question."}, nil
	}
	if req.Model == nil {
		if err := fn(Event{IsStart: true, Start: req.Passages}); err != nil {
			return nil, err
		}
		return passagesAnswer(req), nil
	}
	numCtx := req.NumCtx
	if numCtx <= 0 {
		numCtx = 4096
	}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = 1024
	}
	msgs, kept := MessagesAbout(req.Question, req.AboutUser, req.Passages, numCtx-maxTokens, req.Tokens)
	if err := fn(Event{IsStart: true, Start: kept}); err != nil {
		return nil, err
	}
	var text strings.Builder
	deltas := 0
	usage, err := req.Model.Chat(ctx, llm.ChatRequest{Model: req.ModelName, Messages: msgs, NumCtx: numCtx, MaxTokens: maxTokens, KeepAlive: req.KeepAlive},
		func(d llm.Delta) error {
			text.WriteString(d.Text)
			deltas++
			return fn(Event{Token: d.Text})
		})
	ans := &Answer{Text: Ground(text.String(), kept), Citations: kept, Model: req.ModelName, Mode: ModeModel, Provider: req.Model.Name()}
	ans.Claims = Claims(ans.Text, kept)
	for _, m := range msgs {
		ans.PromptBytes += len(m.Content)
	}
	if usage != nil {
		ans.Usage = Usage{PromptTokens: usage.PromptTokens, CompletionTokens: usage.CompletionTokens, CachedTokens: usage.CachedTokens,
			DurationMS: usage.Duration.Milliseconds(), TokensPerSec: usage.TokensPerSecond()}
	} else if !refused(err) || deltas > 0 {
		// No final usage report: estimate, so the meter never shows a free answer. A
		// request the provider refused (bad key, rate limit, overload, unknown model)
		// generated nothing and is not billed.
		ans.Usage = Usage{PromptTokens: req.Tokens.Tokens(msgs[0].Content + msgs[1].Content), CompletionTokens: deltas}
		ans.UsageEstimated = true
	}
	if errors.Is(err, llm.ErrTruncated) && text.Len() > 0 && ctx.Err() == nil {
		// Ollama ends a stream without its final message when the model loops (its
		// token-repeat guard): the text so far is the answer, marked as cut off.
		ans.Truncated = true
		ans.Note = "The model stopped early (its output was cut off, or Ollama stopped), so this answer may be incomplete."
		if errors.Is(err, llm.ErrStalled) {
			ans.Note = "Ollama stopped answering (it sent nothing for too long), so this answer is only the part that arrived."
		}
		return ans, nil
	}
	if err != nil {
		ans.Truncated = true
		if errors.Is(err, context.Canceled) {
			ans.Truncated, ans.Stopped = false, true
			ans.Note = "Stopped: the answer is only the part that arrived."
		}
		return ans, err
	}
	return ans, nil
}

// passagesAnswer is the no-model answer: the best passages, quoted and cited, close
// matches apart from passages that only share a word or two with the question. Each
// quote is the window of its passage around the question's words (see MatchWindow), and
// passages from Markdown sources keep their lines, for the app to render them.
func passagesAnswer(req Request) *Answer {
	terms := QuestionTerms(req.Asked)
	if len(terms) == 0 {
		// "Why?": the asked words carry nothing; the rewrite's do.
		terms = QuestionTerms(req.Question)
	}
	var closeP, relatedP []Passage
	for _, p := range req.Passages {
		p.Strength = MatchStrength(p.Text, terms)
		if p.Strength == StrengthClose {
			closeP = append(closeP, p)
		} else {
			relatedP = append(relatedP, p)
		}
	}
	// Numbered in the order shown (close matches first), so that [1] is the first quote
	// and the sources list reads like the answer.
	cites := append(closeP, relatedP...)
	var close, related []int
	for i := range cites {
		cites[i].N = i + 1
		if i < len(closeP) {
			close = append(close, i)
		} else {
			related = append(related, i)
		}
	}
	var b strings.Builder
	claims := make([]Claim, 0, len(req.Passages))
	each := func(idx []int) {
		for _, i := range idx {
			claims = append(claims, quotePassage(&b, cites[i], terms))
			b.WriteString("\n\n")
		}
	}
	if len(close) == 0 {
		b.WriteString("Nothing in your documents matched this question closely. These passages share some of its words:\n\n")
		each(related)
	} else {
		b.WriteString("#### Close matches\n\n")
		each(close)
		if len(related) > 0 {
			b.WriteString("#### Possibly related\n\n")
			each(related)
		}
	}
	note := "No language model answered: " + req.NoModelReason
	return &Answer{Text: strings.TrimSpace(b.String()), Citations: cites, Mode: ModePassages, Note: note, Claims: claims}
}

// excerptBytes is the length of a quoted passage window in a no-model answer.
const excerptBytes = 400

// quotePassage writes one passage of a no-model answer (its source line, then its window
// as a block quote ending in its marker) and returns the claim it makes: the quote,
// supported by that window of the passage.
func quotePassage(b *strings.Builder, p Passage, terms map[string]bool) Claim {
	md := isMarkdownPath(p.DocPath)
	ws, we := MatchWindow(p.Text, terms, excerptBytes, md)
	window := p.Text[ws:we]
	title := p.DocTitle
	if title == "" {
		title = "Untitled"
	}
	if p.Page > 0 {
		fmt.Fprintf(b, "**%s**, page %d\n\n", title, cmp.Or(p.FocusPage, p.Page))
	} else {
		fmt.Fprintf(b, "**%s**\n\n", title)
	}
	var quote string
	if md {
		// Markdown keeps its lines (headings, lists) inside the quote.
		lines := strings.Split(strings.TrimRight(window, " \t\n"), "\n")
		quote = strings.Join(lines, "\n> ")
	} else {
		quote = strings.Join(strings.Fields(window), " ")
	}
	if ws > 0 && !md {
		quote = "… " + quote
	}
	if we < len(p.Text) {
		quote += " …"
	}
	b.WriteString("> ")
	start := utf8.RuneCountInString(b.String())
	fmt.Fprintf(b, "%s [%d]", quote, p.N)
	runeStart := utf8.RuneCountInString(p.Text[:ws])
	span := Span{N: p.N, Start: runeStart, End: runeStart + utf8.RuneCountInString(window), Quote: window}
	// A recording's transcript has a line per stretch of speech: the citation points at
	// the line that matches the question best, so that its time (the line's) is when
	// the matching words were said, not when the passage began.
	if isRecordingPath(p.DocPath) {
		if ls, le := bestLine(p.Text, ws, we, terms); le > ls {
			rs := utf8.RuneCountInString(p.Text[:ls])
			span = Span{N: p.N, Start: rs, End: rs + utf8.RuneCountInString(p.Text[ls:le]), Quote: p.Text[ls:le]}
		}
	}
	return Claim{Start: start, End: utf8.RuneCountInString(b.String()), Supported: true, Spans: []Span{span}}
}

// recordingExts are the audio and video files whose text is a timed transcript (see
// backend/ingest's mediaExts).
var recordingExts = []string{".mp3", ".m4a", ".wav", ".ogg", ".flac", ".mp4", ".mkv", ".webm", ".mov"}

// isRecordingPath reports whether a source is an audio or video file, by its name.
func isRecordingPath(path string) bool {
	l := strings.ToLower(path)
	for _, e := range recordingExts {
		if strings.HasSuffix(l, e) {
			return true
		}
	}
	return false
}

// bestLine returns the byte span of the line of text[from:to] holding the most distinct
// question terms (then the most matches), trimmed; an empty span when no line has any.
func bestLine(text string, from, to int, terms map[string]bool) (start, end int) {
	bestDistinct, bestHits := 0, 0
	for at := from; at < to; {
		nl := strings.IndexByte(text[at:to], '\n')
		le := to
		if nl >= 0 {
			le = at + nl
		}
		distinct, hits := map[string]bool{}, 0
		for _, w := range words(text[at:le], terms) {
			if w.term != "" {
				distinct[w.term] = true
				hits++
			}
		}
		if len(distinct) > bestDistinct || (len(distinct) == bestDistinct && hits > bestHits && bestDistinct > 0) {
			line := text[at:le]
			lead := len(line) - len(strings.TrimLeft(line, " \t"))
			start, end = at+lead, at+len(strings.TrimRight(line, " \t"))
			bestDistinct, bestHits = len(distinct), hits
		}
		at = le + 1
	}
	return start, end
}

// isMarkdownPath reports whether a source is a Markdown file, by its name.
func isMarkdownPath(path string) bool {
	l := strings.ToLower(path)
	return strings.HasSuffix(l, ".md") || strings.HasSuffix(l, ".markdown")
}

// excerpt shortens s to about n bytes at a word boundary.
func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], ' ')
	if cut < n/2 {
		cut = n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
	}
	return s[:cut] + " …"
}

// refused says whether err is a provider's refusal of the request as a whole.
func refused(err error) bool {
	return errors.Is(err, llm.ErrBadKey) || errors.Is(err, llm.ErrRateLimited) || errors.Is(err, llm.ErrOverloaded) ||
		errors.Is(err, llm.ErrModelNotFound) || errors.Is(err, llm.ErrNoAPIKey)
}
