package chat

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
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
		cited := Markers(body, len(passages))
		if best := bestSupport(body, vocab); best > 0 && !slices.Contains(cited, best) && !agrees(body, cited, vocab) {
			// No marker, or the model cited passages the sentence shares no word with while
			// another passage clearly supports it: cite that one instead. A model marker
			// that shares words with its passage is kept as the model wrote it.
			body = insertMarker(spacedMarker.ReplaceAllString(body, ""), best)
		}
		b.WriteString(body)
	}
	return b.String()
}

// agrees reports whether the sentence shares a content word with any passage it cites.
func agrees(sentence string, cited []int, vocab []map[string]bool) bool {
	words := contentWords(sentence)
	for _, k := range cited {
		for w := range words {
			if vocab[k-1][w] {
				return true
			}
		}
	}
	return false
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
		would you your about also any each only other over very just even`) {
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

// Claim is one sentence of an answer and the support found for it.
type Claim struct {
	// Start and End are the sentence's character (rune) offsets in the answer text.
	Start int `json:"start"`
	End   int `json:"end"`
	// Supported is false when no passage supports the sentence (it carries no marker).
	Supported bool `json:"supported"`
	// Spans give, for each passage the sentence cites, the text in it that supports the
	// sentence.
	Spans []Span `json:"spans"`
}

// Span is the supporting text of a claim inside a cited passage.
type Span struct {
	// N is the passage's number (its [n] marker).
	N int `json:"n"`
	// Start and End are character (rune) offsets in the passage's text; Quote is that
	// text, for the viewer to find and highlight on the page.
	Start int    `json:"start"`
	End   int    `json:"end"`
	Quote string `json:"quote"`
}

// Claims splits a grounded answer into sentences and finds, for each cited passage, the
// passage sentence sharing the most content words with the claim (the whole passage when
// none shares any). Sentences without a marker are returned unsupported. Blank pieces
// (newlines, stray markers) are left out.
func Claims(answer string, passages []Passage) []Claim {
	out := []Claim{}
	pos := 0
	for _, s := range splitSentences(answer) {
		start := pos
		pos += utf8.RuneCountInString(s)
		text := strings.TrimSpace(markerRE.ReplaceAllString(s, ""))
		if len(contentWords(text)) == 0 {
			continue
		}
		lead := utf8.RuneCountInString(s) - utf8.RuneCountInString(strings.TrimLeftFunc(s, unicode.IsSpace))
		trail := utf8.RuneCountInString(s) - utf8.RuneCountInString(strings.TrimRightFunc(s, unicode.IsSpace))
		c := Claim{Start: start + lead, End: pos - trail, Spans: []Span{}}
		for _, n := range Markers(s, len(passages)) {
			c.Spans = append(c.Spans, supportSpan(text, n, passages[n-1].Text))
		}
		c.Supported = len(c.Spans) > 0
		out = append(out, c)
	}
	return out
}

// supportSpan finds the sentence of passage text that best supports claim.
func supportSpan(claim string, n int, text string) Span {
	words := contentWords(claim)
	best, bestScore, pos := Span{N: n, Start: 0, End: utf8.RuneCountInString(text), Quote: text}, 0, 0
	for _, s := range splitSentences(text) {
		start := pos
		pos += utf8.RuneCountInString(s)
		score := 0
		for w := range contentWords(s) {
			if words[w] {
				score++
			}
		}
		if score > bestScore {
			trimmed := strings.TrimSpace(s)
			lead := utf8.RuneCountInString(s) - utf8.RuneCountInString(strings.TrimLeftFunc(s, unicode.IsSpace))
			best = Span{N: n, Start: start + lead, End: start + lead + utf8.RuneCountInString(trimmed), Quote: trimmed}
			bestScore = score
		}
	}
	return best
}

// SimilarityThreshold is the cosine similarity from which a sentence's embedding counts
// as drawing on a passage's, when no words tie them (a paraphrase).
const SimilarityThreshold = 0.65

// Unsupported returns the sentences of a grounded answer that carry no marker and have
// content words, in order: the ones [AttachBySimilarity] may still place.
func Unsupported(answer string) []string {
	var out []string
	for _, s := range splitSentences(answer) {
		if len(markerRE.FindAllString(s, -1)) == 0 && len(contentWords(s)) > 0 {
			out = append(out, strings.TrimSpace(s))
		}
	}
	return out
}

// AttachBySimilarity gives each unsupported sentence (as [Unsupported] lists them, with
// their vectors in sentVecs) the marker of the passage whose vector (passVecs, in
// passage order) is most similar, when that similarity reaches threshold. Vectors are
// L2-normalised, so the dot product is the cosine.
func AttachBySimilarity(answer string, passages []Passage, sentVecs, passVecs [][]float32, threshold float64) string {
	var b strings.Builder
	i := 0
	for _, s := range splitSentences(answer) {
		if len(markerRE.FindAllString(s, -1)) == 0 && len(contentWords(s)) > 0 {
			if i < len(sentVecs) {
				best, bestSim := 0, threshold
				for k, pv := range passVecs {
					if sim := dot(sentVecs[i], pv); k < len(passages) && sim >= bestSim {
						best, bestSim = k+1, sim
					}
				}
				if best > 0 {
					s = insertMarker(s, passages[best-1].N)
				}
			}
			i++
		}
		b.WriteString(s)
	}
	return b.String()
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range min(len(a), len(b)) {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}
