package index

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
)

// codeTrimName is the registered name of codeTrimFilter. It is stored in the
// index mapping on disk, so it must not change.
const codeTrimName = "carrel_code_trim"

func init() {
	err := registry.RegisterTokenFilter(codeTrimName,
		func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
			return codeTrimFilter{}, nil
		})
	if err != nil {
		panic(err)
	}
}

// codeTrimFilter strips the punctuation that surrounds a whitespace-delimited
// word in prose ("(see", "v2.6.3.", "`--num-ctx`", "faiss_Index_search(),")
// while keeping the punctuation inside it and a leading dash, so identifiers,
// flags and versions survive as typed.
type codeTrimFilter struct{}

func (codeTrimFilter) Filter(input analysis.TokenStream) analysis.TokenStream {
	out := input[:0]
	for _, tok := range input {
		term := string(tok.Term)
		trimmed := trimCodeToken(term)
		if trimmed == "" {
			continue
		}
		if len(trimmed) != len(term) {
			lead := strings.Index(term, trimmed)
			tok.Start += lead
			tok.End = tok.Start + len(trimmed)
			tok.Term = []byte(trimmed)
		}
		out = append(out, tok)
	}
	return out
}

const (
	codeLeadCut  = "([{<\"'`“‘«*"
	codeTrailCut = ")]}>\"'`”’»*.,;:!?"
)

// trimCodeToken removes surrounding prose punctuation from one word; a
// trailing "()" (a call) goes too.
func trimCodeToken(s string) string {
	for {
		r, n := utf8.DecodeRuneInString(s)
		if n == 0 || !strings.ContainsRune(codeLeadCut, r) {
			break
		}
		s = s[n:]
	}
	for {
		r, n := utf8.DecodeLastRuneInString(s)
		if n == 0 || !strings.ContainsRune(codeTrailCut, r) {
			break
		}
		s = s[:len(s)-n]
		if strings.HasSuffix(s, "(") && r == ')' {
			s = s[:len(s)-1]
		}
	}
	return s
}

// looksLikeCode reports whether a query word is worth matching verbatim in
// the code field: it has a digit, inner punctuation (faiss_Index_search,
// v2.6.3, std::vector, a/b), a leading dash (--num-ctx) or inner capitals
// (camelCase). Plain words are left to the stemmed text field, so stop words
// never reach the verbatim field.
func looksLikeCode(w string) bool {
	if strings.HasPrefix(w, "-") && len(w) > 1 {
		return true
	}
	for i, r := range w {
		switch {
		case unicode.IsDigit(r):
			return true
		case i > 0 && unicode.IsUpper(r):
			return true
		case i > 0 && i < len(w)-1 && strings.ContainsRune("_-./:#@$=+\\", r):
			return true
		}
	}
	return false
}

// codeTerms returns the query words that look like code, trimmed as the
// index trims them.
func codeTerms(query string) []string {
	var out []string
	for _, w := range strings.Fields(query) {
		if w = trimCodeToken(w); looksLikeCode(w) {
			out = append(out, w)
		}
	}
	return out
}
