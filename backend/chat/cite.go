package chat

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

var (
	markerRE     = regexp.MustCompile(`\[(\d{1,3})\]`)
	spacedMarker = regexp.MustCompile(`[ \t]*\[(\d{1,3})\]`)
)

// Markers returns the distinct valid passage numbers cited in text, in order of appearance.
func Markers(text string, n int) []int {
	var out []int
	seen := map[int]bool{}
	for _, m := range markerRE.FindAllStringSubmatch(text, -1) {
		k, _ := strconv.Atoi(m[1])
		if k >= 1 && k <= n && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// Ground checks every sentence of answer against the passages. A sentence that already
// cites a valid passage is kept as it is; a sentence without a valid marker gets the marker
// of the passage that shares the most content words with it, when that overlap is strong
// enough to count as support. Small local models rarely cite reliably, so this is what
// makes their answers navigable. Invalid markers ([0], [99]) are removed.
func Ground(answer string, passages []Passage) string {
	vocab := make([]map[string]bool, len(passages))
	for i, p := range passages {
		vocab[i] = contentWords(p.Text)
	}
	var b strings.Builder
	for _, s := range splitSentences(answer) {
		body := spacedMarker.ReplaceAllStringFunc(s, func(m string) string {
			k, _ := strconv.Atoi(strings.TrimSpace(m)[1 : len(strings.TrimSpace(m))-1])
			if k >= 1 && k <= len(passages) {
				return m
			}
			return ""
		})
		if len(Markers(body, len(passages))) == 0 {
			if best := bestSupport(body, vocab); best > 0 {
				body = insertMarker(body, best)
			}
		}
		b.WriteString(body)
	}
	return b.String()
}

// bestSupport returns the 1-based passage that supports sentence best, or 0.
func bestSupport(sentence string, vocab []map[string]bool) int {
	words := contentWords(sentence)
	if len(words) < 2 {
		return 0
	}
	best, bestN := 0, 0
	for i, v := range vocab {
		n := 0
		for w := range words {
			if v[w] {
				n++
			}
		}
		if n > bestN {
			best, bestN = i+1, n
		}
	}
	// At least two shared content words and a third of the sentence's.
	if bestN >= 2 && 3*bestN >= len(words) {
		return best
	}
	return 0
}

// insertMarker puts " [n]" before the sentence's final punctuation and trailing space.
func insertMarker(s string, n int) string {
	end := len(strings.TrimRightFunc(s, unicode.IsSpace))
	core, tail := s[:end], s[end:]
	p := len(strings.TrimRight(core, ".!?;:"))
	return core[:p] + " [" + strconv.Itoa(n) + "]" + core[p:] + tail
}

// splitSentences splits text after ., ! or ? followed by space, and at newlines, keeping
// every byte so that joining the parts gives back the text.
func splitSentences(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		end := -1
		if c == '\n' {
			end = i + 1
		} else if (c == '.' || c == '!' || c == '?') && i+1 < len(text) && (text[i+1] == ' ' || text[i+1] == '\n') {
			// keep markers that follow the stop with the sentence: "claim. [2] Next"
			j := i + 1
			for j < len(text) && text[j] == ' ' {
				j++
			}
			for markerRE.MatchString(text[j:min(len(text), j+5)]) && strings.HasPrefix(text[j:], "[") {
				loc := markerRE.FindStringIndex(text[j:])
				if loc == nil || loc[0] != 0 {
					break
				}
				j += loc[1]
			}
			end = j
		}
		if end > start {
			out = append(out, text[start:end])
			start = end
			i = end - 1
		}
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be been but by can could did do does for from had has have
		he her his how i if in into is it its may might more most no not of on or our she should so some such than that
		the their them then there these they this those to was we were what when where which while who why will with
		would you your about also any each only other over very just`) {
		stopWords[w] = true
	}
}

// contentWords returns the lowercased words of at least three letters that are not stop words.
func contentWords(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if len(w) >= 3 && !stopWords[w] {
			out[w] = true
		}
	}
	return out
}
