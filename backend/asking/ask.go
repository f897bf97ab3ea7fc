package asking

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/carrel-app/carrel/backend/cache"
	"github.com/carrel-app/carrel/backend/chat"
	"github.com/carrel-app/carrel/backend/crashpoint"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/llm"
)

// Options shape a question asked in a study session.
type Options struct {
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

// Event is streamed while answering.
type Event = chat.Event

// Ask answers question in a study session and saves the exchange: the question as
// asked, the standalone question a follow-up was rewritten into (by the model, else by a
// fixed rule) for retrieval and the prompt, the answer with its citations, and its usage
// and cost. A stopped or cut-off answer is saved with what arrived, marked. The answer
// carries the session and message ids.
//
// An answer the cache holds for the same standalone question (same scope, model family
// and documents; see cache.Answers.Lookup) is reused without the model, marked Cached,
// unless opt.Fresh. Once the answer is produced, the question (the user's own words
// only) is read for durable facts about the user (long-term memory).
func (a *Asker) Ask(ctx context.Context, question string, opt Options, fn func(Event) error) (*chat.Answer, error) {
	question = strings.TrimSpace(question)
	if question == "" {
		return nil, errors.New("ask a question first")
	}
	if err := a.co.Writable(); err != nil {
		return nil, err
	}
	r, err := a.prepare(ctx, question, opt, fn)
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
		a.co.ModelsChanged()
	}
	if ans == nil {
		if ctx.Err() == nil {
			a.saveFailure(r.sess.ID, question, r.standalone, err)
		}
		return nil, err
	}
	return r.finish(ctx, ans, err)
}

// run is one question on its way through Ask: what was decided before the answer
// (model, session, standalone question, cache scope) and when each step ended.
type run struct {
	a        *Asker
	question string
	opt      Options
	fn       func(Event) error

	m            Model
	emb          Embedding
	sess         library.Session
	standalone   string
	rewriteUsage *llm.Usage
	about        []string
	family       string
	scope        cache.Scope
	useCache     bool
	hit          *cache.Hit
	msg          *library.Message

	began, rewritten, retrieved, firstToken time.Time
}

// prepare chooses the model, opens the session, rewrites a follow-up into a standalone
// question and works out whether and where the answer cache applies.
func (a *Asker) prepare(ctx context.Context, question string, opt Options, fn func(Event) error) (*run, error) {
	r := &run{a: a, question: question, opt: opt, fn: fn, began: time.Now()}
	// The model first: a missing key or a spent budget must not leave an empty session.
	var err error
	if r.m, r.emb, err = a.co.ChooseModel(ctx, opt.OverrideBudget); err != nil {
		return nil, err
	}
	if r.m.Local {
		r.m.tokens = a.estimator(r.m.Name)
	}
	var history []chat.Turn
	if r.sess, history, err = a.openSession(ctx, question, opt); err != nil {
		return nil, err
	}
	r.standalone, _, r.rewriteUsage = chat.Rewrite(ctx, r.m.Provider, a.request(r.m), question, history)
	r.rewritten = time.Now()
	r.about = a.memory.About(ctx)
	r.cacheScope(ctx)
	return r, nil
}

// asked is the question as typed when the standalone question is a rewrite of it.
func (r *run) asked() string {
	if r.standalone == r.question {
		return ""
	}
	return r.question
}

// cacheScope decides whether the answer cache applies (a model answers and the cache is
// on) and reads the scope it is keyed by.
func (r *run) cacheScope(ctx context.Context) {
	if r.m.Provider != nil {
		r.family = cache.Family(r.m.Provider.Name(), r.m.Name)
	}
	r.useCache = r.family != "" && r.a.cache.Enabled(ctx)
	if !r.useCache {
		return
	}
	var err error
	if r.scope, err = r.a.cache.ScopeOf(ctx, r.sess.DocIDs, r.about); err != nil {
		slog.Warn("answer cache: reading the scope", "err", err)
		r.useCache = false
	}
}

// event passes an answer event on with the session's id, noting when the passages and
// the first token came.
func (r *run) event(ev Event) error {
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
func (r *run) produce(ctx context.Context) (ans *chat.Answer, err, abort error) {
	if r.useCache && !r.opt.Fresh {
		if r.hit, err = r.a.cache.Lookup(ctx, r.standalone, r.family, r.scope, embedder(r.emb)); err != nil {
			slog.Warn("answer cache: lookup", "err", err)
		}
	}
	if r.hit == nil {
		ans, err = r.a.answer(ctx, r.emb, r.m, r.standalone, r.asked(), r.sess.DocIDs, r.about, r.event)
		return ans, err, nil
	}
	// No model in the loop: the saved answer, as if streamed in one piece.
	ans = cachedAnswer(r.hit)
	if ferr := r.event(Event{IsStart: true, Start: ans.Citations}); ferr != nil {
		return nil, nil, ferr
	}
	if ferr := r.event(Event{Token: ans.Text}); ferr != nil {
		return nil, nil, ferr
	}
	return ans, nil, nil
}

// finish completes the answer, saves the exchange, records the cache hit or stores the
// answer, the metrics, the budget's warning, and what the question teaches about the
// user.
func (r *run) finish(ctx context.Context, ans *chat.Answer, err error) (*chat.Answer, error) {
	r.complete(ans)
	if err != nil && ctx.Err() == nil {
		// The desktop app has no terminal: the log file is where a failed answer is found.
		slog.Warn("the answer failed", "session", r.sess.ID, "provider", ans.Provider, "model", ans.Model, "err", err)
	}
	if serr := r.save(ctx, ans, err); serr != nil {
		return ans, errors.Join(err, serr)
	}
	r.updateCache(ctx, ans, err)
	r.a.recordMetric(ctx, r, ans)
	if ans.Usage.CostUSD > 0 {
		// The budget as this answer leaves it.
		if w := r.a.co.BudgetWarning(context.WithoutCancel(ctx)); w != "" {
			ans.Warning = w
		}
	}
	if r.msg.Status != library.MessageFailed {
		r.learn(ctx)
	}
	return ans, err
}

// complete adds to the answer the rewrite's usage, the cost, the question as asked and
// standalone, and the model's warning.
func (r *run) complete(ans *chat.Answer) {
	if u := r.rewriteUsage; u != nil {
		ans.Usage.PromptTokens += u.PromptTokens
		ans.Usage.CompletionTokens += u.CompletionTokens
		ans.Usage.CachedTokens += u.CachedTokens
		ans.Usage.DurationMS += u.Duration.Milliseconds()
	}
	ans.Usage.CostUSD = r.m.cost(ans.Usage)
	ans.Question = r.question
	if r.standalone != r.question {
		ans.Standalone = r.standalone
	}
	if r.m.Warning != "" {
		ans.Warning = r.m.Warning
	}
}

// save keeps the exchange in the session, even when the user stopped the answer: the
// partial answer belongs in history.
func (r *run) save(ctx context.Context, ans *chat.Answer, err error) error {
	r.msg = r.message(ans, err)
	if serr := r.a.lib.AddMessage(context.WithoutCancel(ctx), r.msg); serr != nil {
		return serr
	}
	crashpoint.Hit("session.saved")
	ans.SessionID, ans.MessageID = r.sess.ID, r.msg.ID
	return nil
}

// updateCache records where a cached answer was reused, or keeps a finished model
// answer for reuse.
func (r *run) updateCache(ctx context.Context, ans *chat.Answer, err error) {
	switch {
	case r.hit != nil:
		if src, jerr := json.Marshal(ans.Cached); jerr == nil {
			if herr := r.a.lib.MarkCacheHit(context.WithoutCancel(ctx), r.msg.ID, string(src)); herr != nil {
				slog.Warn("answer cache: record the hit", "err", herr)
			}
		}
	case r.useCache && err == nil && r.msg.Status == library.MessageDone:
		r.a.storeCache(ctx, r, ans)
	}
}

// learn reads the question (the user's own words only) for facts about the user, now
// that the answer is produced.
func (r *run) learn(ctx context.Context) {
	var local llm.Provider
	if r.m.Local {
		local = r.m.Provider
	}
	if learnt := r.a.memory.Learn(ctx, r.question, r.sess.ID, local, r.a.request(r.m)); len(learnt) > 0 && r.opt.OnLearn != nil {
		r.opt.OnLearn(learnt)
	}
}

// message is the exchange as the session keeps it.
func (r *run) message(ans *chat.Answer, err error) *library.Message {
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
			Page: p.Page, PageEnd: p.PageEnd, Start: p.Start, End: p.End, Section: p.Section, Text: p.Text, FocusPage: p.FocusPage})
	}
	return msg
}
