package chat

import (
	"context"
	"strings"
	"unicode"

	"github.com/carrel-app/carrel/backend/llm"
)

// Turn is an earlier exchange of a session, as follow-up rewriting sees it.
type Turn struct {
	// Question is the question as asked; Standalone its rewritten form ("" when it
	// needed none).
	Question, Standalone string
	Answer               string
}

// RewriteTurns is how many recent turns a follow-up is rewritten from.
const RewriteTurns = 3

const rewritePrompt = `You rewrite follow-up questions. Given a conversation and the user's last question, rewrite the last question so that it can be understood without the conversation: replace pronouns and vague references with what they refer to, and keep its meaning and language. Reply with the rewritten question only, on one line. If it already stands alone, repeat it unchanged.`

// Rewrite turns a follow-up question into a standalone one for retrieval, using the
// last [RewriteTurns] turns of history. base names the model and carries the settings the
// answer will use (NumCtx, KeepAlive): Ollama reloads a model whose num_ctx changes, so
// the rewrite must not differ from the answer there. With a model it asks the model (and checks the
// reply); without one, or when the model's reply is unusable, it falls back to
// [FallbackRewrite]. It returns the standalone question, whether the model wrote it,
// and what the model call used (nil when none was made). With no history the question
// is returned as it is.
func Rewrite(ctx context.Context, model llm.Provider, base llm.ChatRequest, question string, history []Turn) (string, bool, *llm.Usage) {
	question = strings.TrimSpace(question)
	if len(history) == 0 {
		return question, false, nil
	}
	if len(history) > RewriteTurns {
		history = history[len(history)-RewriteTurns:]
	}
	if model == nil {
		return FallbackRewrite(question, history), false, nil
	}
	var b strings.Builder
	b.WriteString("Conversation:\n")
	for _, t := range history {
		b.WriteString("User: " + t.Question + "\n")
		b.WriteString("Assistant: " + excerpt(markerRE.ReplaceAllString(t.Answer, ""), 300) + "\n")
	}
	b.WriteString("\nLast question: " + question + "\nStandalone question:")
	zero := 0.0
	var out strings.Builder
	deltas := 0
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: rewritePrompt}, {Role: llm.RoleUser, Content: b.String()}}
	req := base
	req.Messages, req.Temperature, req.MaxTokens = msgs, &zero, 2*EstimateTokens(question)+64
	usage, err := model.Chat(ctx, req, func(d llm.Delta) error {
		out.WriteString(d.Text)
		deltas++
		return nil
	})
	if usage == nil {
		// A stream cut short reports no usage: estimate it, so the meter counts the call.
		usage = &llm.Usage{PromptTokens: EstimateTokens(rewritePrompt + msgs[1].Content), CompletionTokens: deltas}
	}
	if err != nil && ctx.Err() != nil {
		return question, false, usage
	}
	if got, ok := cleanRewrite(out.String(), question, history); err == nil && ok {
		return got, true, usage
	}
	return FallbackRewrite(question, history), false, usage
}

// cleanRewrite takes the first line of a model's rewrite, strips labels and quotes, and
// accepts it only when it looks like a question about the conversation: not empty, not
// much longer than the question with its context, and sharing a content word with them.
func cleanRewrite(reply, question string, history []Turn) (string, bool) {
	line := strings.TrimSpace(reply)
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = strings.TrimSpace(line[:i])
	}
	for _, p := range []string{"standalone question:", "rewritten question:", "question:"} {
		if strings.HasPrefix(strings.ToLower(line), p) {
			line = strings.TrimSpace(line[len(p):])
		}
	}
	line = strings.Trim(line, "\"'`“”")
	if line == "" || len(line) > 2*len(question)+200 {
		return "", false
	}
	around := question
	for _, t := range history {
		around += " " + t.Question + " " + t.Standalone
	}
	known := contentWords(around)
	for w := range contentWords(line) {
		if known[w] {
			return line, true
		}
	}
	return "", false
}

// referring words make a question lean on the conversation.
var referring = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`it its itself this that these those they them their theirs he him his she her hers
		there one ones former latter same above previous earlier`) {
		referring[w] = true
	}
}

// FallbackRewrite is the deterministic rewrite used without a model: a question that
// leans on the conversation (see [IsFollowUp]) gets the previous standalone question
// attached as its context; others are returned unchanged.
func FallbackRewrite(question string, history []Turn) string {
	question = strings.TrimSpace(question)
	if len(history) == 0 || !IsFollowUp(question) {
		return question
	}
	prev := history[len(history)-1]
	ctx := prev.Standalone
	if ctx == "" {
		ctx = prev.Question
	}
	return question + " (following up on: " + strings.TrimSpace(ctx) + ")"
}

// IsFollowUp reports whether a question seems to lean on earlier turns: it opens with a
// connective ("and ...", "what about ..."), uses a pronoun or a word like "there", or is
// only a word or two ("Why?").
func IsFollowUp(question string) bool {
	words := strings.FieldsFunc(strings.ToLower(question), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
	if len(words) == 0 {
		return false
	}
	if len(words) <= 2 {
		return true
	}
	switch words[0] {
	case "and", "but", "so", "also", "then", "or":
		return true
	case "what", "how":
		if words[1] == "about" {
			return true
		}
	}
	for _, w := range words {
		if referring[w] {
			return true
		}
	}
	return false
}
