package study

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/carrel-app/carrel/backend/ingest"
	"github.com/carrel-app/carrel/backend/library"
)

// Card kinds (library.CardKind's values): made without a model, and KindQA by one.
const (
	KindDefinition = library.CardDefinition
	KindGlossary   = library.CardGlossary
	KindHeading    = library.CardHeading
	KindEmphasis   = library.CardEmphasis
	KindCloze      = library.CardCloze
	KindQA         = library.CardQA
)

// Blank stands for the hidden words of a cloze card's question.
const Blank = "[…]"

// Passage is text cards are made from: a parent passage of a document.
type Passage struct {
	ChunkID string // the passage's content hash
	DocID   string
	Section string
	Text    string
	// Breaks are the offsets in Text of the separators between pages. A span across one
	// may hold the page's furniture (a running head, a page number) mid-sentence, so no
	// card stands on one.
	Breaks []int
}

// Draft is a card made from a passage, before it is placed in a deck. Back is text of the
// passage, verbatim; Context is the span it stands on, Passage.Text[SpanStart:SpanEnd].
type Draft struct {
	Kind      library.CardKind
	Front     string
	Back      string
	Context   string
	SpanStart int
	SpanEnd   int
	Passage   int // index in the passages given to Generate
}

// Dedup is the key that makes two cards the same card: their question and answer with
// case and white space ignored.
func Dedup(front, back string) string {
	return strings.ToLower(collapse(front)) + "\x00" + strings.ToLower(collapse(back))
}

// Limits on what makes a card.
const (
	maxTermWords  = 5
	maxBackBytes  = 320
	minSentWords  = 6
	maxSentWords  = 45
	perPassageMax = 5 // cards of a passage, cloze included: a dense page should not flood a deck
)

// Generate makes cards from passages with no model, deterministically, from what the
// text marks as knowledge: definitions, glossary entries, terms a heading or emphasis
// introduces, and (one per passage) a cloze of a sentence's rarest word, rarity measured
// over all the passages given. Passages that are mostly navigation (contents, index) or
// debris give none; sentences that read as table rows, page furniture or fragments are
// skipped. Each card's answer is verbatim text of its passage. Duplicates (by [Dedup])
// are made once.
func Generate(passages []Passage) []Draft {
	texts := make([]string, len(passages))
	for i, p := range passages {
		texts[i] = p.Text
	}
	rare := newIDF(texts)
	seen := map[string]bool{}
	var out []Draft
	for i, p := range passages {
		if navigation(p.Text) {
			continue
		}
		var mine []Draft
		add := func(d Draft) {
			if len(mine) >= perPassageMax || d.Back == "" || d.Front == "" {
				return
			}
			for _, b := range p.Breaks {
				if b >= d.SpanStart && b < d.SpanEnd {
					return
				}
			}
			k := Dedup(d.Front, d.Back)
			if seen[k] {
				return
			}
			seen[k] = true
			d.Passage = i
			d.Context = p.Text[d.SpanStart:d.SpanEnd]
			mine = append(mine, d)
		}
		for _, d := range glossary(p.Text) {
			add(d)
		}
		sents := sentences(p.Text)
		for _, s := range sents {
			if !prose(p.Text, s) {
				continue
			}
			if d, ok := definition(p.Text, s); ok {
				add(d)
			}
			for _, d := range emphasis(p.Text, s) {
				add(d)
			}
		}
		if d, ok := heading(p, sents); ok {
			add(d)
		}
		if d, ok := cloze(p.Text, sents, rare); ok {
			add(d)
		}
		out = append(out, mine...)
	}
	return out
}

// navigation reports whether a passage is mostly contents, index or debris.
func navigation(text string) bool { return ingest.NavigationShare(text) >= ingest.NavigationFrom }

// prose reports whether a sentence is one a card can be made from: it starts with a
// capital, ends with a full stop, has a sentence's length, and is not debris.
func prose(text string, s sentence) bool {
	t := text[s.s:s.e]
	if !strings.HasSuffix(t, ".") || strings.HasSuffix(t, "..") {
		return false
	}
	r, _ := utf8.DecodeRuneInString(strings.TrimLeft(t, "\"“‘'("))
	if !unicode.IsUpper(r) {
		return false
	}
	n := len(strings.Fields(t))
	return n >= minSentWords && n <= maxSentWords && balanced(t) && !boilerplate(t) && !debris(t)
}

// balanced reports whether a sentence's quotes and brackets pair up: one that does not
// was cut from a longer quotation or a broken layout.
func balanced(t string) bool {
	return strings.Count(t, "“") == strings.Count(t, "”") && strings.Count(t, "(") == strings.Count(t, ")") &&
		strings.Count(t, "[") == strings.Count(t, "]") && strings.Count(t, `"`)%2 == 0
}

// boilerplate reports legal notices, which every document of a publisher repeats.
func boilerplate(t string) bool {
	l := strings.ToLower(t)
	for _, w := range []string{"trademark", "copyright", "all rights reserved", "licensed under", "permission is granted",
		"no part of this", "may be reproduced", "under license", "furnished as is", "subject to change without notice",
		"should not be construed as a commitment", "without warranty"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// notTerms are subjects of "X is …" sentences that are not terms being defined.
var notTerms = toSet(`this that these those it there here which what who each every such our its their his her my
your one some all any no another other both either neither many most much first second third next last following
above below former latter result results problem problems answer reason reasons goal idea point purpose aim default
same only main key effect difference question case example figure table section chapter part step way thing things
he she they we i you value values number output input solution approach method work paper article book document
note notes option options file files time lot rest latter author authors user users`)

// verbs that cannot be inside a defined term ("The parser can be …").
var termVerbs = toSet(`is are was were be been being has have had do does did can could will would may might must
shall should not also then thus often usually always never`)

var (
	copula    = regexp.MustCompile(`^(?s)(.+?)\s+(is|are)\s+((?:a|an|the|one|any)\s.+)\.$`)
	verbal    = regexp.MustCompile(`^(?s)(.+?)\s+(refers to|refer to|is defined as|are defined as|denotes|denote|stands for|means)\s+(.+)\.$`)
	called    = regexp.MustCompile(`^(?s)(.+?)\s+(is|are)\s+(called|known as|termed|named)\s+(.+)\.$`)
	glossLine = regexp.MustCompile(`^([\p{L}][\p{L}\p{N}'’ /()-]{0,40}?)\s*(:|—|–|\s-)\s+(\S.*)$`)
)

// termOK reports whether a phrase reads as a term being defined: one to five words with
// letters, no verb, not a pronoun or a generic noun.
func termOK(term string) bool {
	fs := strings.Fields(term)
	if len(fs) == 0 || len(fs) > maxTermWords || strings.ContainsAny(term, ",;:.()[]{}\"“”") {
		return false
	}
	for _, f := range fs {
		l := strings.ToLower(f)
		if termVerbs[l] {
			return false
		}
		if strings.IndexFunc(f, unicode.IsLetter) < 0 {
			return false
		}
	}
	head := strings.ToLower(fs[0])
	return !notTerms[head] && !stopwords[head] && (len(fs) > 1 || utf8.RuneCountInString(head) >= 3)
}

// stripArticle splits a leading article off a term.
func stripArticle(term string) (article, rest string) {
	for _, a := range []string{"A ", "An ", "The ", "a ", "an ", "the "} {
		if r, ok := strings.CutPrefix(term, a); ok {
			return strings.ToLower(strings.TrimSpace(a)), strings.TrimSpace(r)
		}
	}
	return "", term
}

func backOK(b string) bool {
	n := len(strings.Fields(b))
	return n >= 2 && len(b) <= maxBackBytes && strings.IndexFunc(b, unicode.IsLetter) >= 0
}

// definition makes a card from a defining sentence, or reports false.
func definition(text string, s sentence) (Draft, bool) {
	t := text[s.s:s.e]
	if m := called.FindStringSubmatchIndex(t); m != nil {
		subject, term := t[m[2]:m[3]], t[m[8]:m[9]]
		if len(strings.Fields(term)) <= maxTermWords && !strings.ContainsAny(term, ",;") && len(strings.Fields(subject)) >= 2 &&
			len(strings.Fields(subject)) <= 12 && !strings.ContainsAny(subject, ",;:") && startsArticle(subject) &&
			!notTerms[strings.ToLower(strings.Fields(subject)[0])] && strings.IndexFunc(term, unicode.IsLetter) >= 0 {
			front := "What " + t[m[4]:m[5]] + " " + lowerFirst(collapse(subject)) + " " + collapse(t[m[6]:m[7]]) + "?"
			return Draft{Kind: KindDefinition, Front: front, Back: term, SpanStart: s.s, SpanEnd: s.e}, true
		}
		return Draft{}, false
	}
	if m := verbal.FindStringSubmatchIndex(t); m != nil {
		term, verb, def := t[m[2]:m[3]], t[m[4]:m[5]], t[m[6]:m[7]]
		art, bare := stripArticle(term)
		if termOK(bare) && backOK(def) {
			q := map[string]string{"refers to": "What does %s refer to?", "refer to": "What do %s refer to?",
				"is defined as": "How is %s defined?", "are defined as": "How are %s defined?", "denotes": "What does %s denote?",
				"denote": "What do %s denote?", "stands for": "What does %s stand for?", "means": "What does %s mean?"}[verb]
			return Draft{Kind: KindDefinition, Front: strings.Replace(q, "%s", withArticle(art, termCase(art, collapse(bare))), 1), Back: def,
				SpanStart: s.s, SpanEnd: s.e}, true
		}
		return Draft{}, false
	}
	if m := copula.FindStringSubmatchIndex(t); m != nil {
		term, verb, def := t[m[2]:m[3]], t[m[4]:m[5]], t[m[6]:m[7]]
		art, bare := stripArticle(term)
		if termOK(bare) && backOK(def) && len(strings.Fields(def)) >= 3 {
			front := "What " + verb + " " + withArticle(art, termCase(art, collapse(bare))) + "?"
			return Draft{Kind: KindDefinition, Front: front, Back: def, SpanStart: s.s, SpanEnd: s.e}, true
		}
	}
	return Draft{}, false
}

// termCase lower-cases the first letter of a term of several words that opened its
// sentence ("Floating point arithmetic" → "floating point arithmetic"); a one-word term
// keeps its case, since it is often a name ("Pages", "AppleTalk").
func termCase(art, term string) string {
	if art != "" || !strings.Contains(term, " ") {
		return term
	}
	return lowerFirst(term)
}

func startsArticle(s string) bool {
	a, _ := stripArticle(s)
	return a != ""
}

func withArticle(art, term string) string {
	if art == "" {
		return term
	}
	return art + " " + term
}

func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || !unicode.IsUpper(r) {
		return s
	}
	// Keep acronyms and names that stay capitalised ("PDF", "Go").
	if r2, _ := utf8.DecodeRuneInString(s[n:]); unicode.IsUpper(r2) {
		return s
	}
	return string(unicode.ToLower(r)) + s[n:]
}

// notGlossary are labels that open lines like glossary entries but are not terms.
var notGlossary = toSet(`note notes figure fig table example examples author authors date title page see warning
caution tip tips source sources keywords abstract summary chapter section subject from to cc bcc re email phone
address version copyright input output returns return usage syntax parameters parameter answer question q a step
remark proof definition theorem lemma corollary http https url link reference references isbn doi tel fax appendix
annex clause part figure`)

// glossary makes cards from lines of a passage that read as glossary or index entries
// with an explanation: "Term: explanation", "Term — explanation". A line counts when
// the passage has at least two such lines (a glossary is a list), or when its term is
// in Title Case; the explanation runs to the end of its sentence, its paragraph, or
// the next entry.
func glossary(text string) []Draft {
	type entry struct{ ts, te, bs int }
	var entries []entry
	var starts []int
	for off := 0; off < len(text); {
		end := strings.IndexByte(text[off:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += off
		}
		line := text[off:end]
		starts = append(starts, off)
		if m := glossLine.FindStringSubmatchIndex(line); m != nil {
			term := strings.TrimSpace(line[m[2]:m[3]])
			if termOK(term) && !notGlossary[strings.ToLower(strings.Fields(term)[0])] && strings.IndexFunc(term, unicode.IsDigit) < 0 {
				entries = append(entries, entry{off + m[2], off + m[2] + len(term), off + m[6]})
			}
		}
		off = end + 1
	}
	var out []Draft
	for k, e := range entries {
		term := text[e.ts:e.te]
		if len(entries) < 2 && !titleCase(term) {
			continue
		}
		limit := len(text)
		if k+1 < len(entries) {
			limit = lineStart(text, entries[k+1].ts)
		}
		be := explanationEnd(text, e.bs, limit)
		back := text[e.bs:be]
		if !backOK(back) || len(strings.Fields(back)) < 3 || debris(back) || strings.HasSuffix(strings.TrimRight(back, "."), ",") ||
			ingest.NavigationLine(term+" "+collapse(back)) || codesFirst(back) {
			continue
		}
		ls := lineStart(text, e.ts)
		out = append(out, Draft{Kind: KindGlossary, Front: collapse(term), Back: back, SpanStart: ls, SpanEnd: be})
	}
	return out
}

// explanationEnd is where a glossary explanation starting at s ends: after its first
// sentence, at a blank line, or at limit, whichever comes first (end punctuation kept).
func explanationEnd(text string, s, limit int) int {
	for i := s; i < limit; i++ {
		switch text[i] {
		case '.':
			if i+1 >= len(text) || isSpaceByte(text[i+1]) {
				if !abbreviationBefore(text, s, i) {
					return i + 1
				}
			}
		case '\n':
			if i+1 < len(text) && text[i+1] == '\n' {
				return trimRight(text, s, i)
			}
		}
	}
	return trimRight(text, s, limit)
}

// codesFirst reports whether an explanation opens with codes or numbers, as table rows
// read into lines do ("CR FF (0/13 0/12) C.6.3.4 …"), not with words.
func codesFirst(back string) bool {
	fs := strings.Fields(back)
	for _, f := range fs[:min(3, len(fs))] {
		if strings.IndexFunc(f, unicode.IsDigit) >= 0 {
			return true
		}
	}
	return len(fs) >= 2 && upperWord(fs[0]) && upperWord(fs[1])
}

func upperWord(w string) bool {
	return strings.IndexFunc(w, unicode.IsLetter) >= 0 && strings.ToUpper(w) == w && utf8.RuneCountInString(w) > 1
}

func titleCase(term string) bool {
	for _, f := range strings.Fields(term) {
		r, _ := utf8.DecodeRuneInString(f)
		if !unicode.IsUpper(r) && !stopwords[f] {
			return false
		}
	}
	return true
}

// emphasis makes cloze cards of terms a sentence sets in Markdown emphasis.
var emph = regexp.MustCompile(`\*\*([^*\n]{2,60})\*\*|__([^_\n]{2,60})__|(?:^|[\s(])[*_]([^*_\s][^*_\n]{1,58}[^*_\s])[*_](?:$|[\s.,;:)])`)

func emphasis(text string, s sentence) []Draft {
	t := text[s.s:s.e]
	var out []Draft
	for _, m := range emph.FindAllStringSubmatchIndex(t, -1) {
		for g := 2; g < len(m); g += 2 {
			if m[g] < 0 {
				continue
			}
			inner := t[m[g]:m[g+1]]
			if len(strings.Fields(inner)) > maxTermWords || strings.IndexFunc(inner, unicode.IsLetter) < 0 {
				continue
			}
			// The marks around the term go too: find them from the inner span.
			ms, me := m[g], m[g+1]
			for ms > 0 && (t[ms-1] == '*' || t[ms-1] == '_') {
				ms--
			}
			for me < len(t) && (t[me] == '*' || t[me] == '_') {
				me++
			}
			front := collapse(t[:ms] + Blank + t[me:])
			out = append(out, Draft{Kind: KindEmphasis, Front: front, Back: inner, SpanStart: s.s, SpanEnd: s.e})
		}
	}
	return out
}

// genericHeadings introduce no term.
var genericHeadings = toSet(`introduction conclusion conclusions abstract references bibliography contents index summary
overview preface foreword acknowledgments acknowledgements appendix chapter part background discussion results methods
method notes glossary examples example exercises problems solutions answers questions preliminaries motivation
outline related work future evaluation experiments implementation definitions terms scope general abbreviations
symbols conventions terminology notation introduction`)

var headingNumber = regexp.MustCompile(`^(?:(?:chapter|section|part|appendix)\s+)?[\dIVXivx]+(?:\.\d+)*\.?\s+`)

// heading makes a cloze card of the term a passage's section heading introduces: the
// first prose sentence of the passage that names it, with the name blanked.
func heading(p Passage, sents []sentence) (Draft, bool) {
	title := strings.TrimSpace(headingNumber.ReplaceAllString(strings.TrimSpace(p.Section), ""))
	fs := strings.Fields(title)
	if len(fs) == 0 || len(fs) > 4 || genericHeadings[strings.ToLower(fs[0])] || !termOK(title) {
		return Draft{}, false
	}
	lowTitle := strings.ToLower(title)
	for _, s := range sents {
		if !prose(p.Text, s) {
			continue
		}
		t := p.Text[s.s:s.e]
		i := strings.Index(strings.ToLower(t), lowTitle)
		if i < 0 || !wordBoundary(t, i, i+len(lowTitle)) {
			continue
		}
		back := t[i : i+len(lowTitle)]
		if strings.ToLower(back) != lowTitle {
			continue // lower-casing changed byte lengths
		}
		front := collapse(t[:i] + Blank + t[i+len(back):])
		return Draft{Kind: KindHeading, Front: front, Back: back, SpanStart: s.s, SpanEnd: s.e}, true
	}
	return Draft{}, false
}

func wordBoundary(t string, s, e int) bool {
	if s > 0 {
		r, _ := utf8.DecodeLastRuneInString(t[:s])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	if e < len(t) {
		r, _ := utf8.DecodeRuneInString(t[e:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// cloze makes one cloze card for a passage: of its prose sentences, the one whose rarest
// word is rarest, with that word blanked. The word must be a word (letters, four or
// more), not a stop word, not the sentence's first word, and occur in at least two
// passages, so that a typo or an extraction fault is never the answer.
func cloze(text string, sents []sentence, rare *idf) (Draft, bool) {
	best, bestScore := Draft{}, 0.0
	for _, s := range sents {
		if !prose(text, s) {
			continue
		}
		t := text[s.s:s.e]
		ws := words(t)
		for k, w := range ws {
			low := strings.ToLower(w.text)
			acronym := upperWord(w.text) && lettersOnly(w.text)
			if k == 0 || (utf8.RuneCountInString(w.text) < 4 && !acronym) || !lettersOnly(w.text) || stopwords[low] || rare.df[low] < 2 {
				continue
			}
			if strings.ContainsAny(w.text, "-'’") && w.e < len(t) && t[w.e] == '\n' {
				continue
			}
			// A word split at a line end ("compu-\ntation") is not a word.
			if w.e < len(t) && t[w.e] == '-' {
				continue
			}
			score := rare.of(low) * termness(w.text)
			if k > 0 {
				score *= before(strings.ToLower(ws[k-1].text))
			}
			if score > bestScore {
				front := collapse(t[:w.s] + Blank + t[w.e:])
				best, bestScore = Draft{Kind: KindCloze, Front: front, Back: w.text, SpanStart: s.s, SpanEnd: s.e}, score
			}
		}
	}
	// A word in most passages is no test of anything.
	if bestScore < 0.7 {
		return Draft{}, false
	}
	return best, true
}

// termness weighs a rare word by how much it reads as a term rather than as rare
// wording: names and acronyms (capitals inside a sentence) and long words up, words
// with the endings of verb forms and adverbs ("-ed", "-ing", "-ly") down. Measured on
// the pdfcpu corpus, plain rarity blanked "writing", "bypassed", "employ".
func termness(w string) float64 {
	f := 1.0
	r, _ := utf8.DecodeRuneInString(w)
	if unicode.IsUpper(r) {
		f *= 1.5
	}
	if utf8.RuneCountInString(w) >= 8 {
		f *= 1.2
	}
	l := strings.ToLower(w)
	if strings.HasSuffix(l, "ed") || strings.HasSuffix(l, "ing") || strings.HasSuffix(l, "ly") {
		f *= 0.6
	}
	return f
}

// Words before a blank that say what it is: a determiner or preposition before a noun,
// a modal or "to" before a verb.
var (
	beforeNoun = toSet(`the a an this that these those its their our his her each every any some no of in on for with by from into`)
	beforeVerb = toSet(`may can will would should must could might shall does do did to not`)
)

// before weighs a cloze candidate by the word before it: terms are nouns.
func before(prev string) float64 {
	switch {
	case beforeNoun[prev]:
		return 1.3
	case beforeVerb[prev]:
		return 0.6
	}
	return 1
}
