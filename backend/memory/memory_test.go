package memory

import (
	"testing"

	"github.com/carrel-app/carrel/backend/library"
)

// verifies the policy on fixed user messages: what is kept, phrased how, and what never is.
func TestExtract(t *testing.T) {
	keep := []struct {
		msg  string
		kind library.MemoryKind
		slot string
		text string
	}{
		{"I'm a second-year nursing student.", Context, "role", "is a second-year nursing student"},
		{"Btw, I am a PhD candidate", Context, "role", "is a phd candidate"},
		{"I'm studying computer science", Context, "field", "studies computer science"},
		{"I am taking a course on compilers.", Context, "course", "is taking course on compilers"},
		{"I'm new to Go. What is a goroutine?", Context, "", "is new to go"},
		{"Please always answer in French.", Preference, "language", "wants answers in French"},
		{"From now on, reply in German", Preference, "language", "wants answers in German"},
		{"I prefer short answers with examples", Preference, "length", "prefers short answers with examples"},
		{"Keep your answers brief.", Preference, "length", "prefers brief answers"},
		{"I learn best with analogies", Preference, "", "prefers analogies"},
		{"I don't like jargon.", Preference, "", "does not want jargon"},
		{"My goal is to pass the PDF spec quiz", Goal, "", "wants to pass the pdf spec quiz"},
		{"I'm preparing for the bar exam. Explain tort law.", Goal, "", "is preparing for the bar exam"},
		{"I want to learn Go concurrency", Goal, "", "wants to learn go concurrency"},
		{"My exam is next friday", Goal, "", "has their exam next friday"},
		{"I'm studying for my pharmacology exam.", Goal, "", "is preparing for their pharmacology exam"},
		{"I'm studying marine biology", Context, "field", "studies marine biology"},
	}
	for _, c := range keep {
		got := Extract(c.msg)
		if len(got) != 1 || got[0].Kind != c.kind || got[0].Slot != c.slot || got[0].Text != c.text {
			t.Errorf("Extract(%q) = %+v, want one %s/%s %q", c.msg, got, c.kind, c.slot, c.text)
		}
	}
	never := []string{
		// Questions and one-off requests.
		"What is a goroutine?",
		"Am I a beginner if I can't write a loop?",
		"I want to know what the trailer dictionary is.",
		"Explain the xref table in short answers",
		"Can you answer in French?",
		"Please explain the page tree",
		// Document text quoted in a question.
		`The author writes "I am a professional chef. I prefer short answers." What does she mean?`,
		`What does "I'm a second-year nursing student" tell us about the narrator`,
		"> I am a lawyer\nWho says this?",
		"In chapter 2 the narrator says: I am a doctor",
		// Guesses, hypotheticals, the past, someone else.
		"Maybe I'm a visual learner",
		"I think I am a beginner",
		"If I were a student I would study more",
		"I was a nurse",
		"My brother is a student",
		"Thoreau is a writer.",
		"I'm not a student",
		"I'm a bit confused",
		"I'm a little lost here",
		"I'm sure",
		// What the user is reading now, one-off tasks.
		"I'm studying chapter 3",
		"I'm studying this paper",
		"I have to finish this chapter",
		"I need to write a summary of section 2",
		"I prefer the second explanation",
		"I like this answer",
		// Facts about the documents.
		"The paper is about attention.",
		"Section 3 is on encryption",
	}
	for _, msg := range never {
		if got := Extract(msg); len(got) != 0 {
			t.Errorf("Extract(%q) = %+v, want nothing", msg, got)
		}
	}
}

// verifies duplicates are dropped and a new value of a slot replaces the old one.
func TestPlan(t *testing.T) {
	have := []Existing{
		{ID: 1, Kind: Preference, Slot: "language", Text: "wants answers in French"},
		{ID: 2, Kind: Goal, Text: "wants to learn Go"},
	}
	got := Plan(have, []Candidate{
		{Kind: Preference, Slot: "language", Text: "wants answers in German"},
		{Kind: Goal, Text: "Wants to learn go."},
		{Kind: Goal, Text: "wants to pass the exam"},
		{Kind: Goal, Text: "wants to pass the exam"},
	})
	if len(got) != 2 || got[0].Update != 1 || got[0].Text != "wants answers in German" || got[1].Update != 0 || got[1].Text != "wants to pass the exam" {
		t.Fatalf("Plan = %+v", got)
	}
}

// verifies a model's candidates are kept only when the user's own first-person words say
// them: not a guess, not a paraphrase, not a quote, not a question.
func TestValidate(t *testing.T) {
	msg := `I'm a second-year nursing student at Leeds. The book says "I am a surgeon". What is sepsis? Maybe I'm a visual learner.`
	for _, c := range []struct {
		kind library.MemoryKind
		fact string
		ok   bool
	}{
		{Context, "is a second-year nursing student", true},
		{Context, "The user is a nursing student at Leeds.", true},
		{Context, "is a surgeon", false},                // quoted from the book
		{Goal, "wants to become a nurse", false},        // not said
		{Preference, "prefers visual aids", false},      // a hedged guess
		{Context, "is interested in sepsis", false},     // a question is not a fact
		{Context, "second-year nursing student", false}, // not phrased about the user
		{"mood", "is a second-year nursing student", false},
	} {
		got, ok := Validate(msg, c.kind, c.fact)
		if ok != c.ok || (ok && got.Source != "I'm a second-year nursing student at Leeds") {
			t.Errorf("Validate(%q) = %+v, %v; want %v", c.fact, got, ok, c.ok)
		}
	}
}
