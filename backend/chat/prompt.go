// Package chat turns a question and retrieved passages into an answer: the prompt, the
// streamed model call, citations grounded in code, and the no-model fallback.
package chat

import (
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
	Section  string `json:"section"`
	Text     string `json:"text"`
}

const systemPrompt = `You are Carrel, a careful study assistant. Answer the question using only the numbered passages from the user's documents.
After each sentence that uses a passage, cite it with its number in square brackets, like [1] or [2][3].
If the passages do not contain the answer, say that the documents do not answer it. Do not invent facts. Be concise.`

// charsPerToken is a deliberately low estimate of characters per token, so that a prompt
// estimated to fit really fits (English prose runs about 4 characters per token).
const charsPerToken = 3

// EstimateTokens estimates the tokens a text takes, erring high.
func EstimateTokens(s string) int { return len(s)/charsPerToken + 1 }

// Messages builds the chat messages for a question over passages, keeping only as many
// passages (best first) as fit in budget tokens. It returns the passages kept.
func Messages(question string, passages []Passage, budget int) ([]llm.Message, []Passage) {
	used := EstimateTokens(systemPrompt) + EstimateTokens(question) + 32
	var b strings.Builder
	kept := passages[:0:0]
	for _, p := range passages {
		block := formatPassage(p)
		if t := EstimateTokens(block); used+t > budget && len(kept) > 0 {
			break
		} else {
			used += t
		}
		b.WriteString(block)
		kept = append(kept, p)
	}
	user := "Passages:\n\n" + b.String() + "Question: " + question + "\nAnswer (cite passages as [n]):"
	return []llm.Message{{Role: "system", Content: systemPrompt}, {Role: "user", Content: user}}, kept
}

func formatPassage(p Passage) string {
	head := fmt.Sprintf("[%d] %q, page %d", p.N, p.DocTitle, p.Page)
	if p.Section != "" {
		head += ", section " + fmt.Sprintf("%q", p.Section)
	}
	return head + "\n" + strings.TrimSpace(p.Text) + "\n\n"
}
