package pdftext

import (
	"bytes"
	"strconv"
)

// The content stream lexer. It reads the operands a text extractor needs
// (numbers, names, strings, arrays of them) and skips the rest (dicts of
// marked content, inline image data) without allocating per token where
// it can.

type kind uint8

const (
	kNone kind = iota
	kNum
	kName
	kStr
	kArr
	kOp
	kDict
	kOther // true, false, null, stray delimiters
)

// operand is one content stream operand.
type operand struct {
	kind kind
	num  float64
	str  []byte    // string bytes, name without '/', operator
	arr  []operand // array elements
}

type lexer struct {
	b   []byte
	pos int
	// arena holds the elements of the arrays read since the last reset,
	// so that TJ arrays do not allocate one slice each.
	arena []operand
}

// reset forgets the arrays read so far; the caller is done with them.
func (l *lexer) reset() { l.arena = l.arena[:0] }

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

func isDelim(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

func (l *lexer) skipSpace() {
	for l.pos < len(l.b) {
		c := l.b[l.pos]
		if isSpace(c) {
			l.pos++
			continue
		}
		if c == '%' {
			for l.pos < len(l.b) && l.b[l.pos] != '\n' && l.b[l.pos] != '\r' {
				l.pos++
			}
			continue
		}
		return
	}
}

// next returns the next token; ok is false at the end of the stream. depth
// bounds nested arrays and dicts.
func (l *lexer) next(depth int) (operand, bool) {
	l.skipSpace()
	if l.pos >= len(l.b) {
		return operand{}, false
	}
	c := l.b[l.pos]
	switch {
	case c == '(':
		return operand{kind: kStr, str: l.literal()}, true
	case c == '<':
		if l.pos+1 < len(l.b) && l.b[l.pos+1] == '<' {
			l.pos += 2
			l.skipDict(depth)
			return operand{kind: kDict}, true
		}
		return operand{kind: kStr, str: l.hex()}, true
	case c == '/':
		l.pos++
		s := l.pos
		for l.pos < len(l.b) && !isSpace(l.b[l.pos]) && !isDelim(l.b[l.pos]) {
			l.pos++
		}
		return operand{kind: kName, str: l.b[s:l.pos]}, true
	case c == '[':
		return l.array(depth), true
	case c == '+' || c == '-' || c == '.' || (c >= '0' && c <= '9'):
		return l.number(), true
	case isDelim(c):
		l.pos++
		return operand{kind: kOther}, true
	}
	s := l.pos
	for l.pos < len(l.b) && !isSpace(l.b[l.pos]) && !isDelim(l.b[l.pos]) {
		l.pos++
	}
	w := l.b[s:l.pos]
	switch string(w) {
	case "true", "false", "null":
		return operand{kind: kOther}, true
	}
	return operand{kind: kOp, str: w}, true
}

// array reads an [array], the lexer at its '['. A top-level array's elements stay in
// the arena (see reset); a nested one's get their own slice.
func (l *lexer) array(depth int) operand {
	l.pos++
	var arr []operand
	nested := depth > 0
	start := len(l.arena)
	done := func() operand {
		if !nested {
			arr = l.arena[start:len(l.arena):len(l.arena)]
		}
		return operand{kind: kArr, arr: arr}
	}
	for {
		l.skipSpace()
		if l.pos >= len(l.b) {
			return done()
		}
		if l.b[l.pos] == ']' {
			l.pos++
			return done()
		}
		if depth > 32 {
			l.pos++
			continue
		}
		o, ok := l.next(depth + 1)
		if !ok || o.kind == kOp { // a malformed array: keep the operator out of it
			return done()
		}
		if nested {
			arr = append(arr, o)
		} else {
			l.arena = append(l.arena, o)
		}
	}
}

// number reads a number, the lexer at its first character.
func (l *lexer) number() operand {
	s := l.pos
	l.pos++
	for l.pos < len(l.b) {
		d := l.b[l.pos]
		if (d >= '0' && d <= '9') || d == '.' || d == '-' || d == '+' {
			l.pos++
			continue
		}
		break
	}
	return operand{kind: kNum, num: parseNum(l.b[s:l.pos])}
}

// parseNum reads a PDF number leniently: "--5" and "1.2.3" occur in the
// wild, and a reader takes what it can.
func parseNum(b []byte) float64 {
	// Fast path for the usual "-12.345": up to 15 digits, one point.
	neg, i := false, 0
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg, i = b[0] == '-', 1
	}
	if i < len(b) && len(b)-i <= 16 {
		n, scale, point, ok := 0, 1.0, false, true
		for j := i; j < len(b); j++ {
			c := b[j]
			switch {
			case c >= '0' && c <= '9':
				n = n*10 + int(c-'0')
				if point {
					scale *= 10
				}
			case c == '.' && !point:
				point = true
			default:
				ok = false
			}
			if !ok {
				break
			}
		}
		if ok && (len(b)-i > 1 || !point) {
			v := float64(n) / scale
			if neg {
				v = -v
			}
			return v
		}
	}
	if f, err := strconv.ParseFloat(string(b), 64); err == nil {
		return f
	}
	// Trim to the longest prefix that parses.
	for k := len(b) - 1; k > 0; k-- {
		if f, err := strconv.ParseFloat(string(b[:k]), 64); err == nil {
			return f
		}
	}
	return 0
}

func (l *lexer) skipDict(depth int) {
	for l.pos < len(l.b) {
		l.skipSpace()
		if l.pos+1 < len(l.b) && l.b[l.pos] == '>' && l.b[l.pos+1] == '>' {
			l.pos += 2
			return
		}
		if l.pos >= len(l.b) {
			return
		}
		if depth > 32 {
			l.pos++
			continue
		}
		if _, ok := l.next(depth + 1); !ok {
			return
		}
	}
}

// literal reads a (string) with its escapes, the lexer at its '('.
func (l *lexer) literal() []byte {
	l.pos++
	// Most strings have no escapes and no nested parentheses: return a
	// slice of the stream.
	for i := l.pos; i < len(l.b); i++ {
		c := l.b[i]
		if c == '\\' || c == '(' || c == '\r' {
			break
		}
		if c == ')' {
			s := l.b[l.pos:i]
			l.pos = i + 1
			return s
		}
	}
	var out []byte
	nest := 1
	for l.pos < len(l.b) {
		c := l.b[l.pos]
		l.pos++
		switch c {
		case '(':
			nest++
		case ')':
			nest--
			if nest == 0 {
				return out
			}
		case '\r':
			if l.pos < len(l.b) && l.b[l.pos] == '\n' {
				l.pos++
			}
			c = '\n'
		case '\\':
			if l.pos >= len(l.b) {
				return out
			}
			e := l.b[l.pos]
			l.pos++
			switch e {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case '\r':
				if l.pos < len(l.b) && l.b[l.pos] == '\n' {
					l.pos++
				}
				continue
			case '\n':
				continue
			default:
				if e >= '0' && e <= '7' {
					v := int(e - '0')
					for k := 0; k < 2 && l.pos < len(l.b) && l.b[l.pos] >= '0' && l.b[l.pos] <= '7'; k++ {
						v = v*8 + int(l.b[l.pos]-'0')
						l.pos++
					}
					c = byte(v)
				} else {
					c = e
				}
			}
		}
		out = append(out, c)
	}
	return out
}

// hex reads a <hex string>, the lexer at its '<'.
func (l *lexer) hex() []byte {
	l.pos++
	var out []byte
	hi, half := byte(0), false
	for l.pos < len(l.b) {
		c := l.b[l.pos]
		l.pos++
		var v byte
		switch {
		case c == '>':
			if half {
				out = append(out, hi<<4)
			}
			return out
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		default:
			continue
		}
		if half {
			out = append(out, hi<<4|v)
		} else {
			hi = v
		}
		half = !half
	}
	return out
}

// skipInlineImage moves past an inline image's data, the lexer just after
// its ID operator: to an "EI" standing alone between white space.
func (l *lexer) skipInlineImage() {
	if l.pos < len(l.b) && isSpace(l.b[l.pos]) {
		l.pos++
	}
	for {
		i := bytes.Index(l.b[l.pos:], []byte("EI"))
		if i < 0 {
			l.pos = len(l.b)
			return
		}
		at := l.pos + i
		l.pos = at + 2
		before := at == 0 || isSpace(l.b[at-1])
		after := l.pos >= len(l.b) || isSpace(l.b[l.pos]) || isDelim(l.b[l.pos])
		if before && after {
			return
		}
	}
}
