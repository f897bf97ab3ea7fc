package pdftext

import (
	"strconv"
	"testing"
)

func TestParseNum(t *testing.T) {
	for s, want := range map[string]float64{
		"0": 0, "12": 12, "-3": -3, "+4": 4, "1.5": 1.5, "-.25": -0.25, ".5": 0.5, "5.": 5,
		"123456789012.345": 123456789012.345, "1.2.3": 1.2, "--5": 0, "-": 0, ".": 0,
		"12345678901234567890": 12345678901234567890,
	} {
		if got := parseNum([]byte(s)); got != want {
			t.Errorf("parseNum(%q) = %v, want %v", s, got, want)
		}
	}
	for i := -2000; i <= 2000; i += 7 {
		s := strconv.FormatFloat(float64(i)/64, 'f', -1, 64)
		want, _ := strconv.ParseFloat(s, 64)
		if got := parseNum([]byte(s)); got != want {
			t.Errorf("parseNum(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestLexerArrays checks that arrays read from the arena stay intact while
// later arrays before the same operator are read.
func TestLexerArrays(t *testing.T) {
	l := &lexer{b: []byte("[(a) 1 [2 3]] [(b)] TJ")}
	a, _ := l.next(0)
	b, _ := l.next(0)
	op, _ := l.next(0)
	if a.kind != kArr || len(a.arr) != 3 || string(a.arr[0].str) != "a" || a.arr[1].num != 1 || len(a.arr[2].arr) != 2 {
		t.Errorf("first array %+v", a)
	}
	if b.kind != kArr || len(b.arr) != 1 || string(b.arr[0].str) != "b" {
		t.Errorf("second array %+v", b)
	}
	if op.kind != kOp || string(op.str) != "TJ" {
		t.Errorf("operator %+v", op)
	}
}
