package chat

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Strength says how well a passage matches a question, for a no-model answer to separate
// close matches from passages that only share a word or two with it.
type Strength string

const (
	StrengthClose   Strength = "close"   // holds at least half of the question's content words, and two when it has two
	StrengthRelated Strength = "related" // holds fewer
)

// CloseCoverage is the share of a question's distinct content words (stemmed) a passage
// must hold to count as a close match: the same one-half the lexical gate uses for its
// "nothing relevant" judgement (retrieve.MinCoverage), counted without IDF weights here
// because the chat package sees only texts.
const CloseCoverage = 0.5

// QuestionTerms returns the stems of the question's content words. The frontend marks the
// same words in excerpts with the same rule (frontend/src/lib/match.ts): keep them alike.
func QuestionTerms(question string) map[string]bool {
	out := map[string]bool{}
	for w := range contentWords(question) {
		out[Stem(w)] = true
	}
	return out
}

// Stem is a light English suffix strip (plural, -ing, -ed, -ly), enough for a question's
// "bullfrogs" to meet a passage's "bullfrog" and "scanning" to meet "scan". It is not the
// index's analyser: it only chooses and marks excerpt words, where a miss costs a mark.
func Stem(w string) string {
	w = strings.ToLower(w)
	// The plural first, then a verb ending: "evenings" → "evening" → "even".
	switch n := utf8.RuneCountInString(w); {
	case strings.HasSuffix(w, "ies") && n >= 5:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "s") && n >= 4 && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	switch n := utf8.RuneCountInString(w); {
	case strings.HasSuffix(w, "ing") && n >= 6:
		w = w[:len(w)-3]
	case strings.HasSuffix(w, "ed") && n >= 5:
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ly") && n >= 5:
		w = w[:len(w)-2]
	}
	// "running" → "runn" → "run": a doubled final consonant left by the strip; and a final
	// e, so that "phrase", "phrases" and "phrased" meet.
	if n := len(w); n >= 4 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
		w = w[:n-1]
	}
	if n := len(w); n >= 4 && w[n-1] == 'e' {
		w = w[:n-1]
	}
	return w
}

// wordSpan is one word of a text: byte offsets and whether it is a question term.
type wordSpan struct {
	start, end int
	term       string // the stem when it is a question term, else ""
}

func words(text string, terms map[string]bool) []wordSpan {
	var out []wordSpan
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := wordSpan{start: start, end: end}
		if lw := strings.ToLower(text[start:end]); len(lw) >= 3 && !stopWords[lw] {
			if s := Stem(lw); terms[s] {
				w.term = s
			}
		}
		out = append(out, w)
		start = -1
	}
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(len(text))
	return out
}

// MatchStrength is the passage's strength for the question's terms.
func MatchStrength(text string, terms map[string]bool) Strength {
	if len(terms) == 0 {
		return StrengthRelated
	}
	have := map[string]bool{}
	for _, w := range words(text, terms) {
		if w.term != "" {
			have[w.term] = true
		}
	}
	// Half the words, and two of them when the question has two or more: a passage that
	// shares one word with "exam tips" (Walden's "tip-toe") is not a close match.
	if float64(len(have)) >= CloseCoverage*float64(len(terms)) && len(have) >= min(2, len(terms)) {
		return StrengthClose
	}
	return StrengthRelated
}

// MatchWindow returns the byte range of text, about n bytes long, to show as the excerpt
// of a passage for a question: the stretch holding the most distinct question terms
// (then the most matches), started at the beginning of the sentence (or, with lines, the
// line) of its first match when that is near, so that the excerpt shows why the passage
// was picked rather than its first n bytes. Word boundaries are kept.
func MatchWindow(text string, terms map[string]bool, n int, lines bool) (start, end int) {
	if len(text) <= n {
		return 0, len(text)
	}
	ws := words(text, terms)
	best, bestDistinct, bestHits, bestLast := -1, 0, 0, 0
	for i, w := range ws {
		if w.term == "" {
			continue
		}
		distinct := map[string]bool{}
		hits, last := 0, 0
		for _, v := range ws[i:] {
			if v.end > w.start+n {
				break
			}
			if v.term != "" {
				distinct[v.term] = true
				hits++
				last = v.end
			}
		}
		if len(distinct) > bestDistinct || (len(distinct) == bestDistinct && hits > bestHits) {
			best, bestDistinct, bestHits, bestLast = i, len(distinct), hits, last
		}
	}
	if best < 0 {
		return 0, wordEnd(text, n)
	}
	anchor := ws[best].start
	// Context before the first match: the passage's own start when the match is that
	// near it (a small head is not cut off, and the quote starts where the passage does,
	// on its cited page); else back to its sentence (or line) start when that is within a
	// third of the window; else a sixth of the window back.
	start = anchor - n/6
	if s := boundaryBefore(text, anchor, lines); anchor <= n/3 && bestLast <= n {
		start = 0
	} else if anchor-s <= n/3 {
		start = s
	}
	if start < 0 {
		start = 0
	}
	// To a word start.
	for start > 0 && start < len(text) && isWordByte(text, start-1) && isWordByte(text, start) {
		start--
	}
	for start < anchor && start < len(text) && unicode.IsSpace(rune(text[start])) {
		start++
	}
	end = start + n
	if end >= len(text) {
		// Near the end: up to the end, and back further when that window is short.
		end = len(text)
		if end-start < n/2 {
			// To the first sentence (or line) that starts in the last n bytes.
			from := max(0, end-n)
			start = from
			for i := from; i < anchor; i++ {
				if i > 0 && (text[i-1] == '\n' || !lines && unicode.IsSpace(rune(text[i-1])) && i > 1 && strings.ContainsRune(".!?", rune(text[i-2]))) {
					start = i
					break
				}
			}
			for start > 0 && start < len(text) && isWordByte(text, start-1) && isWordByte(text, start) {
				start++
			}
		}
		return start, end
	}
	return start, start + wordEnd(text[start:], n)
}

func isWordByte(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// wordEnd returns a cut at or before n bytes of s that does not split a word (n when
// the word is longer than half of it).
func wordEnd(s string, n int) int {
	if len(s) <= n {
		return len(s)
	}
	cut := strings.LastIndexFunc(s[:n], unicode.IsSpace)
	if cut < n/2 {
		cut = n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
	}
	return cut
}

// boundaryBefore returns where the sentence (or line) holding offset at starts.
func boundaryBefore(text string, at int, lines bool) int {
	if lines {
		return strings.LastIndexByte(text[:at], '\n') + 1
	}
	for i := at - 1; i > 0; i-- {
		if unicode.IsSpace(rune(text[i])) && strings.ContainsRune(".!?\n", rune(text[i-1])) {
			return i + 1
		}
		if text[i] == '\n' && i+1 < len(text) && text[i+1] == '\n' {
			return i + 2
		}
	}
	return 0
}
