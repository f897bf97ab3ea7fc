package memory

import "testing"

// verifies a model's proposed memories are kept only when the user's words say them.
func TestParseModelFacts(t *testing.T) {
	msg := "I'm a second-year nursing student at Leeds. What does the author say about sepsis?"
	got := parseModelFacts("context: is a second-year nursing student at Leeds\n- goal: wants to become a surgeon\npreference: prefers short answers\nnone\nthe user is smart", msg)
	if len(got) != 1 || got[0].Text != "is a second-year nursing student at leeds" || got[0].Kind != "context" {
		t.Fatalf("parseModelFacts = %+v", got)
	}
}
