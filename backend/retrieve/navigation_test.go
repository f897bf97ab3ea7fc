package retrieve

import "testing"

// verifies that contents, index and debris passages are demoted and prose, code and
// tables keep their scores (ingest's TestNavigationShare checks the share itself).
func TestNavigationFactor(t *testing.T) {
	cases := []struct {
		name string
		text string
		nav  bool
	}{
		{"contents without page numbers", "CONTENTS\nEconomy\nWhere I Lived, And What I Lived For\nReading\nSounds\nSolitude\nVisitors\nThe Bean–Field\nThe Village\nThe Ponds", true},
		{"contents with leaders", "Contents\n1 Introduction ........ 1\n2 Getting started ....... 7\nSummary .... 19\nIndex ..... 201", true},
		{"index", "loons, 177, 235\nlocomotive, 88, 90\nlogs, 40\nLondon, 12\nlove, 3, 98", true},
		{"debris", "~~ ,. ;; :: —•— `` .' a#c T%e ~~ ,, oo ; . ''", true},
		{"prose", "I went to the woods because I wished to live deliberately, to front only the\nessential facts of life, and see if I could not learn what it had to teach, and\nnot, when I came to die, discover that I had not lived. I did not wish to live\nwhat was not life, living is so dear; nor did I wish to practise resignation.", false},
		{"code", "func main() {\n\tx := 1.01 - 0.99\n\tfmt.Println(x)\n}\nprints 0.020000000000000018", false},
		{"table", "Resolution\nVertical resolution 3.85 lines/mm\nHorizontal resolution 8 pels/mm\nline length 1728 pels\nminimum transmission time 20 ms", false},
		{"short headings", "Economy\nReading", false},
	}
	for _, c := range cases {
		if f := navigationFactor(c.text); (f < 1) != c.nav {
			t.Errorf("%s: factor %.2f; want demoted %v", c.name, f, c.nav)
		}
	}
}

// verifies that the cached navigation factor is the passage's own: the same as measured,
// for a passage seen again, for an ID given another text, for a passage with no ID, and
// that the cache keeps to its cap.
func TestNavigationFactorCache(t *testing.T) {
	contents := "CONTENTS\nEconomy\nWhere I Lived, And What I Lived For\nReading\nSounds\nSolitude\nVisitors"
	prose := "I went to the woods because I wished to live deliberately, to front only the essential facts of life."
	c := factorCache{max: 2}
	for round := range 2 {
		for _, p := range []struct{ id, text string }{{"a", contents}, {"b", prose}, {"", contents}} {
			if got, want := c.get(p.id, p.text), navigationFactor(p.text); got != want {
				t.Errorf("round %d, id %q: cached factor %.3f, measured %.3f", round, p.id, got, want)
			}
		}
	}
	if c.get("a", prose) != 1 || c.get("a", contents) >= 1 {
		t.Error("an ID given another text kept the factor of the first")
	}
	c.get("c", contents)
	if len(c.m) > 2 {
		t.Errorf("cache holds %d entries, cap 2", len(c.m))
	}
}
