package fsrs

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// tsFSRS returns the path of ts-fsrs's ES module in frontend/node_modules, failing the
// test when it is not installed: `npm ci` in frontend (go tool task frontend, which the
// test command runs first) installs it as a devDependency.
func tsFSRS(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "..")
	mod := filepath.Join(root, "frontend", "node_modules", "ts-fsrs")
	b, err := os.ReadFile(filepath.Join(mod, "package.json"))
	if err != nil {
		t.Fatalf("ts-fsrs is not installed in frontend/node_modules (run `npm ci` in frontend, or go tool task frontend): %v", err)
	}
	var pkg struct{ Version string }
	if err := json.Unmarshal(b, &pkg); err != nil || pkg.Version != "5.4.2" {
		t.Fatalf("frontend/node_modules/ts-fsrs is version %q (%v), want 5.4.2: run `npm ci` in frontend", pkg.Version, err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node is needed to run ts-fsrs: %v", err)
	}
	return filepath.Join(mod, "dist", "index.mjs")
}

// step is one review of a history and the card after it.
type step struct {
	At    int64 `json:"at"` // unix ms
	Grade int   `json:"grade"`
}

type cardJSON struct {
	Due           int64   `json:"due"`
	Stability     float64 `json:"stability"`
	Difficulty    float64 `json:"difficulty"`
	ElapsedDays   int     `json:"elapsed_days"`
	ScheduledDays int     `json:"scheduled_days"`
	LearningSteps int     `json:"learning_steps"`
	Reps          int     `json:"reps"`
	Lapses        int     `json:"lapses"`
	State         int     `json:"state"`
	LastReview    int64   `json:"last_review"`
	LogState      int     `json:"log_state"`
	LogDue        int64   `json:"log_due"`
	LogElapsed    int     `json:"log_elapsed"`
}

// histories makes n review histories by a fixed seed: each review happens around the
// card's due date (early, on time, or late by up to several times the interval, and
// sometimes the same day again), graded at random with good most common, so that every
// state and branch is reached: learning steps, graduation, lapses, relearning, hard
// intervals kept below good, short-term reviews on the same day.
func histories(t *testing.T, n int) [][]step {
	t.Helper()
	r := rand.New(rand.NewPCG(17, 5))
	s := Default()
	start := time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
	var out [][]step
	for h := 0; h < n; h++ {
		c := NewCard(start)
		now := start.Add(time.Duration(r.IntN(24*60)) * time.Minute)
		var hist []step
		for k := 0; k < 12+r.IntN(14); k++ {
			g := Good
			switch x := r.IntN(20); {
			case x < 3:
				g = Again
			case x < 6:
				g = Hard
			case x < 9:
				g = Easy
			}
			hist = append(hist, step{At: now.UnixMilli(), Grade: int(g)})
			var err error
			if c, _, err = s.Next(c, now, g); err != nil {
				t.Fatal(err)
			}
			gap := c.Due.Sub(now)
			switch x := r.IntN(10); {
			case x == 0:
				gap = gap / 2 // early
			case x == 1:
				gap = gap * time.Duration(2+r.IntN(4)) // late
			case x == 2:
				gap = time.Duration(r.IntN(90)) * time.Minute // again the same session
			}
			now = now.Add(gap + time.Duration(r.IntN(600))*time.Second)
		}
		out = append(out, hist)
	}
	return out
}

const replayJS = `
import { fsrs, generatorParameters, createEmptyCard } from %q;
import { readFileSync } from 'node:fs';
const histories = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const f = fsrs(generatorParameters({ enable_fuzz: false }));
const out = histories.map((h) => {
  let card = createEmptyCard(new Date(h[0].at));
  return h.map((s) => {
    const { card: next, log } = f.next(card, new Date(s.at), s.grade);
    card = next;
    return {
      due: next.due.getTime(), stability: next.stability, difficulty: next.difficulty,
      elapsed_days: next.elapsed_days, scheduled_days: next.scheduled_days,
      learning_steps: next.learning_steps, reps: next.reps, lapses: next.lapses, state: next.state,
      last_review: next.last_review ? next.last_review.getTime() : 0,
      log_state: log.state, log_due: new Date(log.due).getTime(), log_elapsed: log.elapsed_days,
    };
  });
});
process.stdout.write(JSON.stringify(out));
`

// verifies the Go scheduler gives, review by review, the same cards as ts-fsrs 5.4.2
// (default parameters, fuzz off) on 24 review histories: due dates to the millisecond,
// stability and difficulty to 1e-9 (both are rounded to 8 decimals), and every other
// field of the card and of the review log.
func TestMatchesTSFSRS(t *testing.T) {
	mod := tsFSRS(t)
	hs := histories(t, 24)
	dir := t.TempDir()
	in := filepath.Join(dir, "histories.json")
	b, _ := json.Marshal(hs)
	if err := os.WriteFile(in, b, 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "replay.mjs")
	if err := os.WriteFile(script, []byte(fmt.Sprintf(replayJS, "file://"+filepath.ToSlash(mod))), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("node", script, in).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("node ts-fsrs replay: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("node ts-fsrs replay: %v", err)
	}
	var want [][]cardJSON
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatalf("read ts-fsrs output: %v", err)
	}
	if len(want) != len(hs) {
		t.Fatalf("ts-fsrs replayed %d histories, want %d", len(want), len(hs))
	}
	s := Default()
	reviews, states := 0, map[State]int{}
	for h, hist := range hs {
		c := NewCard(time.UnixMilli(hist[0].At).UTC())
		for k, st := range hist {
			next, log, err := s.Next(c, time.UnixMilli(st.At), Rating(st.Grade))
			if err != nil {
				t.Fatalf("history %d review %d: %v", h, k, err)
			}
			w := want[h][k]
			var last int64
			if !next.LastReview.IsZero() {
				last = next.LastReview.UnixMilli()
			}
			got := cardJSON{Due: next.Due.UnixMilli(), Stability: next.Stability, Difficulty: next.Difficulty,
				ElapsedDays: next.ElapsedDays, ScheduledDays: next.ScheduledDays, LearningSteps: next.LearningSteps,
				Reps: next.Reps, Lapses: next.Lapses, State: int(next.State), LastReview: last,
				LogState: int(log.State), LogDue: log.Due.UnixMilli(), LogElapsed: log.ElapsedDays}
			if !close(got.Stability, w.Stability) || !close(got.Difficulty, w.Difficulty) {
				t.Fatalf("history %d review %d (grade %d): stability %v difficulty %v, ts-fsrs %v %v", h, k, st.Grade,
					got.Stability, got.Difficulty, w.Stability, w.Difficulty)
			}
			got.Stability, got.Difficulty = w.Stability, w.Difficulty
			if got != w {
				t.Fatalf("history %d review %d (grade %d):\n got %+v\nwant %+v", h, k, st.Grade, got, w)
			}
			states[State(w.State)]++
			reviews++
			c = next
		}
	}
	for _, st := range []State{Learning, Review, Relearning} {
		if states[st] == 0 {
			t.Errorf("no review left a card in state %d: the histories do not reach every branch", st)
		}
	}
	t.Logf("%d histories, %d reviews: same as ts-fsrs 5.4.2 (cards after review by state: %v)", len(hs), reviews, states)
}

func close(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// verifies the first reviews of a new card follow the default steps: again 1 minute,
// hard 6 (between the 1 and 10 minute steps), good to the 10 minute step, easy graduates
// at once with an interval of at least a day.
func TestNewCardSteps(t *testing.T) {
	s := Default()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for g, want := range map[Rating]time.Duration{Again: time.Minute, Hard: 6 * time.Minute, Good: 10 * time.Minute} {
		c, _, err := s.Next(NewCard(now), now, g)
		if err != nil {
			t.Fatal(err)
		}
		if c.State != Learning || c.Due.Sub(now) != want {
			t.Errorf("grade %d: state %d due in %v, want learning in %v", g, c.State, c.Due.Sub(now), want)
		}
	}
	c, _, _ := s.Next(NewCard(now), now, Easy)
	if c.State != Review || c.ScheduledDays < 1 {
		t.Errorf("easy: state %d, %d days; want review, at least a day", c.State, c.ScheduledDays)
	}
	if _, _, err := s.Next(NewCard(now), now, 5); err == nil {
		t.Error("grade 5 accepted")
	}
}
