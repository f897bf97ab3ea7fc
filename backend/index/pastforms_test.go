package index

import (
	"maps"
	"testing"
)

func TestPastForms(t *testing.T) {
	for _, c := range []struct {
		q    string
		want map[string]string
	}{
		{"Why did Thoreau go to the woods?", map[string]string{"went": "go"}},
		{"What did he say, and what did they give and take?", map[string]string{"said": "say", "gave": "give", "took": "take"}},
		{"Why didn't the builders build it?", map[string]string{"built": "build"}},
		// Not a "did" question: a base verb asks about the present.
		{"How do I write a file?", nil},
		// The past is already written as the text writes it.
		{"Which battle took place in 1805?", nil},
		// Homographs are left out: "found", "left".
		{"Where did they find the key, and when did they leave?", nil},
	} {
		if got := PastForms(c.q); !maps.Equal(got, c.want) {
			t.Errorf("%q: %v, want %v", c.q, got, c.want)
		}
	}
}
