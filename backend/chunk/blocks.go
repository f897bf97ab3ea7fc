package chunk

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// A block is text that reads wrong when cut: a fenced or indented code block,
// or a table (Markdown pipe rows, or rows aligned by tabs or runs of spaces as
// PDF text gives them). Blocks are found once per document in the stream.
type block struct {
	s, e  int    // byte offsets in the stream: first byte, end of the last line
	runes int    // length in runes
	lines []span // its lines, where it may be cut when it is longer than Max
}

// span is a range of stream bytes [s, e) that no cut may fall inside.
type span struct{ s, e int }

// findBlocks returns the blocks of text, in order and not overlapping.
func findBlocks(text string) []block {
	lines := splitLines(text)
	var out []block
	// Chunks are trimmed, so a block's protected span is its text without the
	// white space around it (the first line's indentation is left outside).
	add := func(from, to int) { // lines[from:to]
		b := block{s: skipSpace(text, lines[from].s), e: trimRightSpace(text, lines[from].s, lines[to-1].e)}
		for _, l := range lines[from:to] {
			if t := (span{skipSpace(text[:l.e], l.s), trimRightSpace(text, l.s, l.e)}); t.e > t.s {
				b.lines = append(b.lines, t)
			}
		}
		b.runes = utf8.RuneCountInString(text[b.s:b.e])
		out = append(out, b)
	}
	for i := 0; i < len(lines); {
		l := text[lines[i].s:lines[i].e]
		if ch, n := fenceOpen(l); n > 0 {
			// A fence runs to its closing line, or (as CommonMark has it) to the
			// end of the text when it is never closed.
			j := i + 1
			for j < len(lines) && !fenceClose(text[lines[j].s:lines[j].e], ch, n) {
				j++
			}
			add(i, min(j+1, len(lines)))
			i = min(j+1, len(lines))
			continue
		}
		if indented(l) && (i == 0 || blank(text[lines[i-1].s:lines[i-1].e])) {
			j, last := i+1, i
			for j < len(lines) {
				m := text[lines[j].s:lines[j].e]
				if indented(m) {
					last = j
				} else if !blank(m) {
					break
				}
				j++
			}
			add(i, last+1)
			i = last + 1
			continue
		}
		if tableRow(l) && i+1 < len(lines) && tableRow(text[lines[i+1].s:lines[i+1].e]) {
			j := i + 1
			for j < len(lines) && tableRow(text[lines[j].s:lines[j].e]) {
				j++
			}
			add(i, j)
			i = j
			continue
		}
		i++
	}
	return out
}

// protect returns the spans no cut of a chunk of at most max runes may fall
// inside: a block that fits in max whole; a longer one only line by line, since
// it has to be cut somewhere and a line boundary is the least harmful place. A
// single line longer than max (a very wide table row, a minified line of code)
// cannot be kept whole either and is left unprotected: it is cut between words,
// or, with no white space, mid-word.
func protect(text string, blocks []block, max int) []span {
	var out []span
	for _, b := range blocks {
		if b.runes <= max {
			out = append(out, span{b.s, b.e})
			continue
		}
		for _, l := range b.lines {
			if utf8.RuneCountInString(text[l.s:l.e]) <= max {
				out = append(out, l)
			}
		}
	}
	return out
}

// inside reports whether a cut at p would fall inside one of spans (sorted).
// It returns that span.
func inside(spans []span, p int) (span, bool) {
	i := sort.Search(len(spans), func(i int) bool { return spans[i].e > p })
	if i < len(spans) && spans[i].s < p && p < spans[i].e {
		return spans[i], true
	}
	return span{}, false
}

// splitLines returns the lines of text without their line feeds.
func splitLines(text string) []span {
	var out []span
	for s := 0; s <= len(text); {
		e := strings.IndexByte(text[s:], '\n')
		if e < 0 {
			out = append(out, span{s, len(text)})
			break
		}
		out = append(out, span{s, s + e})
		s += e + 1
	}
	return out
}

func blank(l string) bool { return strings.TrimSpace(l) == "" }

// indented reports a line of an indented code block: four spaces or a tab, then text.
func indented(l string) bool {
	return (strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t")) && !blank(l)
}

// fenceOpen recognises a code fence: up to three spaces, then three or more
// backticks or tildes. It returns the fence character and length.
func fenceOpen(l string) (byte, int) {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return 0, 0
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 || (t[0] == '`' && strings.IndexByte(t[n:], '`') >= 0) {
		return 0, 0
	}
	return t[0], n
}

// fenceClose recognises the closing fence of one opened with n of ch.
func fenceClose(l string, ch byte, n int) bool {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) > 3 {
		return false
	}
	k := 0
	for k < len(t) && t[k] == ch {
		k++
	}
	return k >= n && blank(t[k:])
}

// tableRow recognises a row of a table: a Markdown pipe row ("| a | b |", or
// "a | b" with a second pipe), or a row of columns aligned by a tab or by two or
// more spaces between text, as PDF text lays out tables. findBlocks only takes
// runs of two or more rows, so a lone line with a double space is not a table.
func tableRow(l string) bool {
	t := strings.TrimSpace(l)
	if t == "" {
		return false
	}
	if strings.Count(t, "|") >= 2 || (t[0] == '|' && len(t) > 1) {
		return true
	}
	// t is trimmed, so text lies on both sides of any gap in it.
	return strings.Contains(t, "\t") || strings.Contains(t, "  ")
}
