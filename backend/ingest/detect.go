package ingest

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/carrel-app/carrel/backend/document"
)

// detectSample bounds how much text detection reads: the head of the
// document (title page, abstract, contents) and its tail (references,
// index).
const (
	detectHead = 300_000
	detectTail = 100_000
	// Citations, identifiers and DOIs are counted in a sample of the text (the first and
	// last pages): their patterns cost more than the rest of detection.
	detectSampleHead = 24_000
	detectSampleTail = 12_000
)

var (
	reDOI     = regexp.MustCompile(`(?i)\b(?:doi:\s*|doi\.org/)?10\.\d{4,9}/[-._;()/:a-z0-9]+`)
	reArXiv   = regexp.MustCompile(`(?i)\barxiv:\s*\d{4}\.\d{4,5}`)
	reISBN    = regexp.MustCompile(`(?i)\bISBN(?:-1[03])?:?\s*[0-9][-0-9 ]{8,16}[0-9x]\b`)
	reNumCite = regexp.MustCompile(`\[\d{1,3}(?:\s*[,–-]\s*\d{1,3})*\]`)
	// An author-year citation, "(Smith et al., 2020)", or a bare "et al.": two patterns, each
	// with a literal prefix the regexp engine searches for quickly; see countAuthorCites.
	reAuthCite  = regexp.MustCompile(`\(\p{Lu}[\p{L}-]+(?: et al\.| and \p{Lu}[\p{L}-]+)?,? (?:19|20)\d\d[a-z]?\)`)
	reEtAl      = regexp.MustCompile(`\bet al\.`)
	reChapter   = regexp.MustCompile(`(?i)^(?:chapter|kapitel|chapitre|capítulo)\s+(?:\d+|[ivxlc]+|one|two|three|four|five|six|seven|eight|nine|ten)\b`)
	reExercise  = regexp.MustCompile(`(?i)^(?:exercises?|problems|review questions|self-test|practice problems|questions for review)\b`)
	reExNum     = regexp.MustCompile(`(?i)^(?:exercise|problem)\s+\d+(?:\.\d+)*\s*[:.)]`)
	reNumOnly   = regexp.MustCompile(`^\d{1,5}$`)
	reDocsTitle = regexp.MustCompile(`(?i)\b(?:specification|reference|manual|guide|documentation|handbook|api|sdk|standard|recommendation|tutorial|how-?to|readme)\b`)
	reMailHead  = regexp.MustCompile(`(?i)^(?:from|to|cc|date|subject|sent|reply-to|message-id):\s+\S`)
	reLineNum   = regexp.MustCompile(`^\d{1,5}\s+`)
	reCodeStart = regexp.MustCompile(`^(?:func|def|class|import|package|return|public|private|protected|static|var|let|const|fn|impl|struct|#include|#define|if\s*\(|for\s*\(|while\s*\(|switch\s*\(|try\s*\{|@\w+)\b`)
)

// docsHeadings are section titles typical of manuals, references and
// specifications.
var docsHeadings = map[string]bool{
	"installation": true, "install": true, "usage": true, "parameters": true, "returns": true,
	"return value": true, "example": true, "examples": true, "api": true, "api reference": true,
	"configuration": true, "syntax": true, "options": true, "arguments": true, "scope": true,
	"normative references": true, "definitions": true, "terms and definitions": true,
	"requirements": true, "getting started": true, "quick start": true, "quickstart": true,
	"troubleshooting": true, "description": true, "synopsis": true, "see also": true,
	"prerequisites": true, "changelog": true, "release notes": true, "annex a": true,
	"appendix a": true, "limitations": true, "compatibility": true, "conformance": true,
}

// imradHeadings are the section titles of a research article.
var imradHeadings = map[string]bool{
	"introduction": true, "methods": true, "materials and methods": true, "methodology": true,
	"results": true, "discussion": true, "conclusion": true, "conclusions": true, "related work": true,
	"evaluation": true, "experiments": true, "background": true, "acknowledgements": true,
	"acknowledgments": true, "summary": true, "future work": true,
}

// features are the cues detection weighs.
type features struct {
	pages, lines, words                                       int
	abstract, references, keywords, doi, arxiv, isbn, preface bool
	citations, chapters, exercises                            int
	codeLines, fences, identifiers, docsHeads, shall          int
	mailHeads, imrad                                          int
	sampleWords                                               int
	headings                                                  int
}

// DetectType tells what kind of writing doc is: one of [document.Types]. It
// weighs cues in the text (an Abstract, a DOI, a References section,
// citations; "Chapter N" and exercises; code, identifiers and manual-style
// headings; mail headers) together with the file's kind and length.
func DetectType(doc *Document) document.Type {
	if doc == nil {
		return document.TypeGeneral
	}
	switch doc.Kind {
	case document.KindCode:
		return document.TypeCode
	case document.KindEmail:
		return document.TypeMail
	}
	f := extractFeatures(doc)
	if f.lines == 0 {
		return document.TypeGeneral
	}
	if f.mailHeads >= 3 {
		return document.TypeMail
	}
	if f.codeLines*5 >= f.lines*2 && f.lines >= 10 {
		return document.TypeCode // a printed or pasted source file
	}
	paper, book, docs := f.paperScore(), f.bookScore(doc.Kind), f.docsScore(doc.Title)

	// The more specific kinds first: a programming textbook or a paper
	// about software holds code too.
	switch {
	case paper >= 5 && paper >= book:
		return document.TypePaper
	case book >= 5:
		return document.TypeTextbook
	case docs >= 4:
		return document.TypeDocs
	}
	return document.TypeGeneral
}

// perK is n per thousand words of the whole text, perKSample per thousand of the
// sampled head and tail.
func (f features) perK(n int) float64 { return float64(n) * 1000 / float64(max(f.words, 1)) }

func (f features) perKSample(n int) float64 {
	return float64(n) * 1000 / float64(max(f.sampleWords, 1))
}

// paperScore weighs the cues of a paper: an Abstract, References, a DOI or arXiv id,
// keywords, IMRaD headings, citations; long documents are less likely papers.
func (f features) paperScore() int {
	paper := 0
	if f.abstract {
		paper += 3
	}
	if f.references {
		paper += 3
	}
	if f.doi || f.arxiv {
		paper += 2
	}
	if f.keywords {
		paper++
	}
	if f.imrad >= 3 {
		paper += 2
	}
	if f.citations >= 5 && f.perKSample(f.citations) >= 1 {
		paper += 2
	}
	switch {
	case f.pages > 150:
		paper -= 4
	case f.pages > 60:
		paper -= 2
	}
	return paper
}

// bookScore weighs the cues of a textbook: chapters, exercises, an ISBN or a
// preface, length (a short PDF is hardly a book).
func (f features) bookScore(kind document.Kind) int {
	book := 0
	switch {
	case f.chapters >= 3:
		book += 3
	case f.chapters >= 1:
		book++
	}
	switch {
	case f.exercises >= 3:
		book += 3
	case f.exercises >= 1:
		book++
	}
	if f.isbn || f.preface {
		book++
	}
	switch {
	case f.pages >= 80:
		book += 2
	case f.pages < 20 && kind == document.KindPDF:
		book -= 3
	}
	return book
}

// docsScore weighs the cues of documentation: code fences and lines, identifiers,
// manual-style headings, "shall" (specifications), a title that says so.
func (f features) docsScore(title string) int {
	docs := 0
	if f.fences >= 2 {
		docs += 2
	}
	if codeShare := float64(f.codeLines) / float64(f.lines); codeShare >= 0.04 {
		docs += 2
	} else if codeShare >= 0.015 {
		docs++
	}
	if f.perKSample(f.identifiers) >= 8 {
		docs += 2
	} else if f.perKSample(f.identifiers) >= 3 {
		docs++
	}
	switch {
	case f.docsHeads >= 3:
		docs += 3
	case f.docsHeads >= 1:
		docs++
	}
	switch { // specifications and standards
	case f.perK(f.shall) >= 3:
		docs += 4
	case f.perK(f.shall) >= 1:
		docs += 2
	}
	if reDocsTitle.MatchString(title) {
		docs += 2
	}
	return docs
}

// extractFeatures counts the cues DetectType weighs, in the head and the tail of the
// text (the costlier patterns in a smaller sample of them) and in the outline.
func extractFeatures(doc *Document) features {
	f := features{pages: len(doc.Pages)}
	all, sampled, total := headAndTail(doc.Pages)
	seen := 0
	lineNo := 0
	inFence := false
	for pi, text := range all {
		for _, raw := range strings.Split(text, "\n") {
			line := strings.TrimSpace(raw)
			if line == "" || reNumOnly.MatchString(line) {
				continue
			}
			lineNo++
			inFence = f.addLine(line, lineNo, inFence, seen < 12_000 || pi < 2, seen*3 >= total)
		}
		f.shall += strings.Count(text, " shall ")
		seen += len(text)
		// The costlier patterns read a sample: the opening pages and the closing ones.
		if sampled[pi] {
			f.addSample(text)
		}
	}
	f.addOutline(doc.Outline)
	return f
}

// headAndTail is the text detection reads, page by page: the head of the document
// and its tail (detectHead, detectTail); sampled marks the pages of the smaller
// sample the costlier patterns read (detectSampleHead, detectSampleTail), and total
// is the length of all.
func headAndTail(pages []Page) (all []string, sampled []bool, total int) {
	var head, tail []string
	n := 0
	for _, p := range pages {
		if n >= detectHead {
			break
		}
		head = append(head, p.Text)
		n += len(p.Text)
	}
	n = 0
	for i := len(pages) - 1; i >= len(head) && n < detectTail; i-- {
		tail = append([]string{pages[i].Text}, tail...)
		n += len(pages[i].Text)
	}
	all = append(head, tail...)
	for _, t := range all {
		total += len(t)
	}
	sampled = make([]bool, len(all))
	for i, n := 0, 0; i < len(all) && n < detectSampleHead; i++ {
		sampled[i], n = true, n+len(all[i])
	}
	for i, n := len(all)-1, 0; i >= 0 && n < detectSampleTail; i-- {
		sampled[i], n = true, n+len(all[i])
	}
	return all, sampled, total
}

// addLine counts the cues of one non-empty line (the lineNo-th): code, mail headers,
// headings of the opening pages (opening) and of the closing part (closing), chapters,
// exercises. It returns whether a code fence is open after it.
func (f *features) addLine(line string, lineNo int, inFence, opening, closing bool) bool {
	f.lines++
	f.words += countFields(line)
	lower := strings.ToLower(line)
	short := len(line) < 60
	if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
		f.fences++
		return !inFence
	}
	if inFence || looksLikeCode(line) {
		f.codeLines++
	}
	if lineNo <= 40 && reMailHead.MatchString(line) {
		f.mailHeads++
	}
	// The opening pages: abstract, keywords.
	if opening {
		if short && (isHeading(lower, "abstract")) ||
			strings.HasPrefix(lower, "abstract—") || strings.HasPrefix(lower, "abstract.") || strings.HasPrefix(lower, "abstract:") {
			f.abstract = true
		}
		if strings.HasPrefix(lower, "keywords") || strings.HasPrefix(lower, "key words") || strings.HasPrefix(lower, "index terms") {
			f.keywords = true
		}
		if short && (isHeading(lower, "preface") || isHeading(lower, "contents") || isHeading(lower, "table of contents")) {
			f.preface = true
		}
	}
	// The closing part: references.
	if closing && short && (isHeading(lower, "references") || isHeading(lower, "bibliography") ||
		isHeading(lower, "works cited") || isHeading(lower, "literature cited") || isHeading(lower, "literature")) {
		f.references = true
	}
	if c := line[0] | 0x20; short && (c == 'c' || c == 'k') && reChapter.MatchString(line) {
		f.chapters++
	}
	if c := line[0] | 0x20; (c == 'e' || c == 'p' || c == 'r' || c == 's' || c == 'q') &&
		(short && reExercise.MatchString(line) || reExNum.MatchString(line)) {
		f.exercises++
	}
	if short && imradHeadings[strings.TrimRight(strings.TrimLeft(lower, "0123456789.#ivx "), ": ")] {
		f.imrad++
	}
	if short {
		h := strings.TrimLeft(lower, "0123456789.# ")
		if docsHeadings[strings.TrimRight(h, ":")] {
			f.docsHeads++
		}
		if strings.HasPrefix(line, "#") {
			f.headings++
		}
	}
	return inFence
}

// addSample counts the costlier cues of a sampled page: DOIs, arXiv ids, ISBNs,
// citations, identifiers and calls.
func (f *features) addSample(text string) {
	f.sampleWords += countFields(text)
	f.doi = f.doi || strings.Contains(text, "10.") && reDOI.MatchString(text)
	f.arxiv = f.arxiv || containsFold(text, "arxiv:") && reArXiv.MatchString(text)
	f.isbn = f.isbn || containsFold(text, "isbn") && reISBN.MatchString(text)
	f.citations += len(reNumCite.FindAllStringIndex(text, -1)) + countAuthorCites(text)
	f.identifiers += countIdentifiers(text) + countCalls(text)
}

// addOutline counts the cues of the outline's titles: chapters, exercises, an
// abstract, references, documentation headings.
func (f *features) addOutline(outline []Heading) {
	for _, h := range outline {
		t := strings.ToLower(h.Title)
		if reChapter.MatchString(h.Title) {
			f.chapters++
		}
		if reExercise.MatchString(h.Title) {
			f.exercises++
		}
		if isHeading(t, "abstract") {
			f.abstract = true
		}
		if isHeading(t, "references") || isHeading(t, "bibliography") {
			f.references = true
		}
		if docsHeadings[strings.TrimLeft(t, "0123456789. ")] {
			f.docsHeads++
		}
	}
}

// isHeading reports whether a lowercased line is the heading word, maybe
// numbered ("7. references", "references") or followed by a colon.
func isHeading(lower, word string) bool {
	lower = strings.TrimLeft(lower, "0123456789.#ivx ")
	lower = strings.TrimRight(lower, ": ")
	return lower == word
}

// looksLikeCode reports whether a line of text reads as a line of source
// code (a leading line number, as in printed listings, is ignored).
func looksLikeCode(line string) bool {
	if line[0] >= '0' && line[0] <= '9' {
		line = reLineNum.ReplaceAllString(line, "")
		if line == "" {
			return false
		}
	}
	if strings.IndexByte("fdcipsrvl#wt@", line[0]) >= 0 && reCodeStart.MatchString(line) {
		return true
	}
	last := line[len(line)-1]
	if last == '{' || last == ';' || line == "}" || line == "};" || line == ")" {
		return true
	}
	if strings.HasPrefix(line, "//") || strings.HasPrefix(line, "/*") || strings.HasPrefix(line, "$ ") || strings.HasPrefix(line, ">>> ") {
		return true
	}
	if line[0] == '<' && last == '>' { // markup: XML, HTML
		return true
	}
	// Operators rarely seen in prose.
	if strings.ContainsAny(line, "=>&|(") { // each operator below holds one of these
		for _, op := range []string{" := ", " == ", " != ", " => ", " -> ", "&&", "||", "();"} {
			if strings.Contains(line, op) {
				return true
			}
		}
	}
	// A line mostly of symbols and identifiers: x = f(y, z[0])
	sym := 0
	for i := 0; i < len(line); i++ { // the symbols are ASCII: bytes count as runes
		switch line[i] {
		case '=', '(', ')', '{', '}', '[', ']', ';', '<', '>', '_', '*', '&', '|':
			sym++
		}
	}
	return sym*8 > len(line) && strings.IndexFunc(line, unicode.IsLetter) >= 0 && len(line) > 6
}

// Identifiers and calls are counted by hand rather than with regular
// expressions: on a page of text the regexps took most of detection's
// time. Each counter matches exactly what its pattern in detect_test.go
// (reCamel, reSnake, reCall) finds.

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// countIdentifiers counts the camelCase (`\b[a-z]+[A-Z][A-Za-z0-9]*\b`)
// and snake_case (`\b[a-z][a-z0-9]*_[a-z0-9_]+\b`) words of s. Both
// patterns are anchored at ASCII word boundaries, so each matches a whole
// run of word bytes or nothing.
func countIdentifiers(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if !isWordByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isWordByte(s[j]) {
			j++
		}
		if w := s[i:j]; w[0] >= 'a' && w[0] <= 'z' && (isCamel(w) || isSnake(w)) {
			n++
		}
		i = j
	}
	return n
}

func isCamel(w string) bool {
	k := 1
	for k < len(w) && w[k] >= 'a' && w[k] <= 'z' {
		k++
	}
	if k == len(w) || w[k] < 'A' || w[k] > 'Z' {
		return false
	}
	return !strings.Contains(w[k:], "_")
}

func isSnake(w string) bool {
	u := strings.IndexByte(w, '_')
	if u < 1 || u == len(w)-1 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if c := w[i]; c >= 'A' && c <= 'Z' {
			return false
		}
	}
	return true
}

// countCalls counts the call-like spans of s, `\b[A-Za-z_][A-Za-z0-9_.]*\([^()\s]{0,30}\)`.
func countCalls(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		start := (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') && (i == 0 || !isWordByte(s[i-1]))
		if !start {
			i++
			continue
		}
		j := i + 1
		for j < len(s) && (isWordByte(s[j]) || s[j] == '.') {
			j++
		}
		// A later start inside the run would end at the same place, so a
		// failure here is a failure for the whole run.
		if j < len(s) && s[j] == '(' {
			k, runes := j+1, 0
			for k < len(s) && runes < 30 {
				r, size := utf8.DecodeRuneInString(s[k:])
				if r == '(' || r == ')' || r == ' ' || r == '\t' || r == '\n' || r == '\f' || r == '\r' {
					break
				}
				k += size
				runes++
			}
			if k < len(s) && s[k] == ')' {
				n++
				i = k + 1
				continue
			}
		}
		i = j
	}
	return n
}

// containsFold reports whether s contains the lower-case ASCII word w in
// any case.
func containsFold(s, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		if s[i]|0x20 == w[0] && strings.EqualFold(s[i:i+len(w)], w) {
			return true
		}
	}
	return false
}

// countFields is len(strings.Fields(s)) without building the slice.
func countFields(s string) int {
	n, in := 0, false
	for i := 0; i < len(s); {
		c := s[i]
		var space bool
		if c < utf8.RuneSelf {
			space = c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
			i++
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			space = unicode.IsSpace(r)
			i += size
		}
		if !space && !in {
			n++
		}
		in = !space
	}
	return n
}

// countAuthorCites counts the matches of reAuthCite and of the "et al."
// outside them: what the one pattern `reAuthCite|reEtAl` finds, which
// had no literal prefix and read every byte of the text slowly.
func countAuthorCites(s string) int {
	cites := reAuthCite.FindAllStringIndex(s, -1)
	n := len(cites)
	k := 0
	for _, m := range reEtAl.FindAllStringIndex(s, -1) {
		for k < len(cites) && cites[k][1] <= m[0] {
			k++
		}
		if k < len(cites) && cites[k][0] <= m[0] && m[1] <= cites[k][1] {
			continue // inside a citation
		}
		n++
	}
	return n
}
