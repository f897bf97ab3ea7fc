package ingest

import (
	"context"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/carrel-app/carrel/backend/document"
)

// verifies document types on real PDFs whose kind was checked by hand.
func TestDetectTypeCorpus(t *testing.T) {
	for name, want := range map[string]document.Type{
		"schmager_plateau10.pdf":          document.TypePaper,    // abstract, IMRaD sections, references
		"jphysiol01396-0132.pdf":          document.TypePaper,    // a 1955 journal article: methods, results, summary, references
		"ECSTR11-01.pdf":                  document.TypePaper,    // a thesis: abstract, 226 citations, references
		"gobook.0.pdf":                    document.TypeTextbook, // ISBN, chapters of prose and code, problems
		"TheGoProgrammingLanguageCh1.pdf": document.TypeTextbook, // Chapter 1 with numbered exercises
		"T4.pdf":                          document.TypeDocs,     // an ITU-T standard ("shall")
		"adobe_errata.pdf":                document.TypeDocs,     // errata to the PDF reference
		"xdp_2.0.pdf":                     document.TypeDocs,     // an XML specification
		"read.go.pdf":                     document.TypeCode,     // a printed Go source file with line numbers
		"WaldenFull.pdf":                  document.TypeGeneral,  // literature
		"Walden.pdf":                      document.TypeGeneral,
		"CenterOfWhy.pdf":                 document.TypeGeneral, // a lecture
	} {
		doc, err := FileWithOptions(context.Background(), corpusFile(t, name), noOCR)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if doc.DocType != want {
			t.Errorf("%s: DocType %q, want %q (%+v)", name, doc.DocType, want, extractFeatures(doc))
		}
	}
}

// verifies document types of other formats, and of text whose content
// says more than its extension.
func TestDetectTypeFormats(t *testing.T) {
	cases := []struct {
		name, file, text string
		want             document.Type
	}{
		{"mail", "note.eml", "From: Ada <ada@example.org>\r\nTo: b@example.org\r\nSubject: Monday\r\n\r\nSee you at nine.\r\n", document.TypeMail},
		{"mail saved as text", "fwd.txt", "From: Ada Lovelace\nSent: Monday, 3 March 2025 09:12\nTo: Charles Babbage\nSubject: The engine\n\nDear Charles, the notes are done.\n", document.TypeMail},
		{"source", "main.go", "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n", document.TypeCode},
		{"readme", "README.md", "# carrel\n\nA study desk.\n\n## Installation\n\n```sh\ngo install github.com/carrel-app/carrel@latest\n```\n\n## Usage\n\nRun `carrel ingest PATH` to add files; `carrel search --json QUESTION` to search.\n\n```sh\ncarrel --library ~/lib ingest paper.pdf\n```\n\n## Configuration\n\nSet `OLLAMA_HOST` and `chat_model` in config.json.\n\n## Troubleshooting\n\nIf `ollama_host` is wrong, searchByWords() still works.\n", document.TypeDocs},
		{"paper in markdown", "paper.md", "# Sparse retrieval for small libraries\n\nA. Author, B. Author\n\n## Abstract\n\nWe study BM25 on personal libraries [1]. Dense retrieval helps (Karpukhin et al., 2020).\n\nKeywords: retrieval, BM25\n\ndoi:10.1145/3404835.3463098\n\n## Introduction\n\nLibraries are small [2, 3]. Prior work [4] disagrees.\n\n## Methods\n\nWe index [5].\n\n## Results\n\nIt works [6].\n\n## Discussion\n\nSee [7].\n\n## References\n\n[1] Robertson, S. The probabilistic relevance framework. 2009.\n", document.TypePaper},
		{"notes", "notes.txt", "Walden, chapter on solitude.\n\nThoreau writes of the pleasant evening when the whole body is one sense.\nHe walks along the stony shore of the pond in his shirt-sleeves.\n", document.TypeGeneral},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc, err := File(context.Background(), writeFile(t, c.file, []byte(c.text)), nil)
			if err != nil {
				t.Fatal(err)
			}
			if doc.DocType != c.want {
				t.Errorf("DocType %q, want %q (%+v)", doc.DocType, c.want, extractFeatures(doc))
			}
		})
	}
	if got := DetectType(nil); got != document.TypeGeneral {
		t.Errorf("DetectType(nil) = %q", got)
	}
}

// The patterns the hand-written counters of detect.go implement.
var (
	reCamel = regexp.MustCompile(`\b[a-z]+[A-Z][A-Za-z0-9]*\b`)
	reSnake = regexp.MustCompile(`\b[a-z][a-z0-9]*_[a-z0-9_]+\b`)
	reCall  = regexp.MustCompile(`\b[A-Za-z_][A-Za-z0-9_.]*\([^()\s]{0,30}\)`)

	reAuthCiteOne = regexp.MustCompile(`\(\p{Lu}[\p{L}-]+(?: et al\.| and \p{Lu}[\p{L}-]+)?,? (?:19|20)\d\d[a-z]?\)|\bet al\.`)
)

func checkCounters(t *testing.T, s string) {
	t.Helper()
	if got, want := countIdentifiers(s), len(reCamel.FindAllStringIndex(s, -1))+len(reSnake.FindAllStringIndex(s, -1)); got != want {
		t.Errorf("countIdentifiers(%q) = %d, regexps find %d", s, got, want)
	}
	if got, want := countCalls(s), len(reCall.FindAllStringIndex(s, -1)); got != want {
		t.Errorf("countCalls(%q) = %d, regexp finds %d", s, got, want)
	}
	if got, want := countAuthorCites(s), len(reAuthCiteOne.FindAllStringIndex(s, -1)); got != want {
		t.Errorf("countAuthorCites(%q) = %d, the pattern finds %d", s, got, want)
	}
	if got, want := containsFold(s, "arxiv:"), strings.Contains(strings.ToLower(s), "arxiv:"); got != want {
		t.Errorf("containsFold(%q) = %v, want %v", s, got, want)
	}
}

func TestIdentifierCountersMatchPatterns(t *testing.T) {
	for _, s := range []string{
		"", "fooBar baz_qux x(y) fmt.Println(a, b) a.b.c(d) _x(1) 3abc(x) éfoo(x) fooBar_baz snake_ x_ _x",
		"camelCase2 HTTPServer getHTTP(u) f() g(ééééééééééééééééééééééééééééééé) h(" + strings.Repeat("a", 31) + ")",
		"call(a)(b) x.y((z)) arXiv: ARXIV:1234 foo\tbar(x\ty) (f)(g) a_b_c1 a1_ b__c",
		"(Smith et al., 2020) et al. (Doe and Roe 1999a) (Smith et al.) set al. et al.(Ab 2001)",
	} {
		checkCounters(t, s)
	}
	// Random strings over the bytes that matter.
	alphabet := []byte("aZ_.( )\t9éx_b(C)et al.S, 2019")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		checkCounters(t, string(b))
	}
	for _, path := range corpusFiles(t)[:10] {
		doc, err := FileWithOptions(context.Background(), path, noOCR)
		if err != nil {
			continue
		}
		for _, p := range doc.Pages {
			checkCounters(t, p.Text)
		}
	}
}

func TestCountFields(t *testing.T) {
	for _, s := range []string{"", " ", "a", " a b\tc\n", "x\u00a0y\u2003z", "\u3000a\u0085b ", "é ü"} {
		if got, want := countFields(s), len(strings.Fields(s)); got != want {
			t.Errorf("countFields(%q) = %d, want %d", s, got, want)
		}
	}
}
