package study

import "sort"

// Extract is a sentence chosen from a passage: Passage indexes the texts given to
// KeySentences, Start and End are byte offsets in that text.
type Extract struct {
	Passage    int
	Start, End int
}

// KeySentences picks up to n sentences that best stand for a section's passages, for a
// summary made with no model: prose sentences (as cards require) scored by how many of
// the section's other sentences share their content words, returned in reading order.
// Navigation passages and sentences across page breaks are never picked.
func KeySentences(passages []Passage, n int) []Extract {
	type cand struct {
		x     Extract
		terms []string
		score float64
	}
	var cands []cand
	seen := map[string]bool{} // passages overlap: a sentence is a candidate once
	for i, p := range passages {
		if navigation(p.Text) {
			continue
		}
		for _, s := range sentences(p.Text) {
			if !prose(p.Text, s) || crosses(p.Breaks, s) || seen[collapse(p.Text[s.s:s.e])] {
				continue
			}
			seen[collapse(p.Text[s.s:s.e])] = true
			cands = append(cands, cand{x: Extract{Passage: i, Start: s.s, End: s.e}, terms: contentTerms(p.Text[s.s:s.e])})
		}
	}
	// How many sentences use each word: a sentence of widely used words is central.
	df := map[string]int{}
	for _, c := range cands {
		for _, t := range c.terms {
			df[t]++
		}
	}
	for i := range cands {
		sum := 0
		for _, t := range cands[i].terms {
			sum += df[t] - 1
		}
		if len(cands[i].terms) > 0 {
			cands[i].score = float64(sum) / float64(len(cands[i].terms))
		}
	}
	order := make([]int, len(cands))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return cands[order[a]].score > cands[order[b]].score })
	pick := order[:min(n, len(order))]
	sort.Ints(pick) // reading order
	out := make([]Extract, len(pick))
	for i, k := range pick {
		out[i] = cands[k].x
	}
	return out
}
