// Package crashtest checks that a library folder is consistent, as it must be after a
// crash, a kill or any fault: SQLite passes its own integrity check, no passage is stored
// twice, and the vector (FAISS) and lexical (bleve) indexes hold exactly the chunks
// SQLite says they hold. Its tests kill Carrel with SIGKILL at named points and at random
// moments of its writes and check the library after each kill (crash_test.go).
package crashtest

import (
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/carrel-app/carrel/backend/cache"
	"github.com/carrel-app/carrel/backend/index"
	"github.com/carrel-app/carrel/backend/library"
	_ "github.com/mattn/go-sqlite3"
)

// Doc is what the library holds of one document.
type Doc struct {
	Status library.DocStatus
	// Chunks are the ids (content hashes) of its children, in order.
	Chunks []string
}

// State is a library folder as Check read it.
type State struct {
	Docs map[string]Doc
	// Chunks counts children; Pending those still waiting for a vector; Vectors the
	// vector index's entries; Parents the parents; Lexical the lexical index's entries.
	Chunks, Pending, Vectors, Parents, Lexical int
	// CacheEntries and CacheVectors count the answer cache's rows and its index.
	CacheEntries, CacheVectors int
	Sessions, Messages         int
}

// Check opens the library in dir (no engine may hold it open) and returns an error
// listing every inconsistency it finds:
//   - PRAGMA integrity_check and foreign_key_check report nothing wrong;
//   - no document holds the same passage twice, and every child has a parent of its
//     own document;
//   - the vector index holds each chunk marked embedded once, and nothing else;
//   - the lexical index holds each parent once, and nothing else;
//   - the answer cache's vector index holds only entries that exist.
func Check(dir string) (State, error) {
	st := State{Docs: map[string]Doc{}}
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }

	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, library.DBName)+"?_foreign_keys=on&_busy_timeout=5000")
	if err != nil {
		return st, err
	}
	defer db.Close()
	for _, pragma := range []string{"integrity_check", "foreign_key_check"} {
		rows, err := strings1(db, "PRAGMA "+pragma)
		if err != nil {
			return st, fmt.Errorf("%s: %w", pragma, err)
		}
		if pragma == "integrity_check" && !(len(rows) == 1 && rows[0] == "ok") {
			bad("integrity_check: %q", rows)
		}
		if pragma == "foreign_key_check" && len(rows) > 0 {
			bad("foreign_key_check: %d rows violate a foreign key (first in table %s)", len(rows), rows[0])
		}
	}

	rows, err := db.Query(`SELECT id, status FROM documents`)
	if err != nil {
		return st, err
	}
	for rows.Next() {
		var id, status string
		if err := rows.Scan(&id, &status); err != nil {
			rows.Close()
			return st, err
		}
		st.Docs[id] = Doc{Status: library.DocStatus(status)}
	}
	rows.Close()

	embedded := map[int64]bool{}
	rows, err = db.Query(`SELECT c.seq, c.id, c.doc_id, c.embedded, COALESCE(p.doc_id, '') FROM chunks c
		LEFT JOIN parents p ON p.seq = c.parent_seq ORDER BY c.doc_id, c.ord`)
	if err != nil {
		return st, err
	}
	for rows.Next() {
		var seq int64
		var id, doc, parentDoc string
		var emb int
		if err := rows.Scan(&seq, &id, &doc, &emb, &parentDoc); err != nil {
			rows.Close()
			return st, err
		}
		st.Chunks++
		switch emb {
		case 0:
			st.Pending++
		case 1:
			embedded[seq] = true
		}
		if parentDoc != doc {
			bad("chunk %d of %.12s has no parent of its document (parent's document %q)", seq, doc, parentDoc)
		}
		d := st.Docs[doc]
		d.Chunks = append(d.Chunks, id)
		st.Docs[doc] = d
	}
	rows.Close()
	for id, d := range st.Docs {
		if dup := duplicates(d.Chunks); len(dup) > 0 {
			bad("document %.12s holds %d passages twice (first %.12s)", id, len(dup), dup[0])
		}
		if d.Status == library.StatusReady && len(d.Chunks) == 0 {
			bad("document %.12s is ready with no passages", id)
		}
	}
	var parentIDs []string
	var parentDup []string
	rows, err = db.Query(`SELECT seq, doc_id || '/' || id FROM parents`)
	if err != nil {
		return st, err
	}
	for rows.Next() {
		var seq int64
		var key string
		if err := rows.Scan(&seq, &key); err != nil {
			rows.Close()
			return st, err
		}
		parentIDs = append(parentIDs, "p"+strconv.FormatInt(seq, 10))
		parentDup = append(parentDup, key)
	}
	rows.Close()
	st.Parents = len(parentIDs)
	if dup := duplicates(parentDup); len(dup) > 0 {
		bad("%d parent passages stored twice in one document (first %s)", len(dup), dup[0])
	}
	for q, n := range map[string]*int{`SELECT count(*) FROM cache_entries`: &st.CacheEntries,
		`SELECT count(*) FROM sessions`: &st.Sessions, `SELECT count(*) FROM messages`: &st.Messages} {
		if err := db.QueryRow(q).Scan(n); err != nil {
			return st, err
		}
	}
	cacheIDs := map[int64]bool{}
	if rows, err = db.Query(`SELECT id FROM cache_entries`); err != nil {
		return st, err
	}
	for rows.Next() {
		var id int64
		rows.Scan(&id)
		cacheIDs[id] = true
	}
	rows.Close()

	vec, err := index.OpenVectors(filepath.Join(dir, "vectors"))
	if err != nil {
		return st, fmt.Errorf("open the vector index: %w", err)
	}
	ids := vec.IDs()
	vec.Close()
	st.Vectors = len(ids)
	if dup := duplicates(ids); len(dup) > 0 {
		bad("the vector index holds %d ids twice (first %d)", len(dup), dup[0])
	}
	var extra []int64
	have := map[int64]bool{}
	for _, id := range ids {
		have[id] = true
		if !embedded[id] {
			extra = append(extra, id)
		}
	}
	if len(extra) > 0 {
		bad("the vector index holds %d vectors of no embedded chunk (first %d)", len(extra), extra[0])
	}
	var missing []int64
	for s := range embedded {
		if !have[s] {
			missing = append(missing, s)
		}
	}
	if len(missing) > 0 {
		bad("%d chunks are marked embedded but have no vector (first %d)", len(missing), missing[0])
	}

	lex, err := index.OpenLexical(filepath.Join(dir, "bleve"))
	if err != nil {
		return st, fmt.Errorf("open the lexical index: %w", err)
	}
	lexIDs, err := lex.IDs()
	lex.Close()
	if err != nil {
		return st, err
	}
	st.Lexical = len(lexIDs)
	if dup := duplicates(lexIDs); len(dup) > 0 {
		bad("the lexical index holds %d ids twice", len(dup))
	}
	slices.Sort(lexIDs)
	slices.Sort(parentIDs)
	if !slices.Equal(lexIDs, parentIDs) {
		bad("the lexical index holds %d entries, the library %d parents (%s)", len(lexIDs), len(parentIDs), diff(lexIDs, parentIDs))
	}

	cvec, err := index.OpenVectors(filepath.Join(dir, cache.Dir))
	if err != nil {
		return st, fmt.Errorf("open the answer cache index: %w", err)
	}
	cids := cvec.IDs()
	cvec.Close()
	st.CacheVectors = len(cids)
	for _, id := range cids {
		if !cacheIDs[id] {
			bad("the answer cache index holds vector %d of no entry", id)
		}
	}
	if dup := duplicates(cids); len(dup) > 0 {
		bad("the answer cache index holds %d ids twice", len(dup))
	}
	return st, errors.Join(errs...)
}

func strings1(db *sql.DB, q string) ([]string, error) {
	rows, err := db.Query(q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, fmt.Sprint(vals[0]))
	}
	return out, rows.Err()
}

func duplicates[T comparable](xs []T) []T {
	seen := make(map[T]bool, len(xs))
	var dup []T
	for _, x := range xs {
		if seen[x] {
			dup = append(dup, x)
		}
		seen[x] = true
	}
	return dup
}

// diff names a few ids in one sorted list and not the other.
func diff(got, want []string) string {
	var only, lost []string
	g, w := map[string]bool{}, map[string]bool{}
	for _, x := range got {
		g[x] = true
	}
	for _, x := range want {
		w[x] = true
		if !g[x] && len(lost) < 3 {
			lost = append(lost, x)
		}
	}
	for _, x := range got {
		if !w[x] && len(only) < 3 {
			only = append(only, x)
		}
	}
	return fmt.Sprintf("only in the index %v, missing %v", only, lost)
}
