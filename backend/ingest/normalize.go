package ingest

import (
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// lineEndHyphen is PDFium's mark for a hyphen that ended a line; PDFium
// also drops the line break after it. [dehyphenate] resolves it.
const lineEndHyphen = '\uFFFE'

var ligatures = map[rune]string{
	'\uFB00': "ff", '\uFB01': "fi", '\uFB02': "fl", '\uFB03': "ffi",
	'\uFB04': "ffl", '\uFB05': "st", '\uFB06': "st",
}

// normalizePDFText cleans the text PDFium gives for one page: CRLF and CR
// become "\n"; tabs and Unicode spaces become " "; ligatures are spelled
// out; control, format, private-use and replacement characters are
// dropped; runs of spaces collapse to one; lines are trimmed; blank lines
// collapse to a single empty line (a paragraph break); the page is
// trimmed. Line-end hyphen marks are kept for [dehyphenate].
func normalizePDFText(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if c := s[i]; c >= ' ' && c < 0x7f { // printable ASCII, nearly all of a page
			b.WriteByte(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '\r':
			if i < len(s) && s[i] == '\n' {
				i++
			}
			b.WriteByte('\n')
		case r == '\n':
			b.WriteByte('\n')
		case r == lineEndHyphen:
			b.WriteRune(r)
		case r == '\u00AD' || r == utf8.RuneError || r == '\uFFFF':
			// soft hyphen, undecodable glyph, non-character: drop
		case unicode.IsSpace(r): // tab, VT, FF, NBSP, U+2000…, U+3000
			b.WriteByte(' ')
		case ligatures[r] != "":
			b.WriteString(ligatures[r])
		case unicode.Is(unicode.Cc, r), unicode.Is(unicode.Cf, r), unicode.Is(unicode.Co, r),
			unicode.Is(unicode.Cs, r):
			// NUL and other controls, zero-width and bidi marks, BOM,
			// private-use glyphs of symbol fonts: drop
		default:
			b.WriteRune(r)
		}
	}
	return tidyLines(b.String())
}

// tidyLines collapses runs of spaces, trims every line, keeps at most one
// empty line between lines and trims the result.
func tidyLines(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	blank := 0 // empty lines seen since the last text line
	started := false
	for line := range strings.SplitSeq(s, "\n") {
		line = collapseSpaces(line)
		if line == "" {
			blank++
			continue
		}
		if started {
			b.WriteByte('\n')
			if blank > 0 {
				b.WriteByte('\n')
			}
		}
		b.WriteString(line)
		started = true
		blank = 0
	}
	return b.String()
}

// collapseSpaces turns runs of ' ' into one and trims the ends.
func collapseSpaces(s string) string {
	s = strings.Trim(s, " ")
	if !strings.Contains(s, "  ") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteByte(s[i])
	}
	return b.String()
}

// cleanLine makes a one-line string for titles and headings: all white
// space and control characters collapse to single spaces.
func cleanLine(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == utf8.RuneError || r == lineEndHyphen:
			return -1
		case unicode.IsSpace(r) || unicode.IsControl(r):
			return ' '
		case unicode.Is(unicode.Cf, r):
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// dehyphenate resolves PDFium's line-end hyphen marks across a document.
// "infor-|mation" becomes "information" when "information" occurs
// elsewhere in the document, or when either part is not itself a word
// there; otherwise the hyphen stays ("night-|clothes", "Anglo-|Saxon").
func dehyphenate(pages []Page) {
	has := false
	for _, p := range pages {
		if strings.ContainsRune(p.Text, lineEndHyphen) {
			has = true
			break
		}
	}
	if !has {
		return
	}
	vocab := map[string]bool{}
	for _, p := range pages {
		for w := range strings.FieldsFuncSeq(p.Text, func(r rune) bool { return !unicode.IsLetter(r) && r != lineEndHyphen }) {
			if !strings.ContainsRune(w, lineEndHyphen) {
				vocab[strings.ToLower(w)] = true
			}
		}
	}
	for i := range pages {
		pages[i].Text = resolveHyphens(pages[i].Text, vocab)
	}
}

func resolveHyphens(s string, vocab map[string]bool) string {
	if !strings.ContainsRune(s, lineEndHyphen) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	mark := string(lineEndHyphen)
	for {
		i := strings.Index(s, mark)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		before, after := s[:i], s[i+len(mark):]
		w1 := trailingLetters(before)
		w2 := leadingLetters(after)
		join := false
		if w1 != "" && w2 != "" {
			r2, _ := utf8.DecodeRuneInString(w2)
			whole := strings.ToLower(w1 + w2)
			switch {
			case vocab[whole]:
				join = true
			case unicode.IsUpper(r2):
				join = false
			default:
				join = !vocab[strings.ToLower(w1)] || !vocab[strings.ToLower(w2)]
			}
		}
		b.WriteString(before)
		if !join {
			b.WriteByte('-')
		}
		s = after
	}
}

func trailingLetters(s string) string {
	i := len(s)
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		if !unicode.IsLetter(r) {
			break
		}
		i -= size
	}
	return s[i:]
}

func leadingLetters(s string) string {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsLetter(r) {
			break
		}
		i += size
	}
	return s[:i]
}

// maxTitle caps titles taken from text.
const maxTitle = 160

// chooseTitle picks the document title: the metadata title when it looks
// like one, else the first line of text with a few letters on one of the
// first pages, else the file name without its extension.
func chooseTitle(meta string, pages []Page, path string) string {
	if t := tidyTitle(meta); t != "" {
		return t
	}
	for _, p := range pages[:min(len(pages), 3)] {
		if p.Text == "" {
			continue
		}
		lines := strings.SplitN(p.Text, "\n", 6)
		for _, line := range lines[:min(len(lines), 5)] {
			if t := tidyTitle(line); t != "" {
				return t
			}
		}
		break
	}
	base := filepath.Base(path)
	if t := strings.TrimSuffix(base, filepath.Ext(base)); t != "" {
		return t
	}
	return base
}

// tidyTitle cleans a candidate title and returns "" if it is not one:
// placeholders like "Untitled", file names, strings with under 3 letters.
func tidyTitle(s string) string {
	t := cleanLine(s)
	for _, p := range []string{"Microsoft Word - ", "Microsoft PowerPoint - ", "Microsoft Excel - "} {
		t = strings.TrimPrefix(t, p)
	}
	lower := strings.ToLower(t)
	for _, ext := range []string{".docx", ".doc", ".pptx", ".ppt", ".pdf", ".dvi", ".tex", ".indd", ".odt", ".rtf", ".txt"} {
		if strings.HasSuffix(lower, ext) {
			return ""
		}
	}
	if strings.HasPrefix(lower, "untitled") || lower == "title" || lower == "no title" {
		return ""
	}
	letters := 0
	for _, r := range t {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	if letters < 3 {
		return ""
	}
	if utf8.RuneCountInString(t) > maxTitle {
		cut := t
		n := 0
		for i := range t {
			if n == maxTitle {
				cut = t[:i]
				break
			}
			n++
		}
		if j := strings.LastIndexByte(cut, ' '); j > maxTitle/2 {
			cut = cut[:j]
		}
		t = cut + "…"
	}
	return t
}
