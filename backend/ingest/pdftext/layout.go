package pdftext

import (
	"math"
	"unicode"
	"unicode/utf8"
)

// LineEndHyphen marks a hyphen that ended a line, as PDFium marks it: the
// line break after it is dropped, and the caller decides whether the word
// is joined ("infor-mation") or keeps its hyphen ("Anglo-Saxon").
const LineEndHyphen = '\uFFFE'

// placed is one glyph as the layout sees it, in the frame of its baseline
// direction: x runs along the baseline, y across it.
type placed struct {
	text    string
	x, y    float64
	end     float64 // x + the glyph's own width (without Tc/Tw)
	size    float64 // font size on the page
	dir     int32   // baseline direction in whole degrees
	literal bool    // a space character in the content
	blank   bool    // a literal space of no width: the font cannot say how wide it is
}

// layout turns glyphs, in content order, into lines. Content order is
// reading order for nearly all producers (PDFium and poppler assume the
// same); a line breaks when the baseline moves by half a line or the text
// jumps back, and a word breaks at a literal space or at a gap wider than
// a tenth of an em, poppler's threshold.
type layout struct {
	buf      []byte
	prev     placed
	has      bool
	space    bool // a literal space since prev
	blank    bool // a literal space of no width since prev
	lastRune rune // last rune written, and the one before it
	prevRune rune
	// Recently placed glyphs, to drop text drawn twice (fake bold, shadows).
	recent [32]placed
	nrec   int
}

const wordGap = 0.1 // em

func (l *layout) add(g placed) {
	if g.literal {
		l.space = true
		l.blank = l.blank || g.blank
		return
	}
	if l.has {
		p := &l.prev
		em := max(g.size, p.size)
		dy := math.Abs(g.y - p.y)
		sameLine := g.dir == p.dir && dy < 0.5*em
		gap := g.x - p.end
		switch {
		case sameLine && gap > -0.5*em:
			if gap > wordGap*em || (l.space && gap > 0.5*wordGap*em) || (l.blank && gap > -0.25*em) {
				l.write(" ")
			}
		case l.isDup(g):
			return // the same glyph drawn again where it was drawn before
		default:
			// A drop of several lines is a paragraph break, as PDFium
			// marks it with an empty line (chunking splits there).
			l.newline(g.dir == p.dir && p.y-g.y > 4*em)
		}
	}
	l.write(g.text)
	l.prev, l.has, l.space, l.blank = g, true, false, false
	l.recent[l.nrec%len(l.recent)] = g
	l.nrec++
}

// isDup reports whether g repeats a recently placed glyph at about its place.
func (l *layout) isDup(g placed) bool {
	for i := range min(l.nrec, len(l.recent)) {
		r := &l.recent[i]
		if r.text == g.text && r.dir == g.dir && math.Abs(r.x-g.x) < 0.2*g.size && math.Abs(r.y-g.y) < 0.2*g.size {
			return true
		}
	}
	return false
}

// newline ends the line; a line ending in a hyphen after a letter gets
// PDFium's mark instead of the break.
func (l *layout) newline(paragraph bool) {
	if l.lastRune == '-' && unicode.IsLetter(l.prevRune) && !paragraph {
		l.buf = l.buf[:len(l.buf)-1]
		l.buf = utf8.AppendRune(l.buf, LineEndHyphen)
		l.lastRune, l.prevRune = LineEndHyphen, '-'
		return
	}
	if paragraph {
		l.write("\n\n")
		return
	}
	l.write("\n")
}

func (l *layout) write(s string) {
	l.buf = append(l.buf, s...)
	for _, r := range s {
		l.prevRune, l.lastRune = l.lastRune, r
	}
}

// paragraph separates blocks that are not part of the flow (annotations).
func (l *layout) paragraph(s string) {
	if len(l.buf) > 0 {
		l.buf = append(l.buf, "\n\n"...)
	}
	l.write(s)
	l.has = false
}
