package ingest

import (
	"context"
	"encoding/binary"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// TextPageSize is the size, in characters, that text files are cut into
// pages of. Cuts fall at a paragraph break, else a line break, else a
// space, so a page may be somewhat shorter or, rarely, longer.
const TextPageSize = 3000

func readText(ctx context.Context, doc *Document, data []byte, ext string, progress Progress) error {
	text := normalizePlainText(decodeText(data))
	markdown := ext == ".md" || ext == ".markdown"
	var title, author string
	if markdown {
		title, author = frontMatter(text)
	}
	if strings.TrimSpace(text) == "" {
		return newError(ErrEmpty, doc.Path, "no text in it", nil)
	}
	var heads []mdHeading
	if markdown {
		heads = markdownHeadings(text)
	}
	doc.Pages, doc.Outline = pagesOf(text, heads, nil)
	if err := ctx.Err(); err != nil {
		return err
	}
	if title == "" && len(heads) > 0 && heads[0].level == 1 {
		title = heads[0].title
	}
	doc.Author = cleanLine(author)
	doc.Title = chooseTitle(title, doc.Pages, doc.Path)
	if progress != nil {
		progress(len(doc.Pages), len(doc.Pages))
	}
	return nil
}

func hasUTF16BOM(data []byte) bool {
	return len(data) >= 2 && (data[0] == 0xFF && data[1] == 0xFE || data[0] == 0xFE && data[1] == 0xFF)
}

// decodeText turns file bytes into a string: UTF-8 (with or without BOM),
// UTF-16 with a BOM, or, when the bytes are not valid UTF-8, Windows-1252.
func decodeText(data []byte) string {
	switch {
	case len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF:
		data = data[3:]
	case hasUTF16BOM(data):
		var order binary.ByteOrder = binary.LittleEndian
		if data[0] == 0xFE {
			order = binary.BigEndian
		}
		data = data[2:]
		u := make([]uint16, len(data)/2)
		for i := range u {
			u[i] = order.Uint16(data[2*i:])
		}
		return string(utf16.Decode(u))
	}
	if utf8.Valid(data) {
		return string(data)
	}
	var b strings.Builder
	b.Grow(len(data) + len(data)/8)
	for _, c := range data {
		if c >= 0x80 && c < 0xA0 && cp1252[c-0x80] != 0 {
			b.WriteRune(cp1252[c-0x80])
		} else {
			b.WriteRune(rune(c))
		}
	}
	return b.String()
}

// cp1252 maps Windows-1252's 0x80–0x9F to Unicode (0: undefined).
var cp1252 = [32]rune{
	'€', 0, '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', 0, 'Ž', 0,
	0, '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', 0, 'ž', 'Ÿ',
}

// normalizePlainText cleans a text file gently, keeping indentation (code
// blocks, lists) and interior spacing: CRLF and CR become "\n", form feeds
// become paragraph breaks, other control and format characters are dropped,
// tabs stay, trailing spaces go, and runs of blank lines collapse to one.
func normalizePlainText(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '\r':
			if i < len(s) && s[i] == '\n' {
				i++
			}
			b.WriteByte('\n')
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == '\f':
			b.WriteString("\n\n")
		case r == utf8.RuneError && size == 1:
		case unicode.Is(unicode.Cc, r), r == '\uFEFF', r == '\u00AD':
		case unicode.IsSpace(r):
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	lines := strings.Split(b.String(), "\n")
	out := lines[:0]
	blank := 0
	for _, l := range lines {
		l = strings.TrimRight(l, " \t")
		if l == "" {
			blank++
			continue
		}
		if len(out) > 0 && blank > 0 {
			out = append(out, "")
		}
		out = append(out, l)
		blank = 0
	}
	return strings.Join(out, "\n")
}

type span struct{ start, end int }

// paginate cuts text into pages of about TextPageSize characters. A page
// ends before a heading when it is at least a third full, else at a
// paragraph break, a line break or a space, whichever is latest in the
// page's last half. Pages never start or end with white space.
func paginate(text string, heads []mdHeading) []span {
	var pages []span
	headAt := map[int]bool{}
	for _, h := range heads {
		headAt[h.offset] = true
	}
	start := skipSpace(text, 0)
	for start < len(text) {
		end := advance(text, start, TextPageSize)
		if end < len(text) {
			end = pageCut(text, start, end, headAt)
		}
		e := end
		for e > start && isSpaceByte(text[e-1]) {
			e--
		}
		if e > start {
			pages = append(pages, span{start, e})
		}
		start = skipSpace(text, end)
	}
	if len(pages) == 0 {
		pages = append(pages, span{0, 0})
	}
	return pages
}

// pageCut picks where the page [start, limit) ends.
func pageCut(text string, start, limit int, headAt map[int]bool) int {
	third := advance(text, start, TextPageSize/3)
	half := advance(text, start, TextPageSize/2)
	// The first heading after a third of a page starts the next page.
	for i := third; i < limit; i++ {
		if headAt[i] {
			return i
		}
	}
	window := text[half:limit]
	if i := strings.LastIndex(window, "\n\n"); i >= 0 {
		return half + i
	}
	if i := strings.LastIndexByte(window, '\n'); i >= 0 {
		return half + i
	}
	if i := strings.LastIndexAny(window, " \t"); i >= 0 {
		return half + i
	}
	return limit
}

// advance returns the byte offset n characters after from, or len(s).
func advance(s string, from, n int) int {
	i := from
	for ; n > 0 && i < len(s); n-- {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i
}

func skipSpace(s string, i int) int {
	for i < len(s) && isSpaceByte(s[i]) {
		i++
	}
	return i
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\n' || c == '\t' }

// mdHeading is a Markdown heading found in the text.
type mdHeading struct {
	title  string
	level  int
	offset int // byte offset of the heading line
}

// markdownHeadings finds ATX ("## Title") and setext (underlined) headings
// outside fenced code blocks.
func markdownHeadings(text string) []mdHeading {
	var out []mdHeading
	fence := ""
	off := frontMatterEnd(text)
	prev, prevOff := "", 0
	for line := range strings.SplitSeq(text[off:], "\n") {
		lineOff := off
		off += len(line) + 1
		trim := strings.TrimLeft(line, " ")
		indent := len(line) - len(trim)
		if fence != "" {
			if strings.HasPrefix(trim, fence) {
				fence = ""
			}
			prev = ""
			continue
		}
		if indent < 4 && (strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~")) {
			fence = trim[:3]
			prev = ""
			continue
		}
		if indent < 4 && strings.HasPrefix(trim, "#") {
			level := len(trim) - len(strings.TrimLeft(trim, "#"))
			rest := trim[level:]
			if level <= 6 && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
				t := strings.TrimSpace(rest)
				t = strings.TrimSpace(strings.TrimRight(t, "#"))
				if t = cleanLine(t); t != "" {
					out = append(out, mdHeading{title: t, level: level, offset: lineOff + indent})
				}
				prev = ""
				continue
			}
		}
		if indent < 4 && prev != "" && isSetextUnderline(trim) {
			level := 1
			if trim[0] == '-' {
				level = 2
			}
			if t := cleanLine(prev); t != "" {
				out = append(out, mdHeading{title: t, level: level, offset: prevOff})
			}
			prev = ""
			continue
		}
		if strings.TrimSpace(line) == "" || indent >= 4 {
			prev = ""
		} else {
			prev, prevOff = line, lineOff+indent
		}
	}
	return out
}

func isSetextUnderline(s string) bool {
	s = strings.TrimRight(s, " ")
	if s == "" {
		return false
	}
	c := s[0]
	if c != '=' && c != '-' {
		return false
	}
	return strings.Trim(s, string(c)) == ""
}

// frontMatter reads title and author from YAML front matter ("---" lines
// around "key: value" lines) at the very start of a Markdown file.
func frontMatter(text string) (title, author string) {
	end := frontMatterEnd(text)
	if end == 0 {
		return "", ""
	}
	for line := range strings.SplitSeq(text[4:end], "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.Trim(strings.TrimSpace(v), `"'`)
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "title":
			title = v
		case "author":
			author = v
		}
	}
	return title, author
}

// frontMatterEnd returns the offset just after the closing "---" line of
// YAML front matter at the start of text, or 0 if there is none.
func frontMatterEnd(text string) int {
	if !strings.HasPrefix(text, "---\n") {
		return 0
	}
	i := strings.Index(text[4:], "\n---")
	if i < 0 {
		return 0
	}
	end := 4 + i + len("\n---")
	if end < len(text) && text[end] != '\n' {
		return 0
	}
	return min(end+1, len(text))
}
