package study

import (
	"archive/zip"
	"context"
	"crypto/sha1"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/carrel-app/carrel/backend/library"

	_ "github.com/mattn/go-sqlite3" // the "sqlite3" driver, as backend/library registers it
)

// An Anki package (.apkg) is a zip of collection.anki2, a SQLite database in Anki's
// legacy collection schema (version 11, which every Anki since 2.0 imports, AnkiDroid
// and AnkiMobile too), and media, a JSON map of the media files (none here). The
// schema and the col row's JSON are Anki's own (rslib/src/storage/schema11.sql and the
// defaults Anki writes), cut to what an import reads.
const apkgSchema = `
CREATE TABLE col (id integer primary key, crt integer not null, mod integer not null, scm integer not null,
	ver integer not null, dty integer not null, usn integer not null, ls integer not null, conf text not null,
	models text not null, decks text not null, dconf text not null, tags text not null);
CREATE TABLE notes (id integer primary key, guid text not null, mid integer not null, mod integer not null,
	usn integer not null, tags text not null, flds text not null, sfld integer not null, csum integer not null,
	flags integer not null, data text not null);
CREATE TABLE cards (id integer primary key, nid integer not null, did integer not null, ord integer not null,
	mod integer not null, usn integer not null, type integer not null, queue integer not null, due integer not null,
	ivl integer not null, factor integer not null, reps integer not null, lapses integer not null, left integer not null,
	odue integer not null, odid integer not null, flags integer not null, data text not null);
CREATE TABLE revlog (id integer primary key, cid integer not null, usn integer not null, ease integer not null,
	ivl integer not null, lastIvl integer not null, factor integer not null, time integer not null, type integer not null);
CREATE TABLE graves (usn integer not null, oid integer not null, type integer not null);
CREATE INDEX ix_notes_usn on notes (usn);
CREATE INDEX ix_cards_usn on cards (usn);
CREATE INDEX ix_revlog_usn on revlog (usn);
CREATE INDEX ix_cards_nid on cards (nid);
CREATE INDEX ix_cards_sched on cards (did, queue, due);
CREATE INDEX ix_revlog_cid on revlog (cid);
CREATE INDEX ix_notes_csum on notes (csum);
`

// Fixed ids keep a deck exported twice the same deck and note type in Anki: its notes
// (guid from the deck and card ids) update instead of doubling.
const apkgModelID = 1717171717001

// apkgDeckID derives a stable Anki deck id from Carrel's deck id (Anki's ids are
// millisecond-like integers; any positive 53-bit value works).
func apkgDeckID(id string) int64 {
	h := sha1.Sum([]byte(id))
	return int64(binary.BigEndian.Uint64(h[:8])>>12) + 1
}

// apkgChecksum is Anki's note checksum: the first 8 hex digits of the SHA-1 of the
// first field with its HTML removed, as an integer (Anki finds duplicates by it).
func apkgChecksum(field string) int64 {
	h := sha1.Sum([]byte(field))
	n, _ := strconv.ParseInt(hex.EncodeToString(h[:4]), 16, 64)
	return n
}

func apkgModels(deckID int64, now int64) string {
	m := map[string]any{
		strconv.FormatInt(apkgModelID, 10): map[string]any{
			"id": apkgModelID, "name": "Carrel card", "type": 0, "mod": now, "usn": -1, "sortf": 0, "did": deckID,
			"flds": []map[string]any{
				{"name": "Front", "ord": 0, "sticky": false, "rtl": false, "font": "Arial", "size": 20, "media": []any{}},
				{"name": "Back", "ord": 1, "sticky": false, "rtl": false, "font": "Arial", "size": 20, "media": []any{}},
				{"name": "Source", "ord": 2, "sticky": false, "rtl": false, "font": "Arial", "size": 14, "media": []any{}},
				{"name": "Passage", "ord": 3, "sticky": false, "rtl": false, "font": "Arial", "size": 14, "media": []any{}},
			},
			"tmpls": []map[string]any{{
				"name": "Card 1", "ord": 0, "did": nil, "bqfmt": "", "bafmt": "",
				"qfmt": "{{Front}}",
				"afmt": "{{FrontSide}}<hr id=answer>{{Back}}<div class=source>{{Passage}}<br>— {{Source}}</div>",
			}},
			"css":       ".card { font-family: arial; font-size: 20px; text-align: center; color: black; background-color: white; }\n.source { margin-top: 1em; font-size: 14px; color: #555; text-align: left; }",
			"latexPre":  "\\documentclass[12pt]{article}\n\\special{papersize=3in,5in}\n\\usepackage[utf8]{inputenc}\n\\usepackage{amssymb,amsmath}\n\\pagestyle{empty}\n\\setlength{\\parindent}{0in}\n\\begin{document}\n",
			"latexPost": "\\end{document}",
			"req":       []any{[]any{0, "all", []int{0}}},
			"tags":      []any{}, "vers": []any{},
		},
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func apkgDecks(deckID int64, name string, now int64) string {
	deck := func(id int64, name string) map[string]any {
		return map[string]any{"id": id, "name": name, "mod": now, "usn": -1, "desc": "", "dyn": 0, "conf": 1,
			"collapsed": false, "extendNew": 10, "extendRev": 50,
			"newToday": []int{0, 0}, "revToday": []int{0, 0}, "lrnToday": []int{0, 0}, "timeToday": []int{0, 0}}
	}
	b, _ := json.Marshal(map[string]any{"1": deck(1, "Default"), strconv.FormatInt(deckID, 10): deck(deckID, name)})
	return string(b)
}

const apkgConf = `{"nextPos":1,"estTimes":true,"activeDecks":[1],"sortType":"noteFld","timeLim":0,"sortBackwards":false,
"addToCur":true,"curDeck":1,"newBury":true,"newSpread":0,"dueCounts":true,"curModel":"1717171717001","collapseTime":1200}`

const apkgDconf = `{"1":{"id":1,"name":"Default","mod":0,"usn":0,"maxTaken":60,"autoplay":true,"timer":0,"replayq":true,"dyn":false,
"new":{"bury":true,"delays":[1,10],"initialFactor":2500,"ints":[1,4,7],"order":1,"perDay":20,"separate":true},
"lapse":{"delays":[10],"leechAction":0,"leechFails":8,"minInt":1,"mult":0},
"rev":{"bury":true,"ease4":1.3,"fuzz":0.05,"ivlFct":1,"maxIvl":36500,"minSpace":1,"perDay":200}}}`

// ankiHTML makes card text safe for Anki's HTML fields.
func ankiHTML(s string) string { return html.EscapeString(collapse(s)) }

// exportApkg writes an Anki package of the deck's cards: one note each (fields Front,
// Back, Source, Passage; tags as in Anki's text import), new in Anki (its own scheduler
// takes over), suspended ones suspended. The database is built in a temporary folder
// and zipped into w.
func exportApkg(w io.Writer, deck library.Deck, cards []library.Card, titles map[string]string) error {
	dir, err := os.MkdirTemp("", "carrel-apkg-")
	if err != nil {
		return fmt.Errorf("export apkg: %w", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "collection.anki2")
	if err := writeAnkiCollection(path, deck, cards, titles); err != nil {
		return fmt.Errorf("export apkg: %w", err)
	}
	zw := zip.NewWriter(w)
	for _, f := range []struct{ name, path string }{{"collection.anki2", path}, {"media", ""}} {
		fw, err := zw.Create(f.name)
		if err != nil {
			return fmt.Errorf("export apkg: %w", err)
		}
		if f.path == "" {
			_, err = io.WriteString(fw, "{}")
		} else {
			var in *os.File
			if in, err = os.Open(f.path); err == nil {
				_, err = io.Copy(fw, in)
				in.Close()
			}
		}
		if err != nil {
			return fmt.Errorf("export apkg: %w", err)
		}
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("export apkg: %w", err)
	}
	return nil
}

func writeAnkiCollection(path string, deck library.Deck, cards []library.Card, titles map[string]string) error {
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Exec(apkgSchema); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	now := time.Now()
	secs, ms := now.Unix(), now.UnixMilli()
	did := apkgDeckID(deck.ID)
	name := "Carrel::" + strings.ReplaceAll(collapse(deck.Title), "::", ":")
	if _, err := tx.Exec(`INSERT INTO col VALUES (1, ?, ?, ?, 11, 0, 0, 0, ?, ?, ?, ?, '{}')`,
		secs-secs%86400, ms, ms, apkgConf, apkgModels(did, secs), apkgDecks(did, name, secs), apkgDconf); err != nil {
		return fmt.Errorf("collection: %w", err)
	}
	for i, c := range cards {
		tags := []string{"carrel", "carrel::" + string(c.Kind)}
		if t := ankiTag(titles[c.DocID]); t != "" {
			tags = append(tags, t)
		}
		front := ankiHTML(c.Front)
		fields := strings.Join([]string{front, ankiHTML(c.Back), ankiHTML(Source(c, titles[c.DocID])), ankiHTML(c.Context)}, "\x1f")
		// Ids: Anki wants them unique and millisecond-like; the card's place keeps them so.
		id := ms + int64(i)
		guid := fmt.Sprintf("carrel-%x-%d", did, c.ID)
		if _, err := tx.Exec(`INSERT INTO notes VALUES (?, ?, ?, ?, -1, ?, ?, ?, ?, 0, '')`,
			id, guid, apkgModelID, secs, " "+strings.Join(tags, " ")+" ", fields, front, apkgChecksum(collapse(c.Front))); err != nil {
			return fmt.Errorf("note %d: %w", c.ID, err)
		}
		queue := 0 // new
		if c.Suspended {
			queue = -1
		}
		if _, err := tx.Exec(`INSERT INTO cards VALUES (?, ?, ?, 0, ?, -1, 0, ?, ?, 0, 0, 0, 0, 0, 0, 0, 0, '')`,
			id, id, did, secs, queue, i+1); err != nil {
			return fmt.Errorf("card %d: %w", c.ID, err)
		}
	}
	return tx.Commit()
}
