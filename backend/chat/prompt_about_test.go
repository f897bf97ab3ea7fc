package chat

import (
	"strings"
	"testing"
)

// verifies memories go in their own section, after the passages and before the question,
// never numbered like a passage, and that no section is added without memories.
func TestMessagesAboutUser(t *testing.T) {
	ps := []Passage{{N: 1, DocTitle: "Walden", Page: 2, Text: "Thoreau planted beans."}}
	msgs, kept := MessagesAbout("What did Thoreau plant?", []string{"is a second-year nursing student", " prefers  short answers "}, ps, 4000, 0)
	user := msgs[1].Content
	about := strings.Index(user, "About the user")
	if len(kept) != 1 || about < strings.Index(user, "[1]") || about > strings.Index(user, "Question:") ||
		!strings.Contains(user, "- The user is a second-year nursing student\n- The user prefers short answers\n") ||
		strings.Contains(msgs[0].Content, "nursing") {
		t.Fatalf("prompt:\n%s", user)
	}
	plain, _ := MessagesAbout("What did Thoreau plant?", nil, ps, 4000, 0)
	if strings.Contains(plain[1].Content, "About the user") || plain[1].Content != mustMessages(ps) {
		t.Fatalf("without memories the prompt changed:\n%s", plain[1].Content)
	}
}

func mustMessages(ps []Passage) string {
	m, _ := MessagesEstimated("What did Thoreau plant?", ps, 4000, 0)
	return m[1].Content
}
