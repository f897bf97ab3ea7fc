package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/carrel-app/carrel/backend/library"
)

// nameTerms returns the analysed words of the documents' titles and file names: a student
// names a document by them ("the FOSDEM talk", "the intro Go book"), and a passage need
// not repeat them.
func (e *Engine) nameTerms(ctx context.Context) (map[string]bool, error) {
	docs, err := e.lib.Documents(ctx)
	if err != nil {
		return nil, fmt.Errorf("document names: %w", err)
	}
	var b strings.Builder
	for _, d := range docs {
		b.WriteString(docName(d))
		b.WriteByte('\n')
	}
	return e.lex.TextTerms(b.String()), nil
}

// docName is what a document is known by: its title, author and file name.
func docName(d library.Document) string {
	return d.Title + "\n" + d.Author + "\n" + nameWords(filepath.Base(d.Path))
}

// namePassages is how many passages (and at most a quarter of them) may hold a word of the
// documents' names for it to be a name and not their subject.
const namePassages = 3

// withoutSharedNames drops from a question the words that name every document the search
// can return (its scope, or a library of one document): "Why did Thoreau go to the
// woods?" asked of Walden. Such a word tells no passage of those documents from another;
// the passages that hold it are the cover, the title page and the contents, which then
// won on it (Walden's cover was first for three of four questions about the book). Where
// the word names only some of the documents it still chooses between them, and is kept.
// Unscoped searches of a larger library are left alone: that would read every document's
// name on each search, and their names seldom share a word.
func (e *Engine) withoutSharedNames(ctx context.Context, q string, docIDs []string) (string, error) {
	var docs []library.Document
	if len(docIDs) == 0 {
		n, _, err := e.lib.Counts(ctx)
		if err != nil || n != 1 {
			return q, err
		}
		if docs, err = e.lib.Documents(ctx); err != nil {
			return "", fmt.Errorf("document names: %w", err)
		}
	}
	for _, id := range docIDs {
		d, err := e.lib.Document(ctx, id)
		if errors.Is(err, library.ErrNotFound) {
			continue // a scope may name a document removed since
		}
		if err != nil {
			return "", fmt.Errorf("document names: %w", err)
		}
		docs = append(docs, d)
	}
	var shared map[string]bool
	for _, d := range docs {
		terms := e.lex.TextTerms(docName(d))
		if shared == nil {
			shared = terms
		} else {
			for t := range shared {
				if !terms[t] {
					delete(shared, t)
				}
			}
		}
		if len(shared) == 0 {
			return q, nil
		}
	}
	if len(shared) == 0 {
		return q, nil
	}
	// A name the passages themselves hold often is their subject as well ("the cabin" in
	// notes on a cabin): dropping it could leave nothing to match. Only a name few
	// passages hold (a cover, a title page, a running head) is left out.
	tw, err := e.lex.QueryTerms(q)
	if err != nil {
		return "", fmt.Errorf("document names: %w", err)
	}
	passages := 0
	for _, d := range docs {
		passages += d.Chunks
	}
	df := make(map[string]int, len(tw))
	for _, t := range tw {
		df[t.Term] = t.DF
	}
	words := strings.Fields(q)
	kept := words[:0]
	for _, w := range words {
		terms := e.lex.TextTerms(w)
		named := len(terms) > 0
		for t := range terms {
			named = named && shared[t] && df[t] <= namePassages && 4*df[t] <= passages
		}
		if !named {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 {
		// A question of nothing but the name ("Walden") is asking for the document.
		return q, nil
	}
	return strings.Join(kept, " "), nil
}

// nameWords splits a file name into words: at punctuation ("_", "-", "."), between
// letters and digits, and before a capital that follows a small letter
// (FOSDEM14_HPC_GoCUDA.pdf → FOSDEM 14 HPC Go CUDA pdf).
func nameWords(name string) string {
	var b strings.Builder
	var prev rune
	for _, r := range name {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			r = ' '
		case prev != 0 && prev != ' ' && (unicode.IsDigit(r) != unicode.IsDigit(prev) || (unicode.IsUpper(r) && unicode.IsLower(prev))):
			b.WriteByte(' ')
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}
