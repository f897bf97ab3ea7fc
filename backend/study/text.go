package study

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/carrel-app/carrel/backend/ingest"
)

// sentence is a span of a passage's text that reads as one sentence.
type sentence struct {
	s, e int // byte offsets in the passage, e exclusive; text[s:e] ends with its full stop
}

// abbreviations end with a full stop that does not end a sentence.
var abbreviations = map[string]bool{
	"e.g": true, "i.e": true, "etc": true, "fig": true, "figs": true, "eq": true, "eqs": true, "dr": true,
	"mr": true, "mrs": true, "ms": true, "prof": true, "vs": true, "cf": true, "al": true, "no": true,
	"vol": true, "pp": true, "p": true, "sec": true, "ch": true, "approx": true, "resp": true, "inc": true,
	"ltd": true, "co": true, "st": true, "jr": true, "sr": true, "ref": true, "refs": true,
}

// sentences cuts text into sentences. A sentence ends at '.', '?' or '!' before white
// space (not after an abbreviation, an initial or a list number), at a blank line, and
// after a heading line (a line of at most six words with no end punctuation followed
// by a line starting with a capital), so that a heading is never read as a sentence's
// subject. Spans that end without punctuation are returned too; callers judge them.
func sentences(text string) []sentence {
	var out []sentence
	start := -1
	emit := func(e int) {
		if start >= 0 {
			e = trimRight(text, start, e)
			if e > start {
				out = append(out, sentence{start, e})
			}
		}
		start = -1
	}
	for i := 0; i < len(text); {
		r, w := utf8.DecodeRuneInString(text[i:])
		if start < 0 {
			if !unicode.IsSpace(r) {
				start = i
			}
			i += w
			continue
		}
		switch {
		case r == '\n':
			next := i + 1
			if next < len(text) && text[next] == '\n' {
				emit(i)
			} else if headingLine(text[lineStart(text, i):i]) && startsUpper(text[next:]) {
				emit(i)
			}
		case r == '.' || r == '?' || r == '!':
			if i+1 == len(text) || isSpaceByte(text[i+1]) {
				if r != '.' || !abbreviationBefore(text, start, i) {
					emit(i + 1)
				}
			}
		}
		i += w
	}
	emit(len(text))
	return out
}

func lineStart(text string, i int) int {
	return strings.LastIndexByte(text[:i], '\n') + 1
}

func isSpaceByte(b byte) bool { return b == ' ' || b == '\n' || b == '\t' || b == '\r' }

func trimRight(text string, s, e int) int {
	for e > s && isSpaceByte(text[e-1]) {
		e--
	}
	return e
}

// headingLine reports whether a line reads as a heading: a few words, no end punctuation.
func headingLine(line string) bool {
	fs := strings.Fields(line)
	if len(fs) == 0 || len(fs) > 6 {
		return false
	}
	last := line[len(strings.TrimRight(line, " \t"))-1]
	return !strings.ContainsRune(".,;:-–—", rune(last))
}

func startsUpper(s string) bool {
	s = strings.TrimLeft(s, " \t\"“‘'(")
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}

// abbreviationBefore reports whether the full stop at dot ends an abbreviation, an
// initial ("J. Smith") or a list number ("1.").
func abbreviationBefore(text string, start, dot int) bool {
	w := dot
	for w > start && !isSpaceByte(text[w-1]) && text[w-1] != '(' {
		w--
	}
	word := strings.ToLower(text[w:dot])
	if abbreviations[word] || abbreviations[strings.TrimSuffix(word, ".")] {
		return true
	}
	if r, n := utf8.DecodeRuneInString(text[w:dot]); n == dot-w && unicode.IsUpper(r) {
		return true // an initial
	}
	if word != "" && strings.Trim(word, "0123456789.") == "" && w == start {
		return true // "1." or "2.3." opening a list item
	}
	return false
}

// word is one token of a text: a run of letters (with inner apostrophes and hyphens) or
// digits.
type word struct {
	s, e int
	text string
}

// words returns the words of text with their offsets.
func words(text string) []word {
	var out []word
	start := -1
	for i, r := range text {
		in := unicode.IsLetter(r) || unicode.IsDigit(r)
		if !in && start >= 0 && (r == '-' || r == '\'' || r == '’') && i+1 < len(text) {
			n, _ := utf8.DecodeRuneInString(text[i+utf8.RuneLen(r):])
			in = unicode.IsLetter(n)
		}
		switch {
		case in && start < 0:
			start = i
		case !in && start >= 0:
			out = append(out, word{start, i, text[start:i]})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, word{start, len(text), text[start:]})
	}
	return out
}

// lettersOnly reports whether w is a word of letters (inner hyphens and apostrophes
// allowed), not a number or a code.
func lettersOnly(w string) bool {
	for _, r := range w {
		if !unicode.IsLetter(r) && r != '-' && r != '\'' && r != '’' {
			return false
		}
	}
	return w != ""
}

// collapse joins a text's lines and runs of white space with single spaces, for the
// question side of a card, which is shown, not quoted.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// idf is the inverse document frequency of words over a set of passages: how rare a
// word is in the material a deck is made from.
type idf struct {
	n  int
	df map[string]int
}

func newIDF(texts []string) *idf {
	f := &idf{n: len(texts), df: map[string]int{}}
	for _, t := range texts {
		seen := map[string]bool{}
		for _, w := range words(t) {
			k := strings.ToLower(w.text)
			if !seen[k] {
				seen[k] = true
				f.df[k]++
			}
		}
	}
	return f
}

func (f *idf) of(w string) float64 {
	d := f.df[strings.ToLower(w)]
	if d == 0 {
		d = 1
	}
	return math.Log(float64(f.n+1) / float64(d))
}

// debris reports whether a span is not prose a card can stand on: navigation (contents,
// index entries), extraction debris, table rows (short lines heavy with numbers), page
// furniture.
func debris(span string) bool {
	lines := strings.Split(span, "\n")
	short := 0
	for _, l := range lines {
		if ingest.NavigationLine(l) && len(lines) > 1 {
			return true
		}
		if t := strings.TrimSpace(l); len(lines) > 1 && t != "" && strings.Trim(t, "0123456789ivxlcIVXLC") == "" {
			return true // a page number on a line of its own
		}
		if len(strings.Fields(l)) <= 3 {
			short++
		}
	}
	if len(lines) >= 3 && short*2 >= len(lines) {
		return true // a column of short lines: a table or a list of labels
	}
	if strings.ContainsAny(span, "|\t") || strings.Contains(span, "...") || strings.Contains(span, "…") {
		return true
	}
	fs := strings.Fields(span)
	junk, nums := 0, 0
	for _, f := range fs {
		if ingest.DebrisWord(f) {
			junk++
		}
		if strings.IndexFunc(f, unicode.IsDigit) >= 0 {
			nums++
		}
	}
	return junk*10 > len(fs) || nums*4 > len(fs)
}

// stopwords are words too common to test (English; the documents of the corpus are).
var stopwords = toSet(`a about above after again against all also although am an and any are as at be because been
before being below between both but by can could did do does doing down during each either else even ever every
few for from further had has have having he her here hers herself him himself his how however i if in into is it
its itself just least less like made make many may me might more most much must my myself neither no nor not now
of off on once one only or other others our ours ourselves out over own per rather same shall she should since so
some such than that the their theirs them themselves then there therefore these they this those though through
thus to too under until up upon us use used uses using very via was we well were what when where whether which
while who whom whose why will with within without would yet you your yours yourself yourselves`)

func toSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}
