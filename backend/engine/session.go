package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/carrel-app/carrel/backend/chat"
	"github.com/carrel-app/carrel/backend/crashpoint"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/llm"
)

// AskOptions shape a question asked in a study session.
type AskOptions struct {
	// SessionID continues a session; "" starts a new one (its id comes back in the
	// answer).
	SessionID string
	// DocIDs scopes the question. nil keeps the session's scope; a non-nil list (empty:
	// the whole library) becomes the session's scope from now on.
	DocIDs []string
	// OverrideBudget answers with a cloud model even past the budget cap.
	OverrideBudget bool
	// Fresh asks the model even when the answer cache holds an answer, and replaces that
	// answer with the new one ("ask again fresh").
	Fresh bool
	// OnLearn, when set, is told of memories learnt from the question (after the answer).
	OnLearn func([]library.Memory)
}

// NewSessionID returns a fresh random session id.
func NewSessionID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// AskSession answers question in a study session and saves the exchange: the question as
// asked, the standalone question a follow-up was rewritten into (by the model, else by a
// fixed rule) for retrieval and the prompt, the answer with its citations, and its usage
// and cost. A stopped or cut-off answer is saved with what arrived, marked. The answer
// carries the session and message ids.
//
// An answer the cache holds for the same standalone question (same scope, model family
// and documents; see lookupCache) is reused without the model, marked Cached, unless
// opt.Fresh. Once the answer is produced, the question (the user's own words only) is
// read for durable facts about the user (long-term memory).
func (e *Engine) AskSession(ctx context.Context, question string, opt AskOptions, fn func(AskEvent) error) (*chat.Answer, error) {
	question = strings.TrimSpace(question)
	if question == "" {
		return nil, errors.New("ask a question first")
	}
	if e.readOnly {
		return nil, e.readOnlyError()
	}
	r, err := e.prepareAsk(ctx, question, opt, fn)
	if err != nil {
		return nil, err
	}
	ans, err, abort := r.produce(ctx)
	if abort != nil {
		return nil, abort
	}
	if errors.Is(err, llm.ErrModelNotFound) || errors.Is(err, llm.ErrUnreachable) {
		// Removed or stopped since the status was checked: the next question answers
		// without it (the passages), saying why.
		e.RefreshStatus()
	}
	if ans == nil {
		if ctx.Err() == nil {
			e.saveFailure(r.sess.ID, question, r.standalone, err)
		}
		return nil, err
	}
	return r.finish(ctx, ans, err)
}

// askRun is one question on its way through AskSession: what was decided before the
// answer (model, session, standalone question, cache scope) and when each step ended.
type askRun struct {
	e        *Engine
	question string
	opt      AskOptions
	fn       func(AskEvent) error

	st           Status
	m            answerModel
	sess         library.Session
	standalone   string
	rewriteUsage *llm.Usage
	about        []string
	family       string
	scope        cacheScope
	useCache     bool
	hit          *cacheHit

	began, rewritten, retrieved, firstToken time.Time
}

// prepareAsk chooses the model, opens the session, rewrites a follow-up into a standalone
// question and works out whether and where the answer cache applies.
func (e *Engine) prepareAsk(ctx context.Context, question string, opt AskOptions, fn func(AskEvent) error) (*askRun, error) {
	r := &askRun{e: e, question: question, opt: opt, fn: fn, began: time.Now()}
	// The model first: a missing key or a spent budget must not leave an empty session.
	r.st = e.Status(ctx)
	var err error
	if r.m, err = e.answerModel(ctx, r.st, opt.OverrideBudget); err != nil {
		return nil, err
	}
	var history []chat.Turn
	if r.sess, history, err = e.openSession(ctx, question, opt); err != nil {
		return nil, err
	}
	r.standalone, _, r.rewriteUsage = chat.Rewrite(ctx, r.m.provider, llm.ChatRequest{Model: r.m.name, NumCtx: r.m.numCtx, KeepAlive: e.keepAlive()}, question, history)
	r.rewritten = time.Now()
	r.about = e.aboutUser(ctx)
	if r.m.provider != nil {
		r.family = modelFamily(r.m.provider.Name(), r.m.name)
	}
	r.useCache = r.family != "" && e.cacheEnabled(ctx)
	if r.useCache {
		if r.scope, err = e.scopeOf(ctx, r.sess.DocIDs, r.about); err != nil {
			slog.Warn("answer cache: reading the scope", "err", err)
			r.useCache = false
		}
	}
	return r, nil
}

// event passes an answer event on with the session's id, noting when the passages and
// the first token came.
func (r *askRun) event(ev AskEvent) error {
	if ev.IsStart {
		ev.SessionID = r.sess.ID
		r.retrieved = time.Now()
	} else if r.firstToken.IsZero() {
		r.firstToken = time.Now()
	}
	if r.fn == nil {
		return nil
	}
	return r.fn(ev)
}

// produce answers from the cache, or else from the model (or the passages). abort is an
// error of the caller's callback while streaming a cached answer: nothing is saved then.
func (r *askRun) produce(ctx context.Context) (ans *chat.Answer, err, abort error) {
	if r.useCache && !r.opt.Fresh {
		if r.hit, err = r.e.lookupCache(ctx, r.st, r.standalone, r.family, r.scope); err != nil {
			slog.Warn("answer cache: lookup", "err", err)
		}
	}
	if r.hit == nil {
		ans, err = r.e.answerAbout(ctx, r.st, r.m, r.standalone, r.sess.DocIDs, r.about, r.event)
		return ans, err, nil
	}
	// No model in the loop: the saved answer, as if streamed in one piece.
	ans = cachedAnswer(r.hit)
	if ferr := r.event(AskEvent{IsStart: true, Start: ans.Citations}); ferr != nil {
		return nil, nil, ferr
	}
	if ferr := r.event(AskEvent{Token: ans.Text}); ferr != nil {
		return nil, nil, ferr
	}
	return ans, nil, nil
}

// finish completes the answer (usage and cost, the question, the warning), saves the
// exchange, records the cache hit or stores the answer, the metrics, the budget's
// warning, and what the question teaches about the user.
func (r *askRun) finish(ctx context.Context, ans *chat.Answer, err error) (*chat.Answer, error) {
	e := r.e
	if u := r.rewriteUsage; u != nil {
		ans.Usage.PromptTokens += u.PromptTokens
		ans.Usage.CompletionTokens += u.CompletionTokens
		ans.Usage.CachedTokens += u.CachedTokens
		ans.Usage.DurationMS += u.Duration.Milliseconds()
	}
	ans.Usage.CostUSD = e.cost(r.m, ans.Usage)
	ans.Question = r.question
	if r.standalone != r.question {
		ans.Standalone = r.standalone
	}
	if r.m.warning != "" {
		ans.Warning = r.m.warning
	}
	msg := r.message(ans, err)
	if err != nil && ctx.Err() == nil {
		// The desktop app has no terminal: the log file is where a failed answer is found.
		slog.Warn("the answer failed", "session", r.sess.ID, "provider", ans.Provider, "model", ans.Model, "err", err)
	}
	// Saved even when the user stopped the answer: the partial answer belongs in history.
	if serr := e.lib.AddMessage(context.WithoutCancel(ctx), msg); serr != nil {
		return ans, errors.Join(err, serr)
	}
	crashpoint.Hit("session.saved")
	ans.SessionID, ans.MessageID = r.sess.ID, msg.ID
	saved := 0.0
	switch {
	case r.hit != nil:
		saved = r.hit.entry.CostUSD
		if src, jerr := json.Marshal(ans.Cached); jerr == nil {
			if herr := e.lib.MarkCacheHit(context.WithoutCancel(ctx), msg.ID, string(src)); herr != nil {
				slog.Warn("answer cache: record the hit", "err", herr)
			}
		}
	case r.useCache && err == nil && msg.Status == library.MessageDone:
		e.storeCache(ctx, r.st, ans, r.standalone, r.family, r.scope, r.sess.Title)
	}
	e.recordMetric(ctx, ans, msg.Status, r.hit != nil, saved, r.began, r.rewritten, r.retrieved, r.firstToken)
	if ans.Usage.CostUSD > 0 {
		// The budget as this answer leaves it.
		if meter, merr := e.Meter(context.WithoutCancel(ctx)); merr == nil && meter.Warning != "" {
			ans.Warning = meter.Warning
		}
	}
	if msg.Status != library.MessageFailed {
		// Only now, with the answer produced, and only from the user's own words.
		if learnt := e.learn(ctx, r.m, r.question, r.sess.ID); len(learnt) > 0 && r.opt.OnLearn != nil {
			r.opt.OnLearn(learnt)
		}
	}
	return ans, err
}

// message is the exchange as the session keeps it.
func (r *askRun) message(ans *chat.Answer, err error) *library.Message {
	msg := &library.Message{SessionID: r.sess.ID, Question: r.question, Standalone: ans.Standalone, Answer: ans.Text,
		Status: library.MessageDone, Mode: ans.Mode, Note: ans.Note, Provider: ans.Provider, Model: ans.Model,
		PromptTokens: ans.Usage.PromptTokens, CompletionTokens: ans.Usage.CompletionTokens,
		CachedTokens: ans.Usage.CachedTokens, CostUSD: ans.Usage.CostUSD, DurationMS: ans.Usage.DurationMS}
	switch {
	case ans.Stopped:
		msg.Status = library.MessageStopped
	case err != nil && strings.TrimSpace(ans.Text) == "":
		msg.Status, msg.Note = library.MessageFailed, err.Error()
	case ans.Truncated:
		msg.Status = library.MessageTruncated
	}
	for _, p := range ans.Citations {
		msg.Citations = append(msg.Citations, library.Citation{N: p.N, DocID: p.DocID, DocTitle: p.DocTitle, DocPath: p.DocPath,
			Page: p.Page, PageEnd: p.PageEnd, Start: p.Start, End: p.End, Section: p.Section, Text: p.Text})
	}
	return msg
}

// openSession loads (or creates) the session and its recent turns, applying a new scope.
func (e *Engine) openSession(ctx context.Context, question string, opt AskOptions) (library.Session, []chat.Turn, error) {
	if opt.SessionID == "" {
		s := library.Session{ID: NewSessionID(), Title: sessionTitle(question), DocIDs: opt.DocIDs}
		if err := e.lib.CreateSession(ctx, &s); err != nil {
			return s, nil, err
		}
		return s, nil, nil
	}
	s, err := e.lib.Session(ctx, opt.SessionID)
	if err != nil {
		return s, nil, err
	}
	if opt.DocIDs != nil {
		if err := e.lib.SetSessionScope(ctx, s.ID, opt.DocIDs); err != nil {
			return s, nil, err
		}
		s.DocIDs = opt.DocIDs
	}
	msgs, err := e.lib.Messages(ctx, s.ID, chat.RewriteTurns)
	if err != nil {
		return s, nil, err
	}
	var turns []chat.Turn
	for _, m := range msgs {
		if m.Status == library.MessageFailed {
			continue
		}
		turns = append(turns, chat.Turn{Question: m.Question, Standalone: m.Standalone, Answer: m.Answer})
	}
	return s, turns, nil
}

// saveFailure records a question that got no answer at all, so history shows it.
func (e *Engine) saveFailure(sessionID, question, standalone string, err error) {
	if standalone == question {
		standalone = ""
	}
	note := ""
	if err != nil {
		note = err.Error()
	}
	e.lib.AddMessage(context.Background(), &library.Message{SessionID: sessionID, Question: question, Standalone: standalone,
		Status: library.MessageFailed, Note: note})
}

// sessionTitle names a new session after its first question.
func sessionTitle(question string) string {
	t := strings.Join(strings.Fields(question), " ")
	if r := []rune(t); len(r) > 80 {
		t = string(r[:79]) + "…"
	}
	return t
}

// answerModel is the model that answers now, with what is needed to call and price it.
type answerModel struct {
	provider llm.Provider // nil: no model (passages mode)
	name     string
	numCtx   int
	reason   string // why there is no model
	price    *llm.Price
	warning  string
	tokens   chat.Estimator // token estimates for the prompt budget
}

// answer retrieves passages for question within docIDs and streams the answer from m.
func (e *Engine) answer(ctx context.Context, st Status, m answerModel, question string, docIDs []string, fn func(AskEvent) error) (*chat.Answer, error) {
	return e.answerAbout(ctx, st, m, question, docIDs, e.aboutUser(ctx), fn)
}

// answerAbout is answer with the user's memories (about) in the prompt.
func (e *Engine) answerAbout(ctx context.Context, st Status, m answerModel, question string, docIDs, about []string, fn func(AskEvent) error) (*chat.Answer, error) {
	cfg := e.Config()
	hits, err := e.Search(ctx, question, SearchOptions{K: cfg.TopK, DocIDs: docIDs})
	if err != nil {
		return nil, err
	}
	passages := make([]chat.Passage, len(hits))
	for i, h := range hits {
		passages[i] = chat.Passage{N: i + 1, DocID: h.DocID, DocTitle: h.DocTitle, DocPath: h.DocPath, Page: h.Page,
			PageEnd: h.PageEnd, Start: h.Start, End: h.End, Section: h.Section, Text: h.Text}
	}
	titles, err := e.searchedTitles(ctx, docIDs)
	if err != nil {
		return nil, err
	}
	searched := len(titles)
	if m.provider != nil && m.provider == e.ollama && m.tokens == 0 && len(passages) > 0 {
		// First answer with this model: measure its tokenizer before budgeting the prompt.
		m.tokens = chat.Probe(ctx, m.provider, llm.ChatRequest{Model: m.name, NumCtx: m.numCtx, KeepAlive: e.keepAlive()}, question, passages)
		if m.tokens > 0 {
			e.calib.Store(m.name, m.tokens)
		}
	}
	req := chat.Request{Question: question, Passages: passages, Searched: searched, SearchedTitles: titles, MaxTokens: cfg.MaxTokens,
		Model: m.provider, ModelName: m.name, NumCtx: m.numCtx, NoModelReason: m.reason, KeepAlive: e.keepAlive(), Tokens: m.tokens,
		AboutUser: about}
	if fn == nil {
		fn = func(AskEvent) error { return nil }
	}
	ans, err := chat.Respond(ctx, req, fn)
	if err == nil && ans != nil && ans.Mode == chat.ModeModel && st.embedOK {
		e.groundByMeaning(ctx, ans)
	}
	// A count at the window's edge may be a truncated prompt's: it says nothing then.
	if ans != nil && m.provider != nil && m.provider == e.ollama && !ans.UsageEstimated && ans.Usage.PromptTokens > 0 &&
		ans.Usage.PromptTokens+cfg.MaxTokens < m.numCtx {
		e.calib.Store(m.name, chat.Calibrate(m.tokens, ans.PromptBytes, ans.Usage.PromptTokens))
	}
	return ans, err
}

// groundByMeaning places sentences that share no words with any passage (paraphrases)
// by embedding similarity, then recomputes the claims. A failure leaves the answer as
// lexical grounding made it.
func (e *Engine) groundByMeaning(ctx context.Context, ans *chat.Answer) {
	un := chat.Unsupported(ans.Text)
	if len(un) == 0 || len(ans.Citations) == 0 {
		return
	}
	model := e.Config().EmbedModel
	texts := make([]string, 0, len(un)+len(ans.Citations))
	for _, s := range un {
		texts = append(texts, queryPrefix(model)+s)
	}
	for _, p := range ans.Citations {
		texts = append(texts, docPrefix(model)+p.Text)
	}
	vecs, err := e.ollama.Embed(ctx, model, texts)
	if err != nil || len(vecs) != len(texts) {
		return
	}
	ans.Text = chat.AttachBySimilarity(ans.Text, ans.Citations, vecs[:len(un)], vecs[len(un):], chat.SimilarityThreshold)
	ans.Claims = chat.Claims(ans.Text, ans.Citations)
}

// estimator is the token estimator calibrated for a local model so far (0: default).
func (e *Engine) estimator(model string) chat.Estimator {
	if v, ok := e.calib.Load(model); ok {
		return v.(chat.Estimator)
	}
	return 0
}

// keepAlive is how long Ollama keeps the chat model loaded after an answer: long enough
// that a study session does not reload it between questions.
func (e *Engine) keepAlive() time.Duration {
	s := strings.TrimSpace(e.Config().KeepAlive)
	if s == "" {
		return DefaultKeepAlive
	}
	if d, err := time.ParseDuration(s); err == nil && d != 0 {
		return d
	}
	if s == "-1" {
		return -1
	}
	return DefaultKeepAlive
}

// DefaultKeepAlive keeps the local chat model loaded for half an hour after each answer.
const DefaultKeepAlive = 30 * time.Minute

// SessionDetail is a session with its exchanges, for resuming or showing it.
type SessionDetail struct {
	library.Session
	Messages []SessionMessage `json:"messages"`
	// Scope names the documents in DocIDs, in order ("" for a removed document).
	Scope []string `json:"scope"`
}

// Session returns a session with every exchange and its citations.
func (e *Engine) Session(ctx context.Context, id string) (SessionDetail, error) {
	s, err := e.lib.Session(ctx, id)
	if err != nil {
		return SessionDetail{}, err
	}
	msgs, err := e.lib.Messages(ctx, id, 0)
	if err != nil {
		return SessionDetail{}, err
	}
	hits, err := e.lib.CacheHits(ctx, id)
	if err != nil {
		return SessionDetail{}, err
	}
	d := SessionDetail{Session: s, Messages: make([]SessionMessage, len(msgs)), Scope: []string{}}
	for i, m := range msgs {
		d.Messages[i] = SessionMessage{Message: m, Claims: []chat.Claim{}}
		if src, ok := hits[m.ID]; ok {
			var from chat.CachedFrom
			if json.Unmarshal([]byte(src), &from) == nil {
				d.Messages[i].Cached = &from
			}
		}
		if m.Mode == chat.ModeModel {
			d.Messages[i].Claims = chat.Claims(m.Answer, passagesOf(m.Citations))
		}
	}
	for _, id := range s.DocIDs {
		title := ""
		if doc, err := e.lib.Document(ctx, id); err == nil {
			title = doc.Title
		}
		d.Scope = append(d.Scope, title)
	}
	return d, nil
}

// SessionMessage is a saved exchange with its claims, grounded again from the saved
// answer and citations (grounding is deterministic), for the viewer to highlight.
type SessionMessage struct {
	library.Message
	Claims []chat.Claim `json:"claims"`
	// Cached says where an answer served from the cache came from.
	Cached *chat.CachedFrom `json:"cached,omitempty"`
}

func passagesOf(cs []library.Citation) []chat.Passage {
	ps := make([]chat.Passage, len(cs))
	for i, c := range cs {
		ps[i] = chat.Passage{N: c.N, DocID: c.DocID, DocTitle: c.DocTitle, DocPath: c.DocPath, Page: c.Page, PageEnd: c.PageEnd,
			Start: c.Start, End: c.End, Section: c.Section, Text: c.Text}
	}
	return ps
}

// ExportSession renders a session as Markdown with numbered references.
func (e *Engine) ExportSession(ctx context.Context, id string) (string, error) {
	d, err := e.Session(ctx, id)
	if err != nil {
		return "", err
	}
	var scope []string
	for i, t := range d.Scope {
		if t == "" {
			t = "(removed document " + shortID(d.DocIDs[i]) + ")"
		}
		scope = append(scope, t)
	}
	msgs := make([]library.Message, len(d.Messages))
	for i, m := range d.Messages {
		msgs[i] = m.Message
	}
	return chat.ExportMarkdown(d.Session, msgs, scope), nil
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// RenameSession sets a session's title.
func (e *Engine) RenameSession(ctx context.Context, id, title string) error {
	title = strings.Join(strings.Fields(title), " ")
	if title == "" {
		return errors.New("give the session a name")
	}
	return e.lib.RenameSession(ctx, id, title)
}

// DeleteSession removes a session; its spending stays in the total.
func (e *Engine) DeleteSession(ctx context.Context, id string) error {
	return e.lib.DeleteSession(ctx, id)
}

// Sessions lists the sessions, most recently used first.
func (e *Engine) Sessions(ctx context.Context) ([]library.Session, error) {
	return e.lib.Sessions(ctx)
}

// searchedTitles names the ready documents a question searches: those in scope, or all.
func (e *Engine) searchedTitles(ctx context.Context, docIDs []string) ([]string, error) {
	docs, err := e.lib.Documents(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range docs {
		if d.Status == library.StatusReady && (len(docIDs) == 0 || slices.Contains(docIDs, d.ID)) {
			out = append(out, d.Title)
		}
	}
	return out, nil
}

// recordMetric keeps one answer's latency, tokens and cost for the stats view. Without a
// first token (no model, nothing found) the time to the whole answer stands for it.
// A cache hit records Cached and, as SavedUSD, what the reused answer cost.
func (e *Engine) recordMetric(ctx context.Context, ans *chat.Answer, status library.MessageStatus, cached bool, saved float64, began, rewritten, retrieved, firstToken time.Time) {
	end := time.Now()
	ms := func(a, b time.Time) float64 { return float64(b.Sub(a).Microseconds()) / 1000 }
	if retrieved.IsZero() {
		retrieved = end
	}
	if firstToken.IsZero() {
		firstToken = end
	}
	m := library.AnswerMetric{At: began, Mode: ans.Mode, Provider: ans.Provider, Model: ans.Model, Status: status,
		RetrievalMS: ms(rewritten, retrieved), TTFTMS: ms(began, firstToken), TotalMS: ms(began, end),
		PromptTokens: ans.Usage.PromptTokens, CompletionTokens: ans.Usage.CompletionTokens, CostUSD: ans.Usage.CostUSD,
		Cached: cached, SavedUSD: saved}
	if err := e.lib.AddMetric(context.WithoutCancel(ctx), m); err != nil {
		slog.Warn("recording answer metrics", "err", err)
	}
}

// Stats sums every answer's metrics, in total and per day.
func (e *Engine) Stats(ctx context.Context) (library.Stats, error) { return e.lib.Stats(ctx) }
