package library

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// PageWords is where the words of a page read by OCR are: a scanned page has no text
// layer, so the viewer highlights a passage by drawing over these boxes.
type PageWords struct {
	// Width and Height are the page's size as displayed (crop box, rotated), in points.
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
	// Words are in the order of the page's text.
	Words []Word `json:"words"`
}

// Word is one word of a page and its box.
type Word struct {
	// Text is the page text at [Start, End); filled in by [Library.PageWords].
	Text string `json:"text"`
	// X0, Y0, X1, Y1 is the box in PDF user space (points, origin at the bottom left of
	// the media box, before /Rotate), X0 < X1 and Y0 < Y1.
	X0 float64 `json:"x0"`
	Y0 float64 `json:"y0"`
	X1 float64 `json:"x1"`
	Y1 float64 `json:"y1"`
	// Start and End are rune (code point) offsets of the word in the page text.
	Start int `json:"start"`
	End   int `json:"end"`
}

// wordsFormat is the first byte of a packed words blob, so that the packing can change.
const wordsFormat = 1

// ReplacePageWords stores the word boxes of a document's OCR'd pages (1-based page
// number → words), replacing any it had. Pages not in the map have none.
func (l *Library) ReplacePageWords(ctx context.Context, docID string, pages map[int]PageWords) error {
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store word boxes of %s: %w", docID, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM page_words WHERE doc_id=?`, docID); err != nil {
		return fmt.Errorf("store word boxes of %s: %w", docID, err)
	}
	if len(pages) > 0 {
		st, err := tx.PrepareContext(ctx, `INSERT INTO page_words (doc_id, number, width, height, words) VALUES (?,?,?,?,?)`)
		if err != nil {
			return fmt.Errorf("store word boxes of %s: %w", docID, err)
		}
		defer st.Close()
		for n, p := range pages {
			if len(p.Words) == 0 {
				continue
			}
			blob, err := packWords(p.Words)
			if err != nil {
				return fmt.Errorf("store word boxes of page %d of %s: %w", n, docID, err)
			}
			if _, err := st.ExecContext(ctx, docID, n, p.Width, p.Height, blob); err != nil {
				return fmt.Errorf("store word boxes of page %d of %s: %w", n, docID, err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store word boxes of %s: %w", docID, err)
	}
	return nil
}

// PageWords returns the word boxes of a document's page (1-based) with each word's
// text, or a zero PageWords when the page has none (not read by OCR, or ingested before
// boxes were kept).
func (l *Library) PageWords(ctx context.Context, docID string, page int) (PageWords, error) {
	var (
		pw   PageWords
		blob []byte
		text sql.NullString
	)
	err := l.db.QueryRowContext(ctx, `SELECT w.width, w.height, w.words, p.text FROM page_words w
		LEFT JOIN pages p ON p.doc_id = w.doc_id AND p.number = w.number
		WHERE w.doc_id=? AND w.number=?`, docID, page).Scan(&pw.Width, &pw.Height, &blob, &text)
	if errors.Is(err, sql.ErrNoRows) {
		return PageWords{}, nil
	}
	if err != nil {
		return PageWords{}, fmt.Errorf("word boxes of page %d of %s: %w", page, docID, err)
	}
	words, err := unpackWords(blob)
	if err != nil {
		return PageWords{}, fmt.Errorf("word boxes of page %d of %s: %w", page, docID, err)
	}
	runes := []rune(text.String)
	pw.Words = words[:0]
	for _, w := range words {
		// Boxes are only worth their offsets: a page whose text no longer holds them
		// gives no word rather than a wrong one.
		if w.End > len(runes) {
			break
		}
		w.Text = string(runes[w.Start:w.End])
		pw.Words = append(pw.Words, w)
	}
	if len(pw.Words) == 0 {
		return PageWords{}, nil
	}
	return pw, nil
}

// packWords writes words as varints: per word the gap since the previous word's end and
// its length in runes, then its box in hundredths of a point (x0, y0, width, height).
// About 14 bytes a word, against about 90 as JSON.
func packWords(words []Word) ([]byte, error) {
	b := make([]byte, 0, 1+len(words)*14)
	b = append(b, wordsFormat)
	at := 0
	for _, w := range words {
		if w.Start < at || w.End <= w.Start {
			return nil, fmt.Errorf("word [%d,%d) out of order after %d", w.Start, w.End, at)
		}
		b = binary.AppendUvarint(b, uint64(w.Start-at))
		b = binary.AppendUvarint(b, uint64(w.End-w.Start))
		for _, v := range [4]float64{w.X0, w.Y0, w.X1 - w.X0, w.Y1 - w.Y0} {
			if math.IsNaN(v) || math.Abs(v) > 1e7 {
				return nil, fmt.Errorf("word [%d,%d) has a box coordinate of %g", w.Start, w.End, v)
			}
			b = binary.AppendVarint(b, int64(math.Round(v*100)))
		}
		at = w.End
	}
	return b, nil
}

func unpackWords(b []byte) ([]Word, error) {
	if len(b) == 0 || b[0] != wordsFormat {
		return nil, errors.New("unknown packing of word boxes")
	}
	b = b[1:]
	var words []Word
	at := 0
	uv := func() (int, bool) {
		v, n := binary.Uvarint(b)
		if n <= 0 || v > math.MaxInt32 {
			return 0, false
		}
		b = b[n:]
		return int(v), true
	}
	sv := func() (float64, bool) {
		v, n := binary.Varint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return float64(v) / 100, true
	}
	for len(b) > 0 {
		gap, ok1 := uv()
		n, ok2 := uv()
		x, ok3 := sv()
		y, ok4 := sv()
		w, ok5 := sv()
		h, ok6 := sv()
		if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
			return nil, errors.New("truncated word boxes")
		}
		if n == 0 || max(math.Abs(x), math.Abs(y), math.Abs(w), math.Abs(h)) > 1e7 {
			return nil, errors.New("damaged word boxes")
		}
		start := at + gap
		at = start + n
		words = append(words, Word{X0: x, Y0: y, X1: x + w, Y1: y + h, Start: start, End: at})
	}
	return words, nil
}

// WordPages returns the 1-based pages of a document that have word boxes.
func (l *Library) WordPages(ctx context.Context, docID string) ([]int, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT number FROM page_words WHERE doc_id=? ORDER BY number`, docID)
	if err != nil {
		return nil, fmt.Errorf("pages with word boxes of %s: %w", docID, err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var n int
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("pages with word boxes of %s: %w", docID, err)
		}
		out = append(out, n)
	}
	return out, rows.Err()
}
