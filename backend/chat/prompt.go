// Package chat turns a question and retrieved passages into an answer: the prompt, the
// streamed model call, citations grounded in code, and the no-model fallback.
package chat

import (
	"context"
	"fmt"
	"strings"

	"github.com/carrel-app/carrel/backend/llm"
)

// Passage is one numbered source offered to the model and shown as a citation.
type Passage struct {
	N        int    `json:"n"`
	DocID    string `json:"doc_id"`
	DocTitle string `json:"doc_title"`
	DocPath  string `json:"doc_path"`
	Page     int    `json:"page"`
	PageEnd  int    `json:"page_end"`
	Start    int    `json:"start"` // character offset of the passage in Page's text
	End      int    `json:"end"`   // character offset in PageEnd's text, exclusive
	// FocusPage is the page its citation opens at: where the search matched, in a passage
	// over several pages (0: Page).
	FocusPage int    `json:"focus_page,omitempty"`
	Section   string `json:"section"`
	Text      string `json:"text"`
	// URL is where the passage can be read online, for a document fetched by URL: a
	// thread comment's permalink, else the page's address ("" for files).
	URL string `json:"url,omitempty"`
	// Strength is set in no-model answers: how well the passage matches the question.
	Strength Strength `json:"strength,omitempty"`
}

const systemPrompt = `You are Carrel, a careful study assistant. Answer the question using only the numbered passages from the user's documents.
After each sentence that uses a passage, cite it with its number in square brackets, like [1] or [2][3].
If the passages do not contain the answer, say that the documents do not answer it. Do not invent facts. Be concise.`

// charsPerToken is a deliberately low estimate of characters per token, so that a prompt
// estimated to fit really fits (English prose runs about 4 characters per token).
const charsPerToken = 3

// EstimateTokens estimates the tokens a text takes, erring high.
func EstimateTokens(s string) int { return len(s)/charsPerToken + 1 }

// DefaultCharsPerToken is the bytes-per-token ratio assumed until a model's own is known.
const DefaultCharsPerToken = charsPerToken

// Estimator estimates token counts at a bytes-per-token ratio, calibrated per model from
// the prompt token counts the server reports (see [Calibrate]); 0 means the default.
type Estimator float64

// Tokens estimates the tokens s takes.
func (e Estimator) Tokens(s string) int {
	r := float64(e)
	if r <= 0 || r > charsPerToken {
		r = charsPerToken
	}
	return int(float64(len(s))/r) + 1
}

// Calibrate returns the ratio to use after a prompt of promptBytes was counted as
// promptTokens by the server: the smaller (more cautious) of old and the observed one,
// with a 10% margin, never above the default. Prompt caching lowers a server's count,
// which only raises the observed ratio, so taking the minimum keeps estimates high.
func Calibrate(old Estimator, promptBytes, promptTokens int) Estimator {
	if promptTokens <= 0 || promptBytes <= 0 {
		return old
	}
	obs := 0.9 * float64(promptBytes) / float64(promptTokens)
	if old > 0 && float64(old) < obs {
		return old
	}
	return Estimator(min(obs, charsPerToken))
}

// Messages builds the chat messages for a question over passages, keeping only as many
// passages (best first) as fit in budget tokens. It returns the passages kept.
func Messages(question string, passages []Passage, budget int) ([]llm.Message, []Passage) {
	return MessagesEstimated(question, passages, budget, 0)
}

// MessagesEstimated is [Messages] with token counts estimated by est.
func MessagesEstimated(question string, passages []Passage, budget int, est Estimator) ([]llm.Message, []Passage) {
	return MessagesAbout(question, nil, passages, budget, est)
}

// MessagesAbout is [MessagesEstimated] with what the user told Carrel about themselves
// (long-term memory) in a section of its own after the passages: context to pitch the
// answer by, never a source to cite, so it is kept apart from the numbered passages.
func MessagesAbout(question string, about []string, passages []Passage, budget int, est Estimator) ([]llm.Message, []Passage) {
	aboutUser := aboutSection(about)
	used := est.Tokens(systemPrompt) + est.Tokens(question) + est.Tokens(aboutUser) + 32
	var b strings.Builder
	kept := passages[:0:0]
	for _, p := range passages {
		block := formatPassage(p)
		if t := est.Tokens(block); used+t > budget && len(kept) > 0 {
			break
		} else {
			used += t
		}
		b.WriteString(block)
		kept = append(kept, p)
	}
	user := "Passages:\n\n" + b.String() + aboutUser + "Question: " + question + "\nAnswer (cite passages as [n]):"
	return []llm.Message{{Role: llm.RoleSystem, Content: systemPrompt}, {Role: llm.RoleUser, Content: user}}, kept
}

// aboutSection renders the user's memories, "" when there are none.
func aboutSection(about []string) string {
	var b strings.Builder
	for _, a := range about {
		if a = strings.Join(strings.Fields(a), " "); a != "" {
			b.WriteString("- The user " + a + "\n")
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "About the user (what they told you about themselves; use it to pitch the answer, never as a source to cite):\n" +
		b.String() + "\n"
}

func formatPassage(p Passage) string {
	head := fmt.Sprintf("[%d] %q, page %d", p.N, p.DocTitle, p.Page)
	if p.Section != "" {
		head += ", section " + fmt.Sprintf("%q", p.Section)
	}
	return head + "\n" + strings.TrimSpace(p.Text) + "\n\n"
}

// Probe measures a model's bytes per token before its first answer: it sends the start
// of the prompt the answer will use (system prompt and the first passage) with a
// one-token answer and calibrates from the prompt token count the server reports. The
// answer's prompt then begins the same way, so a server with a prompt cache (Ollama)
// does not evaluate that part twice. It returns 0 (the default ratio) when the server
// reports no count.
func Probe(ctx context.Context, model llm.Provider, base llm.ChatRequest, question string, passages []Passage) Estimator {
	if model == nil || len(passages) == 0 {
		return 0
	}
	msgs, _ := MessagesEstimated(question, passages[:1], 1<<30, 0)
	req := base
	req.Messages, req.MaxTokens = msgs, 1
	u, err := model.Chat(ctx, req, nil)
	if err != nil || u == nil || u.PromptTokens <= 0 {
		return 0
	}
	n := 0
	for _, m := range msgs {
		n += len(m.Content)
	}
	return Calibrate(0, n, u.PromptTokens)
}
