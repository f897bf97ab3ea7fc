// Package cache decides when two study questions are the same question, so that an
// answer can be reused without any model in the loop. A wrong hit is worse than a miss:
// besides the embedding similarity the engine checks, two questions must agree here, on
// their content words (stemmed, stop words and question framing removed), their numbers
// and their kind (when, why, who, how many...), and, where word order carries meaning
// (comparisons, causes, "before"), on the order of those words.
package cache

import (
	"slices"
	"strings"
	"unicode"

	porterstemmer "github.com/blevesearch/go-porterstemmer"
)

// Question is a question reduced to what decides its meaning for the cache.
type Question struct {
	// Kind is what the question asks for: "when", "where", "who", "why", "count", "how",
	// "yesno" or "what" (definitions, explanations, descriptions and the rest).
	Kind string
	// Words are the content words, stemmed, in the order they appear.
	Words []string
	// Numbers are the numbers and identifiers with digits, as written (lowercased).
	Numbers []string
	// Ordered is set when word order carries meaning (a comparison, a cause, a sequence).
	Ordered bool
	// Seq is the words and numbers in the order they appear.
	Seq []string
}

// Parse reduces a question.
func Parse(q string) Question {
	toks := tokens(q)
	out := Question{Kind: kind(toks)}
	for i, t := range toks {
		if hasDigit(t) {
			out.Numbers = append(out.Numbers, t)
			out.Seq = append(out.Seq, t)
			continue
		}
		if relational[t] {
			out.Ordered = true
		}
		if keep[t] {
			out.Words = append(out.Words, t)
			out.Seq = append(out.Seq, t)
			continue
		}
		if stop[t] || frame[t] || filler[t] || (t == "many" || t == "much") && i > 0 && toks[i-1] == "how" {
			continue
		}
		if s := stem(t); s != "" {
			out.Words = append(out.Words, s)
			out.Seq = append(out.Seq, s)
		}
	}
	return out
}

// Key is the normalised text key: kind, content words as a set, numbers. Questions that
// agree (see [Agree]) have equal keys; without an embedding model the cache matches on it
// (then checks [Agree] for word order).
func (q Question) Key() string {
	words := slices.Clone(q.Words)
	slices.Sort(words)
	words = slices.Compact(words)
	nums := slices.Clone(q.Numbers)
	slices.Sort(nums)
	return q.Kind + "|" + strings.Join(words, " ") + "|" + strings.Join(nums, " ")
}

// Empty reports whether the question has nothing to match on (a bare "why?"): such a
// question is never cached.
func (q Question) Empty() bool { return len(q.Words) == 0 && len(q.Numbers) == 0 }

// Agree reports whether two standalone questions ask the same thing as far as words can
// tell. It is deterministic and strict: "capital of France" never agrees with "capital of
// Spain", "when did X happen" never with "why did X happen", "A causes B" never with "B
// causes A".
func Agree(a, b string) bool {
	qa, qb := Parse(a), Parse(b)
	if qa.Empty() || qa.Key() != qb.Key() {
		return false
	}
	if qa.Ordered || qb.Ordered {
		return slices.Equal(slices.Compact(qa.Seq), slices.Compact(qb.Seq))
	}
	return true
}

func tokens(s string) []string {
	s = strings.ToLower(strings.NewReplacer("’", "'", "‘", "'").Replace(s))
	raw := strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '.' && r != '-'
	})
	var out []string
	for _, t := range raw {
		t = strings.Trim(t, "'.-")
		if t == "" {
			continue
		}
		// Contractions: "what's" → "what", "isn't" → "is" + "not", "don't" → "do" + "not".
		if base, ok := strings.CutSuffix(t, "n't"); ok {
			switch base {
			case "ca":
				base = "can"
			case "wo":
				base = "will"
			}
			out = append(out, base, "not")
			continue
		}
		if i := strings.IndexByte(t, '\''); i > 0 {
			t = t[:i]
		}
		if !hasDigit(t) && strings.ContainsAny(t, ".-") {
			// "e.g." and "well-known": split into words.
			for _, p := range strings.FieldsFunc(t, func(r rune) bool { return r == '.' || r == '-' }) {
				out = append(out, p)
			}
			continue
		}
		out = append(out, t)
	}
	return out
}

func hasDigit(s string) bool { return strings.ContainsFunc(s, unicode.IsDigit) }

// kind reads what a question asks for from its interrogative words.
func kind(toks []string) string {
	for i, t := range toks {
		switch t {
		case "when":
			return "when"
		case "where":
			return "where"
		case "who", "whom", "whose":
			return "who"
		case "why":
			return "why"
		case "how":
			if i+1 < len(toks) && (toks[i+1] == "many" || toks[i+1] == "much") {
				return "count"
			}
			if i+1 < len(toks) && (toks[i+1] == "long" || toks[i+1] == "often") {
				return "count"
			}
			return "how"
		case "what", "which", "define", "explain", "describe", "summarise", "summarize", "meaning":
			return "what"
		}
	}
	if len(toks) > 0 {
		switch toks[0] {
		case "is", "are", "was", "were", "do", "does", "did", "can", "could", "should", "will", "would", "has", "have", "had":
			return "yesno"
		}
	}
	return "what"
}

func stem(t string) string {
	if len([]rune(t)) <= 2 {
		return t
	}
	t = british(t)
	s := porterstemmer.StemString(t)
	if s == "" {
		return t
	}
	return s
}

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// keep are words a stop list would drop that change a question's meaning.
var keep = set(`not no never none without except nor only first second third last
	before after more less most least fewer greater smaller larger higher lower than`)

// relational words make word order part of the meaning.
var relational = set(`than before after cause causes caused causing lead leads led affect affects
	affected influence influences influenced vs versus compared compare from to into over`)

// stop words carry no content.
var stop = set(`a an the of in on at by for with about as into onto from to up down out off over under
	and or but if then so because while although though
	is are was were be been being am do does did done doing has have had having
	it its it's this that these those there here they them their theirs he him his she her hers
	we us our ours you your yours i me my mine
	what which who whom whose when where why how
	can could should would will shall may might must
	some any each every all both either neither such own same other another
	very too also just really quite rather
	s t d ll re ve m`)

// frame words ask rather than say: "explain", "tell me about", "what is meant by".
var frame = set(`explain explained explanation describe described description define defined definition
	tell say said says mean meant meaning summarise summarize summary overview
	give show list name state outline discuss know understand
	please question answer`)

// filler words soften or intensify without changing what is asked.
var filler = set(`main key basic basically simple simply briefly brief exactly actually
	general generally overall important essential concept idea notion term terms thing things
	kind sort type way ways example examples`)

// british spells -ise/-isation and -our words the American way before stemming, so
// "organised" and "organized", "colour" and "color" are one word. The rewrite only has to
// be consistent, not correct: both sides of a comparison go through it.
func british(t string) string {
	for _, suf := range []string{"isation", "isations", "ise", "ised", "ises", "ising"} {
		if base, ok := strings.CutSuffix(t, suf); ok && len(base) >= 3 {
			return base + "iz" + suf[2:]
		}
	}
	if base, ok := strings.CutSuffix(t, "our"); ok && len(base) >= 3 {
		return base + "or"
	}
	if base, ok := strings.CutSuffix(t, "ours"); ok && len(base) >= 3 {
		return base + "ors"
	}
	return t
}
