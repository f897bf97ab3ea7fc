package study

import (
	"archive/zip"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/carrel-app/carrel/backend/library"
)

// verifies the Anki package: a zip of collection.anki2 and media; the database opens
// (with Go's SQLite and with Python's sqlite3, as another reader) and holds Anki's
// legacy schema (col version 11) with one note and one card per Carrel card, the note
// type's four fields in each note, the deck named, the suspended card suspended, tags
// and checksums as Anki computes them.
func TestExportApkg(t *testing.T) {
	ctx := context.Background()
	lib, err := library.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	src, _ := addDocument(t, lib, writeNotes(t, notes))
	now := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	deck, err := OpenDeck(ctx, lib, "", []string{src.SHA256}, now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Make(ctx, lib, deck, nil, now); err != nil {
		t.Fatal(err)
	}
	cards, _ := lib.Cards(ctx, library.CardFilter{DeckID: deck.ID})
	if len(cards) < 5 {
		t.Fatalf("%d cards", len(cards))
	}
	lib.SuspendCard(ctx, cards[1].ID, true)
	cards, _ = lib.Cards(ctx, library.CardFilter{DeckID: deck.ID})
	titles := map[string]string{src.SHA256: "Cell biology notes"}

	var buf bytes.Buffer
	if err := Export(&buf, deck, cards, titles, FormatApkg); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatalf("not a zip: %v", err)
	}
	files := map[string][]byte{}
	for _, f := range zr.File {
		r, _ := f.Open()
		files[f.Name], _ = io.ReadAll(r)
		r.Close()
	}
	// The package is read once; each subtest checks one thing of it.
	t.Run("a zip of the collection and an empty media list", func(t *testing.T) {
		if string(files["media"]) != "{}" || len(files) != 2 {
			t.Fatalf("package files: %d, media %q", len(files), files["media"])
		}
	})

	dbPath := filepath.Join(t.TempDir(), "collection.anki2")
	os.WriteFile(dbPath, files["collection.anki2"], 0o644)
	db, err := sql.Open("sqlite3", dbPath+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	t.Run("Anki's legacy schema, one note type, the deck named", func(t *testing.T) {
		var ver int
		var models, decks string
		if err := db.QueryRow(`SELECT ver, models, decks FROM col`).Scan(&ver, &models, &decks); err != nil || ver != 11 {
			t.Fatalf("col: version %d %v", ver, err)
		}
		var ms map[string]struct {
			Flds []struct{ Name string } `json:"flds"`
		}
		if err := json.Unmarshal([]byte(models), &ms); err != nil || len(ms) != 1 {
			t.Fatalf("models: %v %s", err, models)
		}
		var ds map[string]struct{ Name string }
		json.Unmarshal([]byte(decks), &ds)
		named := false
		for _, d := range ds {
			named = named || d.Name == "Carrel::"+deck.Title
		}
		if !named {
			t.Errorf("no deck named Carrel::%s in %s", deck.Title, decks)
		}
	})

	t.Run("a note and a card per card, the suspended one suspended", func(t *testing.T) {
		var nNotes, nCards, nSuspended int
		db.QueryRow(`SELECT count(*) FROM notes`).Scan(&nNotes)
		db.QueryRow(`SELECT count(*) FROM cards c JOIN notes n ON n.id = c.nid`).Scan(&nCards)
		db.QueryRow(`SELECT count(*) FROM cards WHERE queue = -1`).Scan(&nSuspended)
		if nNotes != len(cards) || nCards != len(cards) || nSuspended != 1 {
			t.Fatalf("notes %d, cards %d, suspended %d; want %d, %d, 1", nNotes, nCards, nSuspended, len(cards), len(cards))
		}
	})

	t.Run("each note's four fields, tags and checksum", func(t *testing.T) {
		rows, _ := db.Query(`SELECT flds, tags, csum, sfld FROM notes ORDER BY id`)
		i := 0
		for rows.Next() {
			var flds, tags, sfld string
			var csum int64
			rows.Scan(&flds, &tags, &csum, &sfld)
			f := strings.Split(flds, "\x1f")
			c := cards[i]
			if len(f) != 4 || !strings.Contains(f[2], "Cell biology notes") || csum != apkgChecksum(collapse(c.Front)) || sfld != f[0] {
				t.Errorf("note %d: fields %q csum %d", i, f, csum)
			}
			if !strings.Contains(tags, " carrel::"+string(c.Kind)+" ") || !strings.Contains(tags, "Cell_biology_notes") {
				t.Errorf("note %d tags %q", i, tags)
			}
			i++
		}
		rows.Close()
	})

	// Another SQLite reader: Python's sqlite3 module, as a script reading the package
	// would (python3 is on every machine the tests run on; the test fails without it).
	t.Run("another SQLite reader reads it", func(t *testing.T) {
		py, err := exec.LookPath("python3")
		if err != nil {
			t.Fatal("python3 is needed to read the package as another program would")
		}
		script := `import sqlite3, sys, zipfile, json, tempfile, os
z = zipfile.ZipFile(sys.argv[1])
d = tempfile.mkdtemp()
z.extractall(d)
db = sqlite3.connect(os.path.join(d, "collection.anki2"))
notes = db.execute("select count(*) from notes").fetchone()[0]
cards = db.execute("select count(*) from cards").fetchone()[0]
model = json.loads(db.execute("select models from col").fetchone()[0])
fields = [f["name"] for m in model.values() for f in m["flds"]]
print(notes, cards, ",".join(fields), json.loads(open(os.path.join(d, "media")).read()) == {})
`
		apkg := filepath.Join(t.TempDir(), "deck.apkg")
		os.WriteFile(apkg, buf.Bytes(), 0o644)
		out, err := exec.Command(py, "-c", script, apkg).CombinedOutput()
		if err != nil {
			t.Fatalf("python3 sqlite3: %v\n%s", err, out)
		}
		want := strings.Join([]string{itoa(len(cards)), itoa(len(cards)), "Front,Back,Source,Passage", "True"}, " ")
		if strings.TrimSpace(string(out)) != want {
			t.Errorf("python3 reads %q, want %q", strings.TrimSpace(string(out)), want)
		}
	})
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
