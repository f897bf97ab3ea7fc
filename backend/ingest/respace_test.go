package ingest

import (
	"context"
	"strings"
	"testing"
)

func TestTcSpacedContent(t *testing.T) {
	// The pattern of TheGoProgrammingLanguageCh1.pdf: a word's last
	// letter drawn after Tc is set to about a space's width.
	var spaced strings.Builder
	spaced.WriteString("BT /T1_2 10 Tf ")
	for range 30 {
		spaced.WriteString("(Th)Tj 2.779 Tc 11.47 0 Td (ef)Tj 0 Tc 10.049 0 Td [(io)12(n)]TJ ")
	}
	spaced.WriteString("ET")
	// Ordinary text, with one letter-spaced heading.
	var plain strings.Builder
	plain.WriteString("BT /F1 24 Tf 6 Tc (T I T L E) Tj 0 Tc /F1 10 Tf ")
	for range 100 {
		plain.WriteString("[(Some )-20(words )]TJ 0 -12 Td (More words) Tj 0.1 Tc (x) Tj 0 Tc ")
	}
	plain.WriteString("ET")
	if !tcSpacedContent([]byte(spaced.String())) {
		t.Error("Tc-spaced content not recognised")
	}
	if tcSpacedContent([]byte(plain.String())) {
		t.Error("ordinary content taken for Tc-spaced")
	}
}

// TestRespacedDocument checks the words PDFium alone glues or splits on
// the corpus document that spaces words with Tc.
func TestRespacedDocument(t *testing.T) {
	doc, err := File(context.Background(), corpusFile(t, "TheGoProgrammingLanguageCh1.pdf"), nil)
	if err != nil {
		t.Fatal(err)
	}
	p := doc.Pages[29].Text
	for _, want := range []string{"The function os.Open returns two values. The first is an open file", "Our simple-minded error handling"} {
		if !strings.Contains(p, want) {
			t.Errorf("page 30 lacks %q:\n%s", want, p)
		}
	}
}
