package chat

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/carrel-app/carrel/backend/library"
)

// ExportMarkdown renders a session as Markdown: each question with its answer, then one
// numbered list of references (document, page, quote) for the whole session. Answers
// number their citations on their own; here the markers are renumbered so that [n]
// always means the session's n-th reference, and a passage cited twice is listed once.
// scope names the documents the session asked over (empty: the whole library).
func ExportMarkdown(s library.Session, msgs []library.Message, scope []string) string {
	var b strings.Builder
	title := strings.TrimSpace(s.Title)
	if title == "" {
		title = "Study session"
	}
	fmt.Fprintf(&b, "# %s\n\n", oneLine(title))
	fmt.Fprintf(&b, "*Carrel study session, started %s", s.CreatedAt.UTC().Format("2006-01-02 15:04 UTC"))
	if len(scope) > 0 {
		fmt.Fprintf(&b, "; documents: %s", oneLine(strings.Join(scope, ", ")))
	} else {
		b.WriteString("; documents: the whole library")
	}
	var cost float64
	for _, m := range msgs {
		cost += m.CostUSD
	}
	if cost > 0 {
		fmt.Fprintf(&b, "; cost $%.4f", cost)
	}
	b.WriteString(".*\n")

	type key struct {
		doc         string
		page, start int
		end         int
	}
	refs := map[key]int{}
	var order []library.Citation
	for i, m := range msgs {
		local := map[int]int{}
		for _, c := range m.Citations {
			k := key{c.DocID, c.Page, c.Start, c.End}
			if _, ok := refs[k]; !ok {
				order = append(order, c)
				refs[k] = len(order)
			}
			local[c.N] = refs[k]
		}
		fmt.Fprintf(&b, "\n## %d. %s\n\n", i+1, oneLine(m.Question))
		if m.Standalone != "" && m.Standalone != m.Question {
			fmt.Fprintf(&b, "*Searched as: %s*\n\n", oneLine(m.Standalone))
		}
		answer := markerRE.ReplaceAllStringFunc(m.Answer, func(mk string) string {
			n, _ := strconv.Atoi(mk[1 : len(mk)-1])
			if g, ok := local[n]; ok {
				return "[" + strconv.Itoa(g) + "]"
			}
			return mk
		})
		if strings.TrimSpace(answer) == "" {
			answer = "*(no answer)*"
		}
		b.WriteString(strings.TrimSpace(answer) + "\n")
		switch m.Status {
		case library.MessageStopped:
			b.WriteString("\n*Stopped before the answer was complete.*\n")
		case library.MessageTruncated:
			b.WriteString("\n*The answer was cut off and may be incomplete.*\n")
		case library.MessageFailed:
			fmt.Fprintf(&b, "\n*No answer: %s*\n", oneLine(m.Note))
		}
		if m.Model != "" {
			fmt.Fprintf(&b, "\n<sub>%s", m.Model)
			if m.PromptTokens+m.CompletionTokens > 0 {
				fmt.Fprintf(&b, " · %d prompt + %d completion tokens", m.PromptTokens, m.CompletionTokens)
			}
			if m.CostUSD > 0 {
				fmt.Fprintf(&b, " · $%.4f", m.CostUSD)
			}
			b.WriteString("</sub>\n")
		}
	}
	if len(order) > 0 {
		b.WriteString("\n## References\n\n")
		for i, c := range order {
			doc := c.DocTitle
			if doc == "" {
				doc = c.DocPath
			}
			pages := "page " + strconv.Itoa(c.Page)
			if c.PageEnd > c.Page {
				pages = fmt.Sprintf("pages %d–%d", c.Page, c.PageEnd)
			}
			fmt.Fprintf(&b, "%d. *%s*, %s", i+1, oneLine(doc), pages)
			if c.Section != "" {
				fmt.Fprintf(&b, " (%s)", oneLine(c.Section))
			}
			fmt.Fprintf(&b, ": “%s”\n", excerpt(c.Text, 300))
		}
	}
	return b.String()
}

// oneLine joins a text's lines so it cannot break the Markdown structure around it.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
