package chat

import (
	"context"
	"strings"
	"testing"
)

// verifies the stem rule on the pairs the frontend's copy (src/lib/match.test.ts) checks too.
func TestStem(t *testing.T) {
	for _, pair := range [][2]string{
		{"bullfrogs", "bullfrog"}, {"phrases", "phrase"}, {"phrased", "phrase"}, {"studies", "study"},
		{"running", "run"}, {"scanned", "scan"}, {"classes", "class"}, {"Alone", "alone"}, {"evenings", "evening"},
	} {
		if a, b := Stem(pair[0]), Stem(pair[1]); a != b {
			t.Errorf("Stem(%q) = %q, Stem(%q) = %q: want equal", pair[0], a, pair[1], b)
		}
	}
	// "evening" strips to "even", a stop word: the word "even" is never a question term.
	terms := QuestionTerms("a delicious evening")
	if ws := words("even", terms); len(ws) != 1 || ws[0].term != "" {
		t.Errorf("'even' counted as the question's 'evening': %+v", ws)
	}
	if MatchStrength("even so, delicious", terms) != StrengthRelated || MatchStrength("delicious evenings", terms) != StrengthClose {
		t.Errorf("'even' made a close match of a passage with one word of two")
	}
	for _, pair := range [][2]string{{"pond", "ponder"}, {"bus", "bu"}, {"class", "clas"}} {
		if a, b := Stem(pair[0]), Stem(pair[1]); a == b {
			t.Errorf("Stem(%q) = Stem(%q) = %q: want different", pair[0], pair[1], a)
		}
	}
}

// The two excerpts the issue names: the matching sentence sits past the first 400 bytes.
var (
	scannerText = strings.Repeat("Reading input line by line is a common task in programs that process text files of every kind. ", 4) +
		"Go offers several ways to do it, where the simplest is to use bufio.Scanner, which splits input into lines by default and " +
		"returns each line without its newline. " + strings.Repeat("Other readers exist for other needs, such as reading whole files at once. ", 4)
	solitudeText = strings.Repeat("Some of my pleasantest hours were during the long rain storms in the spring or fall, which confined me to the house. ", 4) +
		"I find it wholesome to be alone the greater part of the time. To be in company, even with the best, is soon wearisome. " +
		strings.Repeat("I love to be alone. I never found the companion that was so companionable as solitude. ", 3)
)

// verifies the excerpt window holds the question's words, starts at the sentence of the
// first match, keeps whole words and stays about the asked length.
func TestMatchWindow(t *testing.T) {
	for _, c := range []struct {
		text, question, want string
		sentence             bool // the window starts with want (the matching sentence), not only holds it
	}{
		{scannerText, "How do I read lines with bufio.Scanner?", "Go offers several ways to do it, where the simplest is to use bufio.Scanner", false},
		{solitudeText, "Is it wholesome to be alone?", "I find it wholesome to be alone", true},
	} {
		s, e := MatchWindow(c.text, QuestionTerms(c.question), 400, false)
		w := c.text[s:e]
		if !strings.Contains(w, c.want) || c.sentence && !strings.HasPrefix(w, c.want) {
			t.Errorf("window for %q is %q, want it to hold %q (at its start: %v)", c.question, w, c.want, c.sentence)
		}
		if s > 0 && !strings.HasSuffix(strings.TrimSpace(c.text[:s]), ".") {
			t.Errorf("window for %q starts mid-sentence: %q", c.question, w[:min(len(w), 60)])
		}
		if e-s > 400 || e-s < 200 {
			t.Errorf("window for %q is %d bytes, want about 400", c.question, e-s)
		}
		if isWordByte(c.text, s) && s > 0 && isWordByte(c.text, s-1) || e < len(c.text) && isWordByte(c.text, e) && isWordByte(c.text, e-1) {
			t.Errorf("window [%d,%d) splits a word: %q", s, e, w)
		}
	}
	// Short texts are whole; a text without the words starts at its beginning.
	if s, e := MatchWindow("short", QuestionTerms("long question words"), 400, false); s != 0 || e != 5 {
		t.Errorf("short text window = [%d,%d)", s, e)
	}
	if s, _ := MatchWindow(scannerText, QuestionTerms("zebra"), 400, false); s != 0 {
		t.Errorf("no match: window starts at %d, want 0", s)
	}
	// A match near the start: the passage's own start (a title page's head is not cut).
	if s, _ := MatchWindow("WALDEN BY HENRY DAVID THOREAU 1854\nSOLITUDE This is a delicious evening. "+scannerText, QuestionTerms("a delicious evening"), 400, false); s != 0 {
		t.Errorf("early match: window starts at %d, want 0", s)
	}
	// Markdown: the window starts at the line of the match.
	md := strings.Repeat("Intro paragraph about the course and its many readings.\n\n", 8) + "## Exam tips\n\n- Be ready early\n- Sleep well\n" + strings.Repeat("\nMore notes.", 30)
	s, _ := MatchWindow(md, QuestionTerms("exam tips"), 200, true)
	if !strings.HasPrefix(md[s:], "## Exam tips") {
		t.Errorf("markdown window starts %q, want the heading's line", md[s:s+30])
	}
}

// verifies strength: half of the question's content words make a close match.
func TestMatchStrength(t *testing.T) {
	terms := QuestionTerms("What happens on a delicious evening by the pond, when the bullfrogs trump?")
	close := "This is a delicious evening, when the whole body is one sense. The bullfrogs trump to usher in the night."
	related := "Index: pond, 12, 45, 190; Flint's Pond, 200."
	if got := MatchStrength(close, terms); got != StrengthClose {
		t.Errorf("strength of the evening passage = %s", got)
	}
	if got := MatchStrength(related, terms); got != StrengthRelated {
		t.Errorf("strength of the index page = %s", got)
	}
	// Two words asked: one of them is half, but not a close match.
	two := QuestionTerms("exam tips")
	if got := MatchStrength("what we have to stand on tip-toe to", two); got != StrengthRelated {
		t.Errorf("one word of two ('tip-toe' for 'exam tips') = %s", got)
	}
	if got := MatchStrength("## Exam tips\n- Bring two pens", two); got != StrengthClose {
		t.Errorf("both words = %s", got)
	}
	if got := MatchStrength("Cells and tissues.", QuestionTerms("tissues")); got != StrengthClose {
		t.Errorf("the one word of a one-word question = %s", got)
	}
}

// verifies a no-model answer puts close matches under their heading before possibly
// related ones, quotes the window around the match, and keeps Markdown lines for .md sources.
func TestPassagesAnswerGroups(t *testing.T) {
	ps := []Passage{
		{N: 1, DocTitle: "Index", Page: 300, Text: "Index: pond, 12, 45, 190; Flint's Pond, 200."},
		{N: 2, DocTitle: "Walden", Page: 12, Text: strings.Repeat("Filler words about the village. ", 20) + "This is a delicious evening, when the whole body is one sense. The bullfrogs trump to usher in the night."},
		{N: 3, DocTitle: "notes", DocPath: "/home/s/notes.md", Text: "## Evening pond walk\n\n- bullfrogs trump\n- a delicious evening"},
	}
	ans, err := Respond(context.Background(), Request{Question: "What happens on a delicious evening by the pond, when the bullfrogs trump?", Passages: ps, NoModelReason: "none"}, func(Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	txt := ans.Text
	iClose, iRel := strings.Index(txt, "#### Close matches"), strings.Index(txt, "#### Possibly related")
	// Renumbered in the order shown: Walden [1] and the notes [2] close, the index [3] after.
	i1, i2, i3 := strings.Index(txt, "[1]"), strings.Index(txt, "[2]"), strings.Index(txt, "[3]")
	if iClose < 0 || iRel < 0 || !(iClose < i1 && i1 < i2 && i2 < iRel && iRel < i3) {
		t.Fatalf("groups out of order:\n%s", txt)
	}
	if ans.Citations[0].DocTitle != "Walden" || ans.Citations[1].DocTitle != "notes" || ans.Citations[2].DocTitle != "Index" {
		t.Fatalf("citations not in the order shown: %+v", ans.Citations)
	}
	if !strings.Contains(txt, "> … Filler words about the village.") && !strings.Contains(txt, "> Filler words") || !strings.Contains(txt, "This is a delicious evening, when the whole body is one sense. The bullfrogs trump to usher in the night. [1]") {
		t.Errorf("the Walden quote does not start at the matching sentence:\n%s", txt)
	}
	if !strings.Contains(txt, "> ## Evening pond walk\n> \n> - bullfrogs trump") {
		t.Errorf("the Markdown passage lost its lines:\n%s", txt)
	}
	if ans.Citations[0].Strength != StrengthClose || ans.Citations[2].Strength != StrengthRelated {
		t.Errorf("strengths: %v %v", ans.Citations[0].Strength, ans.Citations[2].Strength)
	}
	runes := []rune(txt)
	for _, c := range ans.Claims {
		sp := c.Spans[0]
		p := ans.Citations[sp.N-1]
		if got := string([]rune(p.Text)[sp.Start:sp.End]); got != sp.Quote {
			t.Errorf("claim %d span %q is not the passage text at its offsets (%q)", sp.N, sp.Quote, got)
		}
		if line := string(runes[c.Start:c.End]); !strings.Contains(strings.Join(strings.Fields(strings.ReplaceAll(line, "\n> ", "\n")), " "), strings.Join(strings.Fields(sp.Quote), " ")) {
			t.Errorf("claim %d line %q does not hold its quote %q", sp.N, line, sp.Quote)
		}
	}
	// Nothing close: said so, with no headings.
	ans, _ = Respond(context.Background(), Request{Question: "zebra crossing rules", Passages: ps[:1], NoModelReason: "none"}, func(Event) error { return nil })
	if !strings.HasPrefix(ans.Text, "Nothing in your documents matched this question closely") || strings.Contains(ans.Text, "####") {
		t.Errorf("weak-only answer: %q", ans.Text)
	}
}

// verifies a no-model answer to a short question rewritten as a follow-up ("exam tips"
// after a question about bufio.Scanner) judges its passages by the words asked: the
// passages retrieved for the earlier question are only possibly related, the note that
// holds the asked words is the close match, shown first.
func TestPassagesAnswerJudgesByAskedWords(t *testing.T) {
	ps := []Passage{
		{N: 1, DocTitle: "The Go Programming Language", Page: 28, Text: "Onward to the bufio package. One of its most useful features is a type called Scanner that reads input and breaks it into lines or words."},
		{N: 2, DocTitle: "Biology revision", DocPath: "/home/s/exam-notes.md", Text: "## Exam tips\n\n- Be ready early\n- Sleep well the night before the exam"},
	}
	asked := "exam tips"
	rewritten := FallbackRewrite(asked, []Turn{{Question: "How does bufio.Scanner read lines?"}})
	if rewritten == asked {
		t.Fatalf("the fallback did not treat %q as a follow-up (the case this test is about)", asked)
	}
	ans, err := Respond(context.Background(), Request{Question: rewritten, Asked: asked, Passages: ps, NoModelReason: "none"}, func(Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if ans.Citations[0].DocTitle != "Biology revision" || ans.Citations[0].Strength != StrengthClose {
		t.Errorf("first source %q (%s), want the exam note as the close match", ans.Citations[0].DocTitle, ans.Citations[0].Strength)
	}
	if ans.Citations[1].Strength != StrengthRelated {
		t.Errorf("the bufio passage is %s for %q, want related", ans.Citations[1].Strength, asked)
	}
	// Judged by the rewrite alone, the bufio passage holds 4 of its 6 words: close.
	if MatchStrength(ps[0].Text, QuestionTerms(rewritten)) != StrengthClose {
		t.Errorf("the control: the rewrite's words make the bufio passage close")
	}
	// A follow-up with no words of its own ("Why?") is judged by the rewrite.
	ans, _ = Respond(context.Background(), Request{Question: "Why? (following up on: How does bufio.Scanner read lines?)", Asked: "Why?", Passages: ps[:1], NoModelReason: "none"}, func(Event) error { return nil })
	if ans.Citations[0].Strength != StrengthClose {
		t.Errorf("'Why?' after the bufio question: the bufio passage is %s", ans.Citations[0].Strength)
	}
}
