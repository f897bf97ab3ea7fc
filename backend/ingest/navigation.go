package ingest

import (
	"strings"
	"unicode"
)

// A navigation passage is one whose bulk only points elsewhere: lines of a table of
// contents or of an index (titles, or entries ending in page numbers), or extraction
// debris (OCR noise, stray symbols). Such a passage holds many of a document's title words
// and no statement about them: retrieval demotes it (Walden's cover-and-contents page was
// the best passage for three of four questions about the book) and study makes no cards
// of it. It lives here, below both backend/retrieve and backend/study (which sit on the
// same layer and cannot import each other), so that both use the one copy.
const (
	// NavigationFrom is the share from which a passage counts as navigation.
	NavigationFrom = 0.5
	// navMinLines is the fewest lines a passage needs for its lines to be judged as a
	// list; a short passage of headings is just short.
	navMinLines = 4
)

// NavigationShare returns the share of text's lines that are contents or index entries,
// or the share of its words that are debris, whichever is larger.
func NavigationShare(text string) float64 {
	lines := 0
	nav := 0
	words, junk := 0, 0
	for _, line := range strings.Split(text, "\n") {
		fs := strings.Fields(line)
		if len(fs) == 0 {
			continue
		}
		lines++
		if navLine(fs) {
			nav++
		}
		for _, w := range fs {
			words++
			if junkWord(w) {
				junk++
			}
		}
	}
	share := 0.0
	if lines >= navMinLines {
		share = float64(nav) / float64(lines)
	}
	if words >= 8 {
		share = max(share, float64(junk)/float64(words))
	}
	return share
}

// navLine reports whether a line's words read as a contents or index entry: a short
// title with no sentence punctuation, every longer word capitalised ("Former Inhabitants
// And Winter Visitors", "CONTENTS"), with or without a page number after it; or any short
// line that ends in a page number after dot leaders ("Where I Lived ..... 64") or after a
// comma ("loons, 177, 235"). A table row ("Vertical resolution 3.85") is neither.
func navLine(fs []string) bool {
	if len(fs) > 10 {
		return false
	}
	if n := len(fs); n >= 2 {
		if last := fs[n-1]; isNumber(last) || isRoman(last) {
			rest := strings.Join(fs[:n-1], " ")
			if strings.Contains(rest, "..") || strings.Contains(rest, "…") || strings.HasSuffix(rest, ",") {
				return true
			}
			fs = fs[:n-1]
		}
	}
	if strings.ContainsAny(strings.Join(fs, " "), ".!?;:=(){}[]<>\"“”'’/\\*+|&%$#@0123456789") {
		return false
	}
	long := 0
	for _, w := range fs {
		r := []rune(w)
		if len(r) < 4 {
			continue
		}
		long++
		if !unicode.IsUpper(r[0]) {
			return false
		}
	}
	return long > 0
}

func isNumber(s string) bool {
	if s == "" || len(s) > 4 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func isRoman(s string) bool {
	if s == "" || len(s) > 6 {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("ivxlcIVXLC", r) {
			return false
		}
	}
	return s == strings.ToLower(s) // lower-case roman page numbers (front matter); "I" or "XI" may be words
}

// junkWord reports whether a word is extraction debris: mostly neither letters nor digits
// ("~~", "—•—", ".,'"), or a letter run broken by symbols that no word has ("a#c", "T%e").
func junkWord(w string) bool {
	alnum, other := 0, 0
	for _, r := range w {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			alnum++
		} else {
			other++
		}
	}
	if alnum == 0 {
		return other > 0 && !strings.ContainsAny(w, "-–—&") // a dash or ampersand between words is prose
	}
	return other > alnum
}

// NavigationLine reports whether one line reads as a contents or index entry (see
// NavigationShare), for callers that judge a passage line by line.
func NavigationLine(line string) bool {
	fs := strings.Fields(line)
	return len(fs) > 0 && navLine(fs)
}

// DebrisWord reports whether a word is extraction debris (see NavigationShare).
func DebrisWord(w string) bool { return junkWord(w) }
