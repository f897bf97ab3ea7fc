// Package memory extracts durable facts about the user from the user's own messages and
// decides which are worth keeping. The policy is strict: it keeps preferences about
// answers, stable context (role, field, course, level) and goals, stated plainly in the
// first person; it never keeps questions, one-off requests, hedged guesses, hypotheticals,
// quoted text (a document's words pasted into a question) or facts about anything else.
// Only the user's message is ever given to it, never document text or answers.
package memory

import (
	"regexp"

	"strings"
	"sync"
	"unicode"

	"github.com/carrel-app/carrel/backend/library"
)

// Kinds of memory (library.MemoryKind's values).
const (
	Preference = library.MemoryPreference
	Context    = library.MemoryContext
	Goal       = library.MemoryGoal
)

// Candidate is a fact found in a message.
type Candidate struct {
	Kind library.MemoryKind
	// Slot names a single-valued fact ("language", "role", "field", "course", "length",
	// "level"), "" for facts that add up.
	Slot string
	// Text is the fact, phrased about the user ("is a second-year nursing student").
	Text string
	// Source is the user's sentence it came from.
	Source string
}

type rule struct {
	re   *regexp.Regexp
	kind library.MemoryKind
	slot string
	// text phrases the fact from the match's groups.
	text func(m []string) string
	// check, when set, must accept the match.
	check func(m []string) bool
}

// rules are compiled on the first message, not at program start: compiling them took
// 14 ms of every launch's start, the desktop window's and `carrel --version`'s alike.
var rules = sync.OnceValue(func() []rule {
	return []rule{
		// Answer language: "always answer in French", "from now on reply in Spanish".
		{re: regexp.MustCompile(`^(?:please )?(?:always |from now on,? )?(?:answer|reply|respond|write)(?: to me)? in ([a-z]+)(?: from now on| please| always)?$`),
			kind: Preference, slot: "language", text: func(m []string) string { return "wants answers in " + title(m[1]) },
			check: func(m []string) bool { return languages[m[1]] }},
		{re: regexp.MustCompile(`^i (?:prefer|want|would like|'d like|'d prefer) (?:my )?(?:answers|replies|responses|explanations) in ([a-z]+)$`),
			kind: Preference, slot: "language", text: func(m []string) string { return "wants answers in " + title(m[1]) },
			check: func(m []string) bool { return languages[m[1]] }},
		// Answer length and style.
		{re: regexp.MustCompile(`^(?:i (?:prefer|like|want|would like|'d like|'d prefer|need) |please (?:always )?(?:keep|give me|make) (?:my |the |your )?|always (?:keep|give me|make) (?:my |the |your )?|keep (?:my |the |your )?)(short|shorter|brief|concise|long|longer|detailed|thorough|step-by-step|simple|simpler) (?:answers|replies|responses|explanations)(.*)$`),
			kind: Preference, slot: "length", text: func(m []string) string { return "prefers " + m[1] + " answers" + strings.TrimRight(m[2], " ") },
			check: func(m []string) bool {
				return m[2] == "" || strings.HasPrefix(m[2], " with ") || strings.HasPrefix(m[2], " in ")
			}},
		{re: regexp.MustCompile(`^(?:i (?:prefer|like|want|would like|'d like|'d prefer) (?:my )?(?:answers|replies|responses|explanations) (?:to be )?|please (?:always )?keep (?:your |the )?(?:answers|replies|responses|explanations) |(?:always )?keep (?:your |the )?(?:answers|replies|responses|explanations) )(short|shorter|brief|concise|long|longer|detailed|thorough|simple|simpler)$`),
			kind: Preference, slot: "length", text: func(m []string) string { return "prefers " + m[1] + " answers" }},
		{re: regexp.MustCompile(`^(?:i (?:prefer|like|learn best with|learn better with) |please always (?:include|use|give|add) |always (?:include|use|give|add) )((?:worked |concrete |real-world |practical |code )?examples(?: in [a-z+#]+)?|analogies|diagrams|bullet points|step-by-step explanations|plain language|simple language|formulas|the intuition first)$`),
			kind: Preference, text: func(m []string) string { return "prefers " + m[1] }},
		{re: regexp.MustCompile(`^(?:i (?:don't|do not) like|please (?:never|don't|do not) use|never use|avoid) (jargon|bullet points|long answers|analogies|emojis|code|math notation|formulas)$`),
			kind: Preference, text: func(m []string) string { return "does not want " + m[1] }},
		// Stable context: role and level.
		{re: regexp.MustCompile(`^i(?: am|'m) (a|an) ([a-z0-9' -]{2,60})$`),
			kind: Context, slot: "role", text: func(m []string) string { return "is " + m[1] + " " + m[2] },
			check: func(m []string) bool { return endsWithRole(m[2]) }},
		{re: regexp.MustCompile(`^i(?: am|'m) (?:currently |now )?(?:studying|majoring in|doing a (?:degree|major|masters|master's|phd|bachelor's) in|in my [a-z]+ year of) ([a-z0-9' -]{2,60})$`),
			kind: Context, slot: "field", text: func(m []string) string { return "studies " + m[1] }, check: isField},
		{re: regexp.MustCompile(`^i (?:study|major in) ([a-z0-9' -]{2,60})(?: at [a-z0-9' -]+)?$`),
			kind: Context, slot: "field", text: func(m []string) string { return "studies " + m[1] }, check: isField},
		{re: regexp.MustCompile(`^i(?: am|'m) (?:currently |now )?(?:taking|enrolled in|attending|following) (?:a |an |the )?((?:course|class|module|unit)s? (?:in|on|called) [a-z0-9' -]{2,60}|[a-z0-9' -]{2,60} (?:course|class|module|unit))$`),
			kind: Context, slot: "course", text: func(m []string) string { return "is taking " + m[1] }},
		{re: regexp.MustCompile(`^my (?:course|class|module|major|degree) is (?:in |on )?([a-z0-9' -]{2,60})$`),
			kind: Context, slot: "course", text: func(m []string) string { return "is taking " + m[1] }},
		{re: regexp.MustCompile(`^i(?: am|'m) (new to|a beginner (?:in|at|with)|a complete beginner (?:in|at|with)|familiar with|comfortable with|an expert in|advanced in|fluent in|not familiar with) ([a-z0-9'+# -]{2,60})$`),
			kind: Context, text: func(m []string) string { return "is " + m[1] + " " + m[2] }},
		{re: regexp.MustCompile(`^i(?: already)? know ([a-z0-9'+# -]{2,40}) (?:well|very well|already)$`),
			kind: Context, text: func(m []string) string { return "knows " + m[1] + " well" }},
		// Goals.
		{re: regexp.MustCompile(`^my (?:goal|aim|plan) is to ([a-z0-9'+# -]{3,80})$`),
			kind: Goal, text: func(m []string) string { return "wants to " + m[1] }},
		{re: regexp.MustCompile(`^i(?: am|'m) (?:preparing|studying|revising|cramming) for ([a-z0-9'+# -]{3,80})$`),
			kind: Goal, text: func(m []string) string { return "is preparing for " + m[1] }},
		{re: regexp.MustCompile(`^i (?:want|need|have|hope|plan) to (learn|master|pass|get better at|improve (?:my|at)|become|prepare for) ([a-z0-9'+# -]{2,80})$`),
			kind: Goal, text: func(m []string) string { return "wants to " + m[1] + " " + m[2] }},
		{re: regexp.MustCompile(`^my (exam|final|finals|thesis|defense|defence|deadline|test|interview) is (on|in|next) ([a-z0-9' -]{2,40})$`),
			kind: Goal, text: func(m []string) string { return "has their " + m[1] + " " + m[2] + " " + m[3] }},
	}
})

// roles are the nouns that end "I am a …" when it says who the user is.
var roles = wordSet(`student undergraduate undergrad postgraduate graduate grad phd candidate researcher engineer developer
	programmer teacher lecturer professor tutor nurse doctor physician lawyer scientist analyst designer resident intern
	beginner novice expert professional learner physicist chemist biologist mathematician economist historian
	accountant pharmacist architect journalist writer librarian paramedic technician freshman sophomore junior senior`)

var languages = wordSet(`english french german spanish italian portuguese dutch swedish norwegian danish finnish polish czech
	russian ukrainian greek turkish arabic hebrew hindi chinese mandarin japanese korean vietnamese indonesian`)

// hedges mark a sentence as a guess, a hypothetical or someone else's words.
var hedges = wordSet(`maybe perhaps probably possibly might guess suppose supposing imagine pretend hypothetically
	if unless whether wonder think believe assume said says wrote writes claims`)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// isField accepts "I'm studying X" as the user's field, not as what they are reading now
// ("I'm studying chapter 3", "I'm studying this paper", "I'm studying for the exam").
func isField(m []string) bool {
	f := strings.Fields(m[1])
	if len(f) == 0 || len(f) > 5 || strings.ContainsAny(m[1], "0123456789") {
		return false
	}
	switch f[0] {
	case "this", "that", "these", "those", "the", "a", "an", "it", "my", "for", "chapter", "section", "page", "pages", "hard", "now", "today", "tonight":
		return false
	}
	return true
}

func endsWithRole(phrase string) bool {
	f := strings.Fields(phrase)
	if len(f) == 0 || len(f) > 6 {
		return false
	}
	last := strings.TrimSuffix(f[len(f)-1], "s")
	return roles[last] || roles[f[len(f)-1]]
}

func title(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

var (
	quotedRE = regexp.MustCompile("(?s)\"[^\"]*\"|“[^”]*”|«[^»]*»|```.*?```|`[^`]*`")
	// Single quotes only as quotation marks (after a space or at the start), not apostrophes.
	singleQuotedRE = regexp.MustCompile(`(^|\s)'[^']*'(\s|$|[.,;:!?])`)
	sentenceRE     = regexp.MustCompile(`[.!?;\n]+`)
	leadRE         = regexp.MustCompile(`^(?:also|and|btw|by the way|fyi|note that|just so you know|for context|for the record|oh|ok|okay|well|so|hi|hello|thanks|thank you)[, ]+`)
)

// Extract returns the facts a user's message states about the user. It is deterministic.
func Extract(message string) []Candidate {
	// Quoted passages are someone else's words (often a document's): drop them, and any
	// line quoted e-mail style.
	text := unquote(message)
	var out []Candidate
	seen := map[string]bool{}
	// Questions are split off first so that a question mark marks its own sentence.
	for _, st := range statements(text) {
		s, norm := st.text, st.norm
		for _, r := range rules() {
			m := r.re.FindStringSubmatch(norm)
			if m == nil || (r.check != nil && !r.check(m)) {
				continue
			}
			c := Candidate{Kind: r.kind, Slot: r.slot, Text: aboutUser(clean(r.text(m))), Source: strings.TrimRight(s, ".!;")}
			if k := Key(c.Text); !seen[k] {
				seen[k] = true
				out = append(out, c)
			}
			break
		}
	}
	return out
}

// statement is a sentence that states something: its text and its normalised form.
type statement struct{ text, norm string }

// statements returns text's sentences that are not questions, not hedged and not cut by
// a quotation ("…" stands for quoted words).
func statements(text string) []statement {
	var out []statement
	for _, raw := range splitKeep(text) {
		s := strings.TrimSpace(raw)
		if s == "" || strings.HasSuffix(s, "?") || strings.Contains(s, "…") {
			continue
		}
		norm := normalise(s)
		if isQuestion(norm) || hedged(norm) {
			continue
		}
		out = append(out, statement{s, norm})
	}
	return out
}

// splitKeep splits text into sentences, keeping a question's "?" on it.
func splitKeep(text string) []string {
	var out []string
	start := 0
	for _, loc := range sentenceRE.FindAllStringIndex(text, -1) {
		out = append(out, text[start:loc[1]])
		start = loc[1]
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	for i, s := range out {
		s = strings.TrimSpace(s)
		// Keep only the "?" as the sentence's end mark, for the question test.
		if strings.Contains(s, "?") {
			out[i] = strings.TrimRight(s, ".!;\n ") + "?"
			if !strings.HasSuffix(strings.TrimRight(s, " \n"), "?") {
				out[i] = s
			}
		} else {
			out[i] = strings.TrimRight(s, ".!;\n ")
		}
	}
	return out
}

// normalise lowercases a sentence, unifies apostrophes and spaces, and drops a leading
// filler ("btw, ", "also ").
func normalise(s string) string {
	s = strings.ToLower(strings.NewReplacer("’", "'", "‘", "'").Replace(s))
	s = strings.Join(strings.Fields(strings.ReplaceAll(s, ",", " ")), " ")
	for {
		t := leadRE.ReplaceAllString(s, "")
		if t == s {
			break
		}
		s = t
	}
	return strings.TrimSpace(s)
}

func isQuestion(s string) bool {
	f := strings.Fields(s)
	if len(f) == 0 {
		return true
	}
	switch f[0] {
	case "what", "why", "how", "when", "where", "who", "which", "whose", "whom", "is", "are", "am", "was", "were", "do",
		"does", "did", "can", "could", "should", "would", "will", "shall", "may", "explain", "describe", "define",
		"tell", "summarise", "summarize", "compare", "list", "give", "show", "find", "what's", "how's", "who's":
		return true
	}
	return false
}

func hedged(s string) bool {
	for _, w := range strings.Fields(s) {
		if hedges[strings.Trim(w, ".,;:!")] {
			return true
		}
	}
	return strings.Contains(s, "not sure") || strings.Contains(s, "i was ") || strings.Contains(s, "i used to")
}

func clean(s string) string { return strings.Join(strings.Fields(s), " ") }

// aboutUser turns the first-person words left in a fact ("is preparing for my exam") to
// the third person, since facts are phrased about the user.
func aboutUser(s string) string {
	f := strings.Fields(s)
	for i, w := range f {
		switch w {
		case "my":
			f[i] = "their"
		case "me", "myself":
			f[i] = "them"
		case "mine":
			f[i] = "theirs"
		}
	}
	return strings.Join(f, " ")
}

// Key is a memory's text normalised for spotting duplicates.
func Key(text string) string {
	f := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	return strings.Join(f, " ")
}

// Existing is a stored memory as [Plan] sees it.
type Existing struct {
	ID   int64
	Kind library.MemoryKind
	Slot string
	Text string
}

// Action is what to do with a candidate: add it, or replace the text of memory Update.
type Action struct {
	Candidate
	Update int64 // 0: add
}

// Plan decides what to store from candidates given the memories kept: a duplicate is
// dropped; a new value of a single-valued fact (a slot) replaces the old one.
func Plan(have []Existing, cands []Candidate) []Action {
	var out []Action
	keys := map[string]bool{}
	slots := map[string]int64{}
	for _, h := range have {
		keys[Key(h.Text)] = true
		if h.Slot != "" {
			slots[string(h.Kind)+"/"+h.Slot] = h.ID
		}
	}
	for _, c := range cands {
		k := Key(c.Text)
		if k == "" || keys[k] {
			continue
		}
		keys[k] = true
		a := Action{Candidate: c}
		if c.Slot != "" {
			if id, ok := slots[string(c.Kind)+"/"+c.Slot]; ok {
				a.Update = id
			}
		}
		out = append(out, a)
	}
	return out
}
