// Package rerank reorders retrieved passages by reading the question and each passage
// together, locally and in microseconds: a lexical reader.
//
// Retrieval ranks each passage by a bag of words (BM25) or by one vector per passage; neither
// sees how the question's words sit in the passage. The reader does, on the few passages
// retrieval returned:
//
//   - coverage: the share of the question's term weight (IDF) the passage holds at all;
//   - proximity: the share of the question's adjacent term pairs that occur in the passage
//     in the same order within a few words ("scan order" in "the order of the scan" does
//     not count; "scan order" and "order of scan" both hold scan→order as the question
//     wrote it), which rewards a passage that states the question's phrase;
//   - heading: the share of the question's term weight in the passage's section heading.
//
// The reader's score ranks the passages once more, and the final order fuses that rank
// with retrieval's by Reciprocal Rank Fusion, so the reader moves a passage only when it
// reads clearly better than its neighbours, and ties keep retrieval's order. An LLM judge
// through the chat model was the other design; on a CPU it costs seconds per passage,
// more than the whole answer, so it is not used.
//
// Measured on the 60 dev questions with MiniLM (docs/retrieval.md), it lifts MRR@10 in
// hybrid mode 0.637 -> 0.676 and in lexical mode 0.521 -> 0.593, hit@5 not lower in either,
// so the engine runs it unless CARREL_RERANK=off. Each question moves a rank or two: on the
// first 20 questions alone it had looked like no gain. Given a pool of 30 passages rather
// than the 10 asked for (engine.RerankPool), MRR@10 rises further: hybrid 0.687 -> 0.703,
// lexical 0.593 -> 0.634.
package rerank

import (
	"sort"
)

// Weights of the reader's signals, relative to coverage. Set from the design above, not
// fitted to a question set: phrase evidence counts half as much as holding the words at
// all, a heading match a quarter.
const (
	WeightProximity = 0.5
	WeightHeading   = 0.25
	// Window is how far apart (in analysed terms, stop words already removed) two
	// adjacent question terms may be and still count as near.
	Window = 3
	// RRFK is the rank constant of the fusion with retrieval's order.
	RRFK = 60
)

// Passage is what the reader reads of one retrieved passage.
type Passage struct {
	Text    string
	Section string // heading path; may be empty
}

// Reader scores passages against a question.
type Reader struct {
	// Analyze turns text into its analysed terms in order (stemmed, stop words out), as
	// the lexical index does, so that a question's words meet the passage's forms.
	Analyze func(text string) []string
	// Weight is a term's weight (the lexical index's IDF); nil weighs every term 1.
	Weight func(term string) float64
}

// Score returns the reader's score of each passage for question: coverage plus
// WeightProximity × proximity plus WeightHeading × heading, each in [0, 1].
func (r Reader) Score(question string, ps []Passage) []float64 {
	q := r.Analyze(question)
	out := make([]float64, len(ps))
	if len(q) == 0 {
		return out
	}
	w := func(t string) float64 {
		if r.Weight == nil {
			return 1
		}
		return r.Weight(t)
	}
	distinct := map[string]float64{}
	var total float64
	for _, t := range q {
		if _, ok := distinct[t]; !ok {
			distinct[t] = w(t)
			total += distinct[t]
		}
	}
	type pair struct{ a, b string }
	var pairs []pair
	var pairTotal float64
	for i := 1; i < len(q); i++ {
		if q[i] != q[i-1] {
			pairs = append(pairs, pair{q[i-1], q[i]})
			pairTotal += min(distinct[q[i-1]], distinct[q[i]])
		}
	}
	if total == 0 {
		return out
	}
	for i, p := range ps {
		pos := map[string][]int{}
		for j, t := range r.Analyze(p.Text) {
			if _, ok := distinct[t]; ok {
				pos[t] = append(pos[t], j)
			}
		}
		var cov float64
		for t, wt := range distinct {
			if len(pos[t]) > 0 {
				cov += wt
			}
		}
		var prox float64
		for _, pr := range pairs {
			if near(pos[pr.a], pos[pr.b]) {
				prox += min(distinct[pr.a], distinct[pr.b])
			}
		}
		var head float64
		if p.Section != "" {
			seen := map[string]bool{}
			for _, t := range r.Analyze(p.Section) {
				if wt, ok := distinct[t]; ok && !seen[t] {
					seen[t] = true
					head += wt
				}
			}
		}
		s := cov / total
		if pairTotal > 0 {
			s += WeightProximity * prox / pairTotal
		}
		s += WeightHeading * head / total
		out[i] = s
	}
	return out
}

// near reports whether some position in b follows one in a by 1..Window (both sorted).
func near(a, b []int) bool {
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] <= x {
			j++
		}
		if j < len(b) && b[j]-x <= Window {
			return true
		}
	}
	return false
}

// Order returns the indices of ps (given in retrieval's order, best first) in their new
// order: retrieval's rank and the reader's rank fused by Reciprocal Rank Fusion, ties in
// retrieval's order.
func (r Reader) Order(question string, ps []Passage) []int {
	scores := r.Score(question, ps)
	byReader := make([]int, len(ps))
	for i := range byReader {
		byReader[i] = i
	}
	sort.SliceStable(byReader, func(a, b int) bool { return scores[byReader[a]] > scores[byReader[b]] })
	fused := make([]float64, len(ps))
	for rank, i := range byReader {
		// Equal reader scores share the better rank, so a tie never moves anything.
		for rank > 0 && scores[byReader[rank-1]] == scores[i] {
			rank--
		}
		fused[i] = 1/float64(RRFK+i+1) + 1/float64(RRFK+rank+1)
	}
	order := make([]int, len(ps))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return fused[order[a]] > fused[order[b]] })
	return order
}
