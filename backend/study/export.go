package study

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/carrel-app/carrel/backend/library"
)

// ExportFormat is a file format a deck is exported in.
type ExportFormat string

// Export formats.
const (
	FormatAnki ExportFormat = "anki" // Anki's text import: tab-separated, with a header naming the columns
	FormatCSV  ExportFormat = "csv"
	FormatMD   ExportFormat = "md"
	FormatApkg ExportFormat = "apkg" // an Anki package: a zip of collection.anki2 (SQLite) and media
)

// ErrFormat is returned for an export format Carrel does not write.
var ErrFormat = fmt.Errorf("export format: use %s, %s, %s or %s", FormatApkg, FormatAnki, FormatCSV, FormatMD)

// Source is where a card comes from, for people: "Title, p. 12 (Section)".
func Source(c library.Card, title string) string {
	s := title
	if c.Page > 0 {
		if c.PageEnd > c.Page {
			s += fmt.Sprintf(", pp. %d–%d", c.Page, c.PageEnd)
		} else {
			s += fmt.Sprintf(", p. %d", c.Page)
		}
	}
	if c.Section != "" {
		s += " (" + collapse(c.Section) + ")"
	}
	return s
}

// Export writes a deck's cards in format: an Anki package (apkg.go), Anki's text import (columns Front, Back,
// Source, Tags; tags carrel, carrel::KIND and the document's title; the deck named in
// the header), CSV with every field, or Markdown with each card's source passage
// quoted. titles maps document ids to titles.
func Export(w io.Writer, deck library.Deck, cards []library.Card, titles map[string]string, format ExportFormat) error {
	switch format {
	case FormatApkg:
		return exportApkg(w, deck, cards, titles)
	case FormatAnki:
		return exportAnki(w, deck, cards, titles)
	case FormatCSV:
		return exportCSV(w, deck, cards, titles)
	case FormatMD:
		return exportMD(w, deck, cards, titles)
	}
	return ErrFormat
}

// ankiField makes a value safe for a tab-separated Anki field: one line, no tab; quoted
// (quotes doubled) when it holds a quote, as Anki's CSV reader expects.
func ankiField(s string) string {
	s = collapse(s)
	if strings.ContainsRune(s, '"') {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

// ankiTag turns a title into one Anki tag (tags are split at spaces).
func ankiTag(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || r == '"' {
			return '_'
		}
		return r
	}, collapse(s))
	return strings.Trim(s, "_")
}

func exportAnki(w io.Writer, deck library.Deck, cards []library.Card, titles map[string]string) error {
	var b strings.Builder
	b.WriteString("#separator:tab\n#html:false\n#notetype:Basic\n")
	fmt.Fprintf(&b, "#deck:Carrel::%s\n", strings.ReplaceAll(collapse(deck.Title), "::", ":"))
	b.WriteString("#columns:Front\tBack\tSource\tTags\n#tags column:4\n")
	for _, c := range cards {
		tags := []string{"carrel", "carrel::" + string(c.Kind)}
		if t := ankiTag(titles[c.DocID]); t != "" {
			tags = append(tags, t)
		}
		if c.Suspended {
			tags = append(tags, "carrel::suspended")
		}
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\n", ankiField(c.Front), ankiField(c.Back), ankiField(Source(c, titles[c.DocID])), strings.Join(tags, " "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func exportCSV(w io.Writer, deck library.Deck, cards []library.Card, titles map[string]string) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"id", "deck", "kind", "front", "back", "source", "document", "page", "page_end", "start", "end",
		"doc_id", "chunk_id", "context", "suspended", "stale", "due", "state", "reps", "lapses"})
	for _, c := range cards {
		cw.Write([]string{strconv.FormatInt(c.ID, 10), deck.Title, string(c.Kind), collapse(c.Front), collapse(c.Back),
			Source(c, titles[c.DocID]), titles[c.DocID], strconv.Itoa(c.Page), strconv.Itoa(c.PageEnd), strconv.Itoa(c.Start),
			strconv.Itoa(c.End), c.DocID, c.ChunkID, collapse(c.Context), strconv.FormatBool(c.Suspended),
			strconv.FormatBool(c.Stale), c.Schedule.Due.UTC().Format(time.RFC3339), strconv.Itoa(c.Schedule.State),
			strconv.Itoa(c.Schedule.Reps), strconv.Itoa(c.Schedule.Lapses)})
	}
	cw.Flush()
	return cw.Error()
}

func exportMD(w io.Writer, deck library.Deck, cards []library.Card, titles map[string]string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%d cards\n", collapse(deck.Title), len(cards))
	for i, c := range cards {
		fmt.Fprintf(&b, "\n## %d. %s\n\n**Answer:** %s\n\n> %s\n\n— %s\n", i+1, collapse(c.Front), collapse(c.Back),
			collapse(c.Context), Source(c, titles[c.DocID]))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
