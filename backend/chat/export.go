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
	exportHeader(&b, s, msgs, scope)
	refs := exportRefs{ids: map[refKey]int{}}
	for i, m := range msgs {
		exportExchange(&b, i+1, m, refs.number(m.Citations))
	}
	refs.write(&b)
	return b.String()
}

// exportHeader writes the session's title and what it asked over, and its cost.
func exportHeader(b *strings.Builder, s library.Session, msgs []library.Message, scope []string) {
	title := strings.TrimSpace(s.Title)
	if title == "" {
		title = "Study session"
	}
	fmt.Fprintf(b, "# %s\n\n", oneLine(title))
	fmt.Fprintf(b, "*Carrel study session, started %s", s.CreatedAt.UTC().Format("2006-01-02 15:04 UTC"))
	if len(scope) > 0 {
		fmt.Fprintf(b, "; documents: %s", oneLine(strings.Join(scope, ", ")))
	} else {
		b.WriteString("; documents: the whole library")
	}
	var cost float64
	for _, m := range msgs {
		cost += m.CostUSD
	}
	if cost > 0 {
		fmt.Fprintf(b, "; cost $%.4f", cost)
	}
	b.WriteString(".*\n")
}

// refKey is a cited passage: the same passage cited twice is one reference.
type refKey struct {
	doc         string
	page, start int
	end         int
}

// exportRefs numbers the session's references in the order they are first cited.
type exportRefs struct {
	ids   map[refKey]int
	order []library.Citation
}

// number gives each of an answer's citations its session-wide number (by the answer's
// own marker number).
func (r *exportRefs) number(cs []library.Citation) map[int]int {
	local := map[int]int{}
	for _, c := range cs {
		k := refKey{c.DocID, c.Page, c.Start, c.End}
		if _, ok := r.ids[k]; !ok {
			r.order = append(r.order, c)
			r.ids[k] = len(r.order)
		}
		local[c.N] = r.ids[k]
	}
	return local
}

// exportExchange writes the n-th question with its answer, markers renumbered (local:
// the answer's marker → the session's reference), its status and its model and cost.
func exportExchange(b *strings.Builder, n int, m library.Message, local map[int]int) {
	fmt.Fprintf(b, "\n## %d. %s\n\n", n, oneLine(m.Question))
	if m.Standalone != "" && m.Standalone != m.Question {
		fmt.Fprintf(b, "*Searched as: %s*\n\n", oneLine(m.Standalone))
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
		fmt.Fprintf(b, "\n*No answer: %s*\n", oneLine(m.Note))
	}
	if m.Model != "" {
		fmt.Fprintf(b, "\n<sub>%s", m.Model)
		if m.PromptTokens+m.CompletionTokens > 0 {
			fmt.Fprintf(b, " · %d prompt + %d completion tokens", m.PromptTokens, m.CompletionTokens)
		}
		if m.CostUSD > 0 {
			fmt.Fprintf(b, " · $%.4f", m.CostUSD)
		}
		b.WriteString("</sub>\n")
	}
}

// write lists the references: document, pages, section and a quote.
func (r *exportRefs) write(b *strings.Builder) {
	if len(r.order) == 0 {
		return
	}
	b.WriteString("\n## References\n\n")
	for i, c := range r.order {
		doc := c.DocTitle
		if doc == "" {
			doc = c.DocPath
		}
		pages := "page " + strconv.Itoa(c.Page)
		if c.PageEnd > c.Page {
			pages = fmt.Sprintf("pages %d–%d", c.Page, c.PageEnd)
		}
		fmt.Fprintf(b, "%d. *%s*, %s", i+1, oneLine(doc), pages)
		if c.Section != "" {
			fmt.Fprintf(b, " (%s)", oneLine(c.Section))
		}
		fmt.Fprintf(b, ": “%s”\n", excerpt(c.Text, 300))
	}
}

// oneLine joins a text's lines so it cannot break the Markdown structure around it.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
