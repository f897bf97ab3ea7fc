package library

import (
	"context"
	"math"
	"testing"
)

// verifies word boxes round-trip through the database with their text taken from the
// page, survive reopening, are replaced by a new ingest, and go with their document.
func TestPageWords(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	l, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.PutDocument(ctx, &Document{ID: "scan", Path: "/x/s.pdf", Kind: "pdf", Pages: 2, Status: StatusExtracting}); err != nil {
		t.Fatal(err)
	}
	if err := l.ReplaceContent(ctx, "scan", []string{"text layer", "Ωmega café\nnext line"}, nil); err != nil {
		t.Fatal(err)
	}
	words := []Word{
		{X0: 72, Y0: 700.25, X1: 120.5, Y1: 712, Start: 0, End: 5},
		{X0: 125.01, Y0: 700.25, X1: 160, Y1: 712, Start: 6, End: 10},
		{X0: 72, Y0: 680, X1: 99.99, Y1: 692.5, Start: 11, End: 15},
		{X0: -3.5, Y0: 680, X1: 130, Y1: 692.5, Start: 16, End: 20},
	}
	if err := l.ReplacePageWords(ctx, "scan", map[int]PageWords{2: {Width: 612, Height: 792, Words: words}}); err != nil {
		t.Fatal(err)
	}
	l.Close()
	if l, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	defer l.Close()

	got, err := l.PageWords(ctx, "scan", 2)
	if err != nil {
		t.Fatal(err)
	}
	if got.Width != 612 || got.Height != 792 || len(got.Words) != 4 {
		t.Fatalf("page 2 words = %+v", got)
	}
	for k, want := range []string{"Ωmega", "café", "next", "line"} {
		w := got.Words[k]
		if w.Text != want || w.Start != words[k].Start || w.End != words[k].End {
			t.Errorf("word %d = %q [%d,%d), want %q", k, w.Text, w.Start, w.End, want)
		}
		for _, d := range []float64{w.X0 - words[k].X0, w.Y0 - words[k].Y0, w.X1 - words[k].X1, w.Y1 - words[k].Y1} {
			if math.Abs(d) > 0.006 {
				t.Errorf("word %d box %+v, want %+v", k, w, words[k])
			}
		}
	}
	if none, err := l.PageWords(ctx, "scan", 1); err != nil || none.Words != nil {
		t.Errorf("page 1 (no OCR) = %+v, %v", none, err)
	}

	// Words out of order are refused; nothing stored changes.
	bad := []Word{{Start: 6, End: 10}, {Start: 0, End: 5}}
	if err := l.ReplacePageWords(ctx, "scan", map[int]PageWords{2: {Words: bad}}); err == nil {
		t.Error("words out of order were stored")
	}
	if again, _ := l.PageWords(ctx, "scan", 2); len(again.Words) != 4 {
		t.Errorf("a refused replace changed the words: %+v", again)
	}

	// A re-ingest without OCR boxes drops them.
	if err := l.ReplacePageWords(ctx, "scan", nil); err != nil {
		t.Fatal(err)
	}
	if gone, _ := l.PageWords(ctx, "scan", 2); gone.Words != nil {
		t.Errorf("words after replacing with none: %+v", gone)
	}

	// Removing the document removes its words.
	if err := l.ReplacePageWords(ctx, "scan", map[int]PageWords{2: {Width: 1, Height: 1, Words: words}}); err != nil {
		t.Fatal(err)
	}
	if err := l.DeleteDocument(ctx, "scan"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := l.db.QueryRow(`SELECT count(*) FROM page_words`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d word rows left after removing the document (%v)", n, err)
	}
}

// verifies a damaged blob is an error, not a panic or wrong boxes.
func TestUnpackWordsDamaged(t *testing.T) {
	b, err := packWords([]Word{{X0: 1, Y0: 2, X1: 3, Y1: 4, Start: 0, End: 3}})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]byte{nil, {9}, b[:len(b)-1]} {
		if _, err := unpackWords(bad); err == nil {
			t.Errorf("unpackWords(%v) took damaged input", bad)
		}
	}
}

// verifies the packing stays compact on a page-sized layout: about 12 bytes a word
// (against about 90 as JSON), so a scanned book of 500 pages of 400 words adds ~2.4 MB.
func TestPackWordsSize(t *testing.T) {
	var words []Word
	at := 0
	for k := range 400 {
		x, y := 72+float64(k%12)*40.37, 720-float64(k/12)*14.13
		words = append(words, Word{X0: x, Y0: y, X1: x + 31.29, Y1: y + 9.87, Start: at, End: at + 5})
		at += 6
	}
	b, err := packWords(words)
	if err != nil {
		t.Fatal(err)
	}
	if per := float64(len(b)) / float64(len(words)); per > 13 {
		t.Errorf("%.1f bytes a word, want ≤ 13", per)
	}
	back, err := unpackWords(b)
	if err != nil || len(back) != len(words) || back[399].End != words[399].End || math.Abs(back[399].Y1-words[399].Y1) > 0.006 {
		t.Errorf("round trip: %d words, last %+v, %v", len(back), back[len(back)-1], err)
	}
}

// FuzzUnpackWords checks that any blob read back from the database either is refused or
// gives words that pack again and read back the same. Fuzz with `go test -fuzz FuzzUnpackWords ./backend/library`.
func FuzzUnpackWords(f *testing.F) {
	b, _ := packWords([]Word{{X0: 72, Y0: 700.25, X1: 120.5, Y1: 712, Start: 0, End: 5}, {X0: -3, Y0: 1, X1: 4, Y1: 2, Start: 9, End: 10}})
	f.Add(b)
	f.Add([]byte{wordsFormat})
	f.Add([]byte{wordsFormat, 0x80})
	f.Fuzz(func(t *testing.T, blob []byte) {
		words, err := unpackWords(blob)
		if err != nil {
			return
		}
		again, err := packWords(words)
		if err != nil {
			t.Fatalf("words read back cannot be stored again: %v (%+v)", err, words)
		}
		back, err := unpackWords(again)
		if err != nil || len(back) != len(words) {
			t.Fatalf("repacked %d words to %d (%v)", len(words), len(back), err)
		}
		for i := range back {
			if back[i] != words[i] {
				t.Fatalf("word %d: %+v became %+v", i, words[i], back[i])
			}
		}
	})
}
