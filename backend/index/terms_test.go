package index

import "testing"

// verifies QueryTerms analyses a question like the text (stemmed, stop words out, each
// term once) and weighs absent terms highest, and TextTerms agrees with it.
func TestQueryTerms(t *testing.T) {
	l, err := OpenLexical(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	err = l.Add([]LexDoc{
		{ID: "1", DocID: "d", Text: "The loons were diving in the pond"},
		{ID: "2", DocID: "d", Text: "Ice on the pond"},
		{ID: "3", DocID: "d", Text: "An introduction to loons"},
	})
	if err != nil {
		t.Fatal(err)
	}
	tw, err := l.QueryTerms("Was the pond diving? The pond! Where is Kyoto?")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]TermWeight{}
	for _, w := range tw {
		if _, dup := got[w.Term]; dup {
			t.Errorf("term %q twice", w.Term)
		}
		got[w.Term] = w
	}
	pond, dive, kyoto := got["pond"], got["dive"], got["kyoto"]
	if len(got) != 3 || pond.DF != 2 || dive.DF != 1 || kyoto.DF != 0 {
		t.Fatalf("terms %+v, want pond df 2, dive df 1, kyoto df 0", got)
	}
	if !(kyoto.IDF > dive.IDF && dive.IDF > pond.IDF && pond.IDF > 0) {
		t.Errorf("IDF order wrong: %+v", got)
	}
	if have := l.TextTerms("Diving loons"); !have["dive"] || have["pond"] {
		t.Errorf("TextTerms = %v", have)
	}
	if kyoto.Known || pond.Known {
		t.Errorf("Known set on a word held whole or not at all: %+v", got)
	}
	// A shortened word the passages hold longer is known, though no passage holds it;
	// the same through the terms a search keeps (memoTerms). Three letters are too few.
	for _, search := range []bool{false, true} {
		q := "the intro on loo"
		if search {
			if _, err := l.Search(q, 5, nil); err != nil {
				t.Fatal(err)
			}
		}
		tw, err := l.QueryTerms(q)
		if err != nil {
			t.Fatal(err)
		}
		known := map[string]bool{}
		for _, w := range tw {
			known[w.Term] = w.Known
		}
		if !known["intro"] || known["loo"] {
			t.Errorf("after search %v: known %v, want intro known (introduction) and loo not", search, known)
		}
	}
}
