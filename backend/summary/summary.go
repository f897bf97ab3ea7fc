// Package summary summarises a document, one of its outline sections or a selection of
// it, into a study session: with a chat model it maps over the sections, each cut into
// parts that fit the model's context window, then reduces the sections' summaries into
// an overview, every sentence grounded to the passages in code as answers are
// (backend/chat) and dropped when none supports it; with no model it quotes each
// section's key sentences (backend/study). The coordinator (backend/engine) chooses the
// model (Coordinator).
package summary

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/carrel-app/carrel/backend/chat"
	"github.com/carrel-app/carrel/backend/ingest"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/provider"
	"github.com/carrel-app/carrel/backend/study"
)

// SummaryRequest says what to summarise: a document, one of its outline sections, or a
// selection of it, into a study session.
type SummaryRequest struct {
	DocID string `json:"doc_id"`
	// SessionID is the study session to save the summary in ("" for a new one).
	SessionID string `json:"session_id"`
	// Section limits the summary to the passages of one outline section (its title as the
	// library's passages carry it).
	Section string `json:"section,omitempty"`
	// Selection limits it to a selection of the document: the passages of its pages that
	// hold the selected text (Text; all of those pages' passages when empty).
	Selection *Selection `json:"selection,omitempty"`
}

// Selection is text selected in the viewer, on pages Page to PageEnd.
type Selection struct {
	Page    int    `json:"page"`
	PageEnd int    `json:"page_end"`
	Text    string `json:"text"`
}

// SummarySection is the summary of one section of a document (or the overview, the
// reduce step's summary of the sections' summaries, Section "Overview"): sentences with
// [n] markers numbering Summary.Passages, and the support found for each sentence.
type SummarySection struct {
	Section string       `json:"section"`
	Text    string       `json:"text"`
	Claims  []chat.Claim `json:"claims"`
	// Overview is true for the reduce step's summary of the sections.
	Overview bool `json:"overview,omitempty"`
}

// Summary is a summary, section by section after an overview, saved as a message of a
// study session (so it is kept, resumed and exported like an answer).
type Summary struct {
	DocID    string             `json:"doc_id"`
	Title    string             `json:"title"`
	Scope    SummaryScope       `json:"scope"`
	Mode     library.AnswerMode `json:"mode"` // model, or passages: key sentences quoted with no model
	Sections []SummarySection   `json:"sections"`
	Passages []chat.Passage     `json:"passages"`
	// NumCtx is the context window the model was given (its own, read from Ollama's
	// /api/show, capped by the settings' max_context); MapCalls and ReduceCalls count the
	// model's calls; Dropped counts the model's sentences no passage supports, left out.
	NumCtx      int    `json:"num_ctx"`
	MapCalls    int    `json:"map_calls"`
	ReduceCalls int    `json:"reduce_calls"`
	Dropped     int    `json:"dropped"`
	Stopped     bool   `json:"stopped"`
	SessionID   string `json:"session_id"`
	MessageID   int64  `json:"message_id"`
}

// SummaryScope is what a summary covers.
type SummaryScope string

// Scopes of a summary.
const (
	ScopeDocument  SummaryScope = "document"  // the whole document
	ScopeSection   SummaryScope = "section"   // one outline section (SummaryRequest.Section)
	ScopeSelection SummaryScope = "selection" // a selection (SummaryRequest.Selection)
)

// SummaryEvent is one step of a summary as it is made: Start (the passages, the steps
// planned), a Token of the model's text, a Section done, or the Overview starting.
type SummaryEvent struct {
	Start    *Summary        `json:"start,omitempty"`
	Token    string          `json:"token,omitempty"`
	Section  *SummarySection `json:"section,omitempty"`
	Step     int             `json:"step"`  // model calls done
	Steps    int             `json:"steps"` // model calls planned (the reduce steps estimated)
	Reducing bool            `json:"reducing,omitempty"`
}

// summaryPrompt asks for one part's summary from its numbered passages (the map step).
const summaryPrompt = `You summarise part of a student's document from its numbered passages.
Write 2 to 4 sentences with its main points, in your own words, using only the passages.
After each sentence cite the passage it comes from with its number in square brackets, like [3].`

// reducePrompt asks for one summary of summaries (the reduce step), keeping their citations.
const reducePrompt = `You combine summaries of the parts of a student's document into one summary.
Write 3 to 6 sentences with the document's main points, using only the summaries given.
After each sentence keep the passage numbers in square brackets that the summaries cite for it, like [3].`

// ReplyTokens is the reply's length asked for per call (the coordinator's CompleteFunc
// sets it as the call's limit), and summaryMargin the tokens kept free for the chat
// template and the estimate's error.
const (
	ReplyTokens   = 300
	summaryMargin = 128
)

// CompleteFunc runs one model call: the system prompt and the user's text in, the reply
// streamed to onToken and returned.
type CompleteFunc func(ctx context.Context, system, user string, onToken func(string) error) (string, error)

// Coordinator is what summarising needs of the open library's coordinator (backend/engine).
type Coordinator interface {
	// Model is the chat model that writes summaries now, or nil when none can (a
	// summary is then each section's key sentences, quoted).
	Model(ctx context.Context) *Model
	// NewSessionID names a new study session.
	NewSessionID() string
}

// Model is the chat model that writes a summary.
type Model struct {
	// Provider and Name are saved with the summary's message.
	Provider provider.Name
	Name     string
	// NumCtx is the context window the model is given.
	NumCtx   int
	Complete CompleteFunc
	// Embed, when not nil, embeds sentences and passages (in that order) to ground
	// sentences by meaning.
	Embed func(ctx context.Context, sents, passages []string) ([][]float32, error)
}

// Summaries summarises the documents of one library. It is safe for concurrent use.
type Summaries struct {
	co  Coordinator
	lib *library.Library
}

// New makes the summaries of a library.
func New(co Coordinator, lib *library.Library) *Summaries { return &Summaries{co: co, lib: lib} }

// summarizer is the map-over-parts-then-reduce of a summary made with a model, every
// sentence grounded to the passages in code (chat.Ground) and dropped when none
// supports it.
type summarizer struct {
	complete CompleteFunc
	// embed, when not nil, embeds sentences and passages (in that order) to ground
	// sentences by meaning.
	embed func(ctx context.Context, sents, passages []string) ([][]float32, error)
	// budget is the prompt tokens a call may use: the window less the reply and margin.
	budget   int
	passages []chat.Passage
	sum      *Summary
	fn       func(SummaryEvent) error
	steps    int
}

// Summarize summarises a document, one of its outline sections or a selection of it
// (req). With a chat model it maps over the sections, each cut into parts that fit the
// model's context window (num_ctx read from Ollama's /api/show), then reduces the
// sections' summaries into an overview (in rounds, when they do not fit at once); every
// sentence is grounded to the passages in code as answers are (chat.Ground) and a
// sentence no passage supports is dropped. With no chat model the summary is each
// section's key sentences, quoted from their passages. fn, if not nil, gets the steps as
// they happen (the model's tokens among them); an error from fn, or ctx ending, stops it:
// what was done is still saved (Stopped), and the error returned. The summary is saved in
// req.SessionID (a new session when empty).
func (z *Summaries) Summarize(ctx context.Context, req SummaryRequest, fn func(SummaryEvent) error) (*Summary, error) {
	if fn == nil {
		fn = func(SummaryEvent) error { return nil }
	}
	sum, groups, err := summaryPlan(ctx, z.lib, req)
	if err != nil {
		return nil, err
	}
	model := z.co.Model(ctx)
	if model == nil {
		err = summarizeNoModel(sum, groups, fn)
	} else {
		sum.Mode, sum.NumCtx = library.AnswerModel, model.NumCtx
		s := &summarizer{complete: model.Complete, budget: sum.NumCtx - ReplyTokens - summaryMargin,
			passages: sum.Passages, sum: sum, fn: fn, embed: model.Embed}
		err = s.run(ctx, groups)
	}
	if err != nil && (ctx.Err() != nil || errors.Is(err, context.Canceled)) {
		sum.Stopped = true
	}
	if len(sum.Sections) == 0 {
		if err == nil && sum.Dropped > 0 {
			err = fmt.Errorf("summarise: none of the model's %d sentences is supported by the passages, so none is kept", sum.Dropped)
		} else if err == nil {
			err = fmt.Errorf("summarise: %w", ErrNothingToSummarise)
		}
		return sum, err
	}
	if serr := saveSummary(context.WithoutCancel(ctx), z.lib, z.co.NewSessionID, sum, req, model); serr != nil {
		return sum, errors.Join(err, serr)
	}
	return sum, err
}

// summaryPlan reads the passages req covers, numbered across the scope, grouped by
// section in reading order (contents and index pages left out).
func summaryPlan(ctx context.Context, lib *library.Library, req SummaryRequest) (*Summary, []summaryGroup, error) {
	doc, err := lib.Document(ctx, req.DocID)
	if err != nil {
		return nil, nil, fmt.Errorf("summarise: %w", err)
	}
	parents, err := lib.DocumentParents(ctx, req.DocID)
	if err != nil {
		return nil, nil, fmt.Errorf("summarise: %w", err)
	}
	sum := &Summary{DocID: req.DocID, Title: doc.Title, Scope: ScopeDocument, Mode: library.AnswerPassages}
	parents = summaryScope(parents, req, sum)
	var groups []summaryGroup
	for _, p := range parents {
		if ingest.NavigationShare(p.Text) >= ingest.NavigationFrom {
			continue
		}
		n := len(sum.Passages) + 1
		sum.Passages = append(sum.Passages, chat.Passage{N: n, DocID: req.DocID, DocTitle: doc.Title, DocPath: doc.Path,
			Page: p.PageStart, PageEnd: p.PageEnd, Start: p.Start, End: p.End, Section: p.Section, Text: p.Text})
		if len(groups) == 0 || groups[len(groups)-1].section != p.Section {
			groups = append(groups, summaryGroup{section: p.Section})
		}
		groups[len(groups)-1].idx = append(groups[len(groups)-1].idx, n-1)
	}
	if len(groups) == 0 {
		return nil, nil, fmt.Errorf("summarise: %w", ErrNothingToSummarise)
	}
	return sum, groups, nil
}

// ErrNothingToSummarise is returned when the scope has no prose to summarise.
var ErrNothingToSummarise = errors.New("nothing to summarise: no passages of text in the document, section or selection")

type summaryGroup struct {
	section string
	idx     []int // indexes in Summary.Passages
}

// summaryScope keeps the passages of req's section or selection, and names the scope.
func summaryScope(parents []library.Chunk, req SummaryRequest, sum *Summary) []library.Chunk {
	var out []library.Chunk
	switch {
	case req.Selection != nil:
		sum.Scope = ScopeSelection
		sel := req.Selection
		end := max(sel.PageEnd, sel.Page)
		want := strings.ToLower(strings.Join(strings.Fields(sel.Text), " "))
		for _, p := range parents {
			if p.PageEnd < sel.Page || p.PageStart > end {
				continue
			}
			if want == "" || overlapsSelection(strings.ToLower(strings.Join(strings.Fields(p.Text), " ")), want) {
				out = append(out, p)
			}
		}
	case req.Section != "":
		sum.Scope = ScopeSection
		for _, p := range parents {
			if p.Section == req.Section {
				out = append(out, p)
			}
		}
	default:
		return parents
	}
	return out
}

// overlapsSelection reports whether a passage holds part of a selection: all of it, the
// selection's start or its end (a selection across passages), or lies within it.
func overlapsSelection(passage, sel string) bool {
	const edge = 60
	return strings.Contains(passage, sel) || strings.Contains(sel, passage) ||
		strings.Contains(passage, sel[:min(len(sel), edge)]) || strings.Contains(passage, sel[max(0, len(sel)-edge):])
}

// summarizeNoModel quotes each section's two most central sentences, cited, and as the
// overview the three most central of those.
func summarizeNoModel(sum *Summary, groups []summaryGroup, fn func(SummaryEvent) error) error {
	if err := fn(SummaryEvent{Start: sum, Steps: len(groups)}); err != nil {
		return err
	}
	quote := func(idx []int, n int) string {
		ps := make([]study.Passage, len(idx))
		for i, k := range idx {
			ps[i] = study.Passage{Text: sum.Passages[k].Text}
		}
		var b strings.Builder
		for _, x := range study.KeySentences(ps, n) {
			p := sum.Passages[idx[x.Passage]]
			fmt.Fprintf(&b, "%s [%d] ", strings.Join(strings.Fields(p.Text[x.Start:x.End]), " "), p.N)
		}
		return strings.TrimSpace(b.String())
	}
	var sections []SummarySection
	var all []int
	for i, g := range groups {
		text := quote(g.idx[:min(len(g.idx), 8)], 2)
		if text == "" {
			continue
		}
		all = append(all, g.idx[:min(len(g.idx), 8)]...)
		s := SummarySection{Section: g.section, Text: text, Claims: chat.Claims(text, sum.Passages)}
		sections = append(sections, s)
		if err := fn(SummaryEvent{Section: &s, Step: i + 1, Steps: len(groups)}); err != nil {
			sum.Sections = sections
			return err
		}
	}
	if len(sections) > 1 {
		if text := quote(all, 3); text != "" {
			o := SummarySection{Section: "Overview", Text: text, Claims: chat.Claims(text, sum.Passages), Overview: true}
			sections = append([]SummarySection{o}, sections...)
			if err := fn(SummaryEvent{Section: &o, Step: len(groups), Steps: len(groups)}); err != nil {
				sum.Sections = sections
				return err
			}
		}
	}
	sum.Sections = sections
	return nil
}

// run maps over the groups' parts, then reduces the sections' summaries to an overview.
func (s *summarizer) run(ctx context.Context, groups []summaryGroup) error {
	sysTokens := chat.EstimateTokens(summaryPrompt)
	var parts [][][]int // per group, its parts: passages that fit one call
	for _, g := range groups {
		parts = append(parts, s.pack(g.idx, sysTokens))
		s.steps += len(parts[len(parts)-1])
		if len(parts[len(parts)-1]) > 1 {
			s.steps++ // the section's parts reduced to one
		}
	}
	if len(groups) > 1 {
		s.steps++ // at least one reduce
	}
	if err := s.fn(SummaryEvent{Start: s.sum, Steps: s.steps}); err != nil {
		return err
	}
	var sections []SummarySection
	defer func() { s.sum.Sections = append(s.sum.Sections, sections...) }()
	for gi, g := range groups {
		var texts []string
		for _, part := range parts[gi] {
			var user strings.Builder
			room := s.budget - sysTokens
			for _, k := range part {
				// A passage longer than a call's room alone is cut to fit.
				text := s.passages[k].Text
				if n := chat.EstimateTokens(text) + 4; n > room {
					text = strings.ToValidUTF8(text[:max(0, min(len(text), (room-4)*len(text)/n))], "")
				}
				fmt.Fprintf(&user, "[%d] %s\n\n", s.passages[k].N, text)
			}
			text, err := s.call(ctx, summaryPrompt, user.String(), part)
			if err != nil {
				return err
			}
			if text != "" {
				texts = append(texts, text)
			}
		}
		text := strings.Join(texts, " ")
		if len(texts) > 1 {
			// A section in several parts: its parts' summaries reduced to one.
			var err error
			if text, err = s.reduce(ctx, texts); err != nil {
				return err
			}
		}
		if text == "" {
			continue
		}
		sec := SummarySection{Section: g.section, Text: text, Claims: chat.Claims(text, s.passages)}
		sections = append(sections, sec)
		if err := s.fn(SummaryEvent{Section: &sec, Step: s.sum.MapCalls + s.sum.ReduceCalls, Steps: s.steps}); err != nil {
			return err
		}
	}
	if len(sections) < 2 {
		return nil
	}
	if err := s.fn(SummaryEvent{Reducing: true, Step: s.sum.MapCalls + s.sum.ReduceCalls, Steps: s.steps}); err != nil {
		return err
	}
	texts := make([]string, len(sections))
	for i, sec := range sections {
		texts[i] = sec.Text
		if sec.Section != "" {
			texts[i] = sec.Section + ": " + sec.Text
		}
	}
	text, err := s.reduce(ctx, texts)
	if err != nil || text == "" {
		return err
	}
	o := SummarySection{Section: "Overview", Text: text, Claims: chat.Claims(text, s.passages), Overview: true}
	sections = append([]SummarySection{o}, sections...)
	return s.fn(SummaryEvent{Section: &o, Step: s.sum.MapCalls + s.sum.ReduceCalls, Steps: s.steps})
}

// pack cuts a section's passages into parts whose prompt fits the budget (a passage too
// long for one call alone is cut to fit).
func (s *summarizer) pack(idx []int, sysTokens int) [][]int {
	var parts [][]int
	var cur []int
	used := sysTokens
	for _, k := range idx {
		t := chat.EstimateTokens(s.passages[k].Text) + 4
		if len(cur) > 0 && used+t > s.budget {
			parts, cur, used = append(parts, cur), nil, sysTokens
		}
		cur = append(cur, k)
		used += t
	}
	if len(cur) > 0 {
		parts = append(parts, cur)
	}
	return parts
}

// reduce summarises summaries into one, in rounds while they do not fit one call.
func (s *summarizer) reduce(ctx context.Context, texts []string) (string, error) {
	sysTokens := chat.EstimateTokens(reducePrompt)
	for round := 0; ; round++ {
		var groups [][]string
		var cur []string
		used := sysTokens
		for _, t := range texts {
			n := chat.EstimateTokens(t) + 2
			if len(cur) > 0 && used+n > s.budget {
				groups, cur, used = append(groups, cur), nil, sysTokens
			}
			cur, used = append(cur, t), used+n
		}
		groups = append(groups, cur)
		if round > 0 || len(groups) > 1 {
			s.steps += len(groups) - 1
		}
		var next []string
		for _, g := range groups {
			text, err := s.call(ctx, reducePrompt, "- "+strings.Join(g, "\n- "), nil)
			if err != nil {
				return "", err
			}
			if text != "" {
				next = append(next, text)
			}
		}
		if len(next) <= 1 || round >= 4 {
			return strings.Join(next, " "), nil
		}
		texts = next
	}
}

// call runs one model call, streaming its tokens, and returns its text grounded to the
// passages as answers are (chat.Ground by words; then by meaning, with the embedder, for
// sentences of a map step sharing no words with its passages) with every sentence no
// passage supports dropped.
func (s *summarizer) call(ctx context.Context, system, user string, part []int) (string, error) {
	reducing := part == nil
	if reducing {
		s.sum.ReduceCalls++
	} else {
		s.sum.MapCalls++
	}
	step := s.sum.MapCalls + s.sum.ReduceCalls
	text, err := s.complete(ctx, system, user, func(tok string) error {
		return s.fn(SummaryEvent{Token: tok, Step: step - 1, Steps: s.steps, Reducing: reducing})
	})
	if err != nil {
		return "", err
	}
	if reducing {
		text = chat.Ground(text, s.passages)
	} else {
		text = s.groundIn(ctx, text, part)
	}
	kept, dropped := citedOnly(text, s.passages)
	s.sum.Dropped += dropped
	return kept, nil
}

// groundIn grounds a map step's text to the passages it was given (part), as answers
// are grounded to theirs: by words (chat.Ground), then, with the embedder, sentences
// sharing no words with them by meaning (chat.AttachBySimilarity). The model's markers
// of passages outside the part are dropped first.
func (s *summarizer) groundIn(ctx context.Context, text string, part []int) string {
	local := make([]chat.Passage, len(part))
	toLocal := map[int]int{}
	for i, k := range part {
		local[i] = s.passages[k]
		local[i].N = i + 1
		toLocal[s.passages[k].N] = i + 1
	}
	text = summaryMarker.ReplaceAllStringFunc(text, func(m string) string {
		var g int
		fmt.Sscanf(m, "[%d]", &g)
		if l, ok := toLocal[g]; ok {
			return fmt.Sprintf("[%d]", l)
		}
		return ""
	})
	text = chat.Ground(text, local)
	if un := chat.Unsupported(text); len(un) > 0 && s.embed != nil {
		texts := make([]string, len(local))
		for i, p := range local {
			texts[i] = p.Text
		}
		if vecs, err := s.embed(ctx, un, texts); err == nil && len(vecs) == len(un)+len(texts) {
			text = chat.AttachBySimilarity(text, local, vecs[:len(un)], vecs[len(un):], chat.SimilarityThreshold)
		}
	}
	return summaryMarker.ReplaceAllStringFunc(text, func(m string) string {
		var l int
		fmt.Sscanf(m, "[%d]", &l)
		if l < 1 || l > len(part) {
			return ""
		}
		return fmt.Sprintf("[%d]", s.passages[part[l-1]].N)
	})
}

var summaryMarker = regexp.MustCompile(`\[(\d{1,4})\]`)

// citedOnly keeps the sentences of a grounded text that cite a passage, and counts the
// others.
func citedOnly(text string, passages []chat.Passage) (string, int) {
	var b strings.Builder
	dropped := 0
	runes := []rune(text)
	for _, c := range chat.Claims(text, passages) {
		if !c.Supported {
			dropped++
			continue
		}
		b.WriteString(string(runes[c.Start:c.End]) + " ")
	}
	return strings.TrimSpace(b.String()), dropped
}

// saveSummary keeps a summary as a message of a study session, its cited passages as the
// message's citations, so sessions show, resume and export it (as Markdown with numbered
// references).
func saveSummary(ctx context.Context, lib *library.Library, newSessionID func() string, sum *Summary, req SummaryRequest, model *Model) error {
	what := sum.Title
	switch sum.Scope {
	case ScopeSection:
		what = fmt.Sprintf("%s, section %q", sum.Title, req.Section)
	case ScopeSelection:
		what = fmt.Sprintf("the selection on %s of %s", pagesLabel(req.Selection.Page, req.Selection.PageEnd), sum.Title)
	}
	sessionID := req.SessionID
	if sessionID == "" {
		s := library.Session{ID: newSessionID(), Title: "Summary: " + sum.Title, DocIDs: []string{sum.DocID}}
		if err := lib.CreateSession(ctx, &s); err != nil {
			return fmt.Errorf("save summary: %w", err)
		}
		sessionID = s.ID
	}
	var b strings.Builder
	for _, s := range sum.Sections {
		if s.Section != "" && (len(sum.Sections) > 1 || s.Overview) {
			fmt.Fprintf(&b, "### %s\n\n", s.Section)
		}
		b.WriteString(s.Text + "\n\n")
	}
	text := strings.TrimSpace(b.String())
	status := library.MessageDone
	if sum.Stopped {
		status = library.MessageStopped
	}
	m := library.Message{SessionID: sessionID, Question: "Summarise " + what, Answer: text, Status: status,
		Mode: sum.Mode, CreatedAt: time.Now().UTC()}
	if sum.Mode == library.AnswerModel && model != nil {
		m.Provider, m.Model = model.Provider, model.Name
	}
	for _, n := range chat.Markers(text, len(sum.Passages)) {
		p := sum.Passages[n-1]
		m.Citations = append(m.Citations, library.Citation{N: n, DocID: p.DocID, DocTitle: p.DocTitle, DocPath: p.DocPath,
			Page: p.Page, PageEnd: p.PageEnd, Start: p.Start, End: p.End, Section: p.Section, Text: p.Text})
	}
	if err := lib.AddMessage(ctx, &m); err != nil {
		return fmt.Errorf("save summary: %w", err)
	}
	sum.SessionID, sum.MessageID = sessionID, m.ID
	return nil
}

func pagesLabel(a, b int) string {
	if b > a {
		return fmt.Sprintf("pp. %d–%d", a, b)
	}
	return fmt.Sprintf("p. %d", a)
}
