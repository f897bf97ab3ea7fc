package memory

import (
	"strings"
	"unicode"

	porterstemmer "github.com/blevesearch/go-porterstemmer"

	"github.com/carrel-app/carrel/backend/library"
)

// factVerbs open a fact about the user, as [Extract] phrases them; a model's candidate
// must open with one.
var factVerbs = []string{"prefers ", "does not want ", "wants ", "is ", "studies ", "knows ", "has "}

// Validate checks a fact a model proposed against the user's own words: it must be
// phrased about the user (opening like "prefers", "is", "wants to"), and every content
// word of it must appear in one sentence of the message that the user says of
// themselves — in the first person, not a question, not quoted, not hedged. Anything
// else (a guess, a paraphrase, a fact from elsewhere) is refused. The kind must be one
// of [Preference], [Context] or [Goal].
func Validate(message string, kind library.MemoryKind, fact string) (Candidate, bool) {
	fact = clean(strings.Trim(strings.ToLower(fact), " .;-•*\"'"))
	fact = strings.TrimPrefix(fact, "the user ")
	if kind != Preference && kind != Context && kind != Goal || len(fact) > 200 {
		return Candidate{}, false
	}
	rest := ""
	for _, v := range factVerbs {
		if r, ok := strings.CutPrefix(fact, v); ok {
			rest = r
			break
		}
	}
	words := contentStems(rest)
	if len(words) == 0 {
		return Candidate{}, false
	}
	for _, s := range ownSentences(message) {
		have := map[string]bool{}
		for _, w := range contentStems(s) {
			have[w] = true
		}
		all := true
		for _, w := range words {
			if !have[w] {
				all = false
				break
			}
		}
		if all {
			return Candidate{Kind: kind, Text: fact, Source: s}, true
		}
	}
	return Candidate{}, false
}

// ownSentences are the sentences of a message in which the user speaks of themselves:
// not quoted, not questions, not hedged, with "I" or "my".
func ownSentences(message string) []string {
	var out []string
	for _, st := range statements(unquote(message)) {
		for _, w := range strings.Fields(st.norm) {
			if w == "i" || w == "i'm" || w == "my" || w == "i've" || w == "i'd" {
				out = append(out, st.text)
				break
			}
		}
	}
	return out
}

// unquote drops quoted text and quoted lines (someone else's words).
func unquote(message string) string {
	var lines []string
	for _, ln := range strings.Split(message, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(ln), ">") {
			lines = append(lines, ln)
		}
	}
	text := quotedRE.ReplaceAllString(strings.Join(lines, "\n"), " … ")
	return singleQuotedRE.ReplaceAllString(text, "$1 … $2")
}

var glue = wordSet(`a an the of in on at to for with and or about as by from their them they is are be to`)

func contentStems(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if glue[w] || w == "i" || w == "my" || w == "m" {
			continue
		}
		out = append(out, porterstemmer.StemString(w))
	}
	return out
}
