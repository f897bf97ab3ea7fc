package intake

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/carrel-app/carrel/backend/chunk"
	"github.com/carrel-app/carrel/backend/crashpoint"
	"github.com/carrel-app/carrel/backend/index"
	"github.com/carrel-app/carrel/backend/ingest"
	"github.com/carrel-app/carrel/backend/library"
)

// lexicalOnParents says what the lexical index holds: parents (whole passages) or their
// children. Vectors always hold children. Measured on the dev questions over the pdfcpu
// corpus (docs/chunking.md): BM25 over parents ranks better (MRR@10 0.719 vs
// 0.642 over children), since a parent holds more of a question's words together and
// BM25's length normalisation already copes with its size.
var lexicalOnParents = true

// treeOf cuts an extracted document into parents and children for the library.
func treeOf(src *ingest.Document, opts chunk.Options) []library.Parent {
	tree := chunk.Tree(src, opts)
	out := make([]library.Parent, len(tree))
	for i, p := range tree {
		out[i] = library.Parent{Chunk: libChunk(p.Chunk), Children: make([]library.Chunk, len(p.Children))}
		for j, c := range p.Children {
			out[i].Children[j] = libChunk(c)
		}
	}
	return out
}

func libChunk(c chunk.Chunk) library.Chunk {
	return library.Chunk{ID: chunk.ID(c.Text), PageStart: c.PageStart, PageEnd: c.PageEnd,
		Start: c.Start, End: c.End, Section: c.Section, Text: c.Text}
}

// childrenOf lists the children of stored parents (ReplaceTree has set their seqs).
func childrenOf(parents []library.Parent) []library.Chunk {
	var out []library.Chunk
	for _, p := range parents {
		out = append(out, p.Children...)
	}
	return out
}

// lexDocsOf gives the lexical index entries of a stored document.
func lexDocsOf(docID, title string, parents []library.Parent) []index.LexDoc {
	var out []index.LexDoc
	for _, p := range parents {
		if lexicalOnParents {
			if p.Seq != 0 { // 0: a repeated parent, not stored
				out = append(out, lexDoc(p.Chunk, docID, title, true))
			}
			continue
		}
		for _, c := range p.Children {
			out = append(out, lexDoc(c, docID, title, false))
		}
	}
	return out
}

// lexDoc is one lexical index entry. A parent's id is "p" and its seq, a child's its seq
// (parents and children are numbered apart).
func lexDoc(c library.Chunk, docID, title string, parent bool) index.LexDoc {
	id := strconv.FormatInt(c.Seq, 10)
	if parent {
		id = "p" + id
	}
	return index.LexDoc{ID: id, DocID: docID, Title: title, Section: c.Section, Text: c.Text}
}

// ParseLexID reads a word index entry's id back (see lexDoc): the seq of its passage
// (parent) or child; ok is false for an id intake never wrote.
func ParseLexID(id string) (seq int64, parent, ok bool) {
	parent = strings.HasPrefix(id, "p")
	seq, err := strconv.ParseInt(strings.TrimPrefix(id, "p"), 10, 64)
	return seq, parent, err == nil
}

// lexicalUnits is the number of entries the lexical index should hold.
func (in *Intake) lexicalUnits(ctx context.Context) (int, error) {
	if lexicalOnParents {
		return in.lib.ParentCount(ctx)
	}
	_, n, err := in.lib.Counts(ctx)
	return n, err
}

// rechunkUnparented re-chunks the documents of a library from before parents (schema v5
// and older) from their stored page texts, outline and type, so that they are searched
// and answered like new ones without their files being read again (the file may have
// moved). Their old vectors go; the new children are embedded by EmbedPending. It returns
// how many documents it re-chunked.
func (in *Intake) rechunkUnparented(ctx context.Context) (int, error) {
	ids, err := in.lib.Unparented(ctx)
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	return in.rechunk(ctx, ids)
}

// rechunk re-chunks documents from their stored page texts with the chunk sizes now in
// force (see rechunkUnparented and Rechunk).
func (in *Intake) rechunk(ctx context.Context, ids []string) (int, error) {
	if err := in.writable(); err != nil {
		return 0, err
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	profiles := in.chunkProfiles()
	for _, id := range ids {
		d, err := in.lib.Document(ctx, id)
		if err != nil {
			return 0, err
		}
		pages, err := in.lib.PageTexts(ctx, id)
		if err != nil {
			return 0, err
		}
		src := &ingest.Document{Path: d.Path, Title: d.Title, Kind: d.Kind}
		for i, t := range pages {
			src.Pages = append(src.Pages, ingest.Page{Number: i + 1, Text: t})
		}
		// An outline in an older form is left out: sections are then "".
		if d.Outline != "" {
			if err := json.Unmarshal([]byte(d.Outline), &src.Outline); err != nil {
				slog.Warn("re-chunk: the document's outline is unreadable; its passages get no section titles", "doc", id, "title", d.Title, "err", err)
			}
		}
		info, err := in.DocumentInfo(id)
		if err != nil {
			slog.Warn("re-chunk: what ingest recorded of the document is unreadable; chunked as a general document", "doc", id, "title", d.Title, "err", err)
		}
		parents := treeOf(src, profiles.For(info.DocType))
		if err := in.dropIndexed(ctx, id); err != nil {
			return 0, err
		}
		if err := in.lib.ReplaceTree(ctx, id, pages, parents); err != nil {
			return 0, fmt.Errorf("re-chunk %s: %w", d.Title, err)
		}
		crashpoint.Hit("rechunk.stored")
		if err := in.lex.Add(lexDocsOf(id, d.Title, parents)); err != nil {
			return 0, fmt.Errorf("re-chunk %s: index: %w", d.Title, err)
		}
	}
	return len(ids), nil
}
