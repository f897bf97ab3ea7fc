package index

import (
	"slices"
	"strings"
	"unicode"
)

// English asks about the past with "did" and the verb's base form: "Why did Thoreau go to
// the woods?" is answered by "I went to the woods". Stemming meets regular pasts (walk,
// walked) but not irregular ones (go, went), so a question asked that way misses the
// passage that tells it. PastForms maps the simple past of each irregular verb such a
// question holds in its base form to that base ({"went": "go"}): "did go" is the simple
// past, so not the participle ("gone" belongs to "has gone"). A question that writes the
// past itself ("which battle took place") already has the form the text uses and is left
// alone, as is one without "did": a base verb there ("how do I write a file") asks about
// the present.
func PastForms(question string) map[string]string {
	words := strings.FieldsFunc(strings.ToLower(question), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\'' && r != '’'
	})
	if !slices.ContainsFunc(words, func(w string) bool {
		return w == "did" || strings.HasPrefix(w, "didn")
	}) {
		return nil
	}
	var out map[string]string
	for _, w := range words {
		if p, ok := irregularPast[w]; ok {
			if out == nil {
				out = map[string]string{}
			}
			out[p] = w
		}
	}
	return out
}

// irregularPast is the simple past of common English verbs that stemming does not bring
// back to the base form. Left out: verbs whose past is as common as another word
// (leave/left, see/saw, find/found, fall/fell, lie/lay, wind/wound, grind/ground,
// bind/bound, rise/rose, light/lit, feel/felt, speak/spoke, bite/bit), which would bring
// in passages about directions, tools, foundations and fabrics; be, have and do, stop
// words; and verbs whose past is the base (cut, put, set, let, beat).
var irregularPast = map[string]string{
	"arise": "arose", "awake": "awoke", "bear": "bore", "become": "became", "begin": "began",
	"bend": "bent", "bleed": "bled", "blow": "blew", "break": "broke",
	"breed": "bred", "bring": "brought", "build": "built", "buy": "bought", "catch": "caught",
	"choose": "chose", "cling": "clung", "come": "came", "creep": "crept", "deal": "dealt",
	"dig": "dug", "draw": "drew", "drink": "drank", "drive": "drove", "eat": "ate",
	"feed": "fed", "fight": "fought", "flee": "fled", "fling": "flung", "fly": "flew",
	"forbid": "forbade", "forget": "forgot", "forgive": "forgave", "forsake": "forsook",
	"freeze": "froze", "get": "got", "give": "gave", "go": "went", "grow": "grew",
	"hang": "hung", "hear": "heard", "hide": "hid", "hold": "held", "keep": "kept",
	"kneel": "knelt", "know": "knew", "lay": "laid", "lead": "led", "lend": "lent",
	"lose": "lost", "make": "made", "mean": "meant", "meet": "met", "pay": "paid",
	"ride": "rode", "ring": "rang", "run": "ran", "say": "said", "seek": "sought",
	"sell": "sold", "send": "sent", "shake": "shook", "shine": "shone", "shoot": "shot",
	"shrink": "shrank", "sing": "sang", "sink": "sank", "sit": "sat", "sleep": "slept",
	"slide": "slid", "spend": "spent", "spin": "spun", "spring": "sprang", "stand": "stood",
	"steal": "stole", "stick": "stuck", "sting": "stung", "strike": "struck",
	"strive": "strove", "swear": "swore", "sweep": "swept", "swim": "swam", "swing": "swung",
	"take": "took", "teach": "taught", "tear": "tore", "tell": "told", "think": "thought",
	"throw": "threw", "tread": "trod", "understand": "understood", "undertake": "undertook",
	"wake": "woke", "wear": "wore", "weave": "wove", "weep": "wept", "win": "won",
	"withdraw": "withdrew", "write": "wrote",
}
