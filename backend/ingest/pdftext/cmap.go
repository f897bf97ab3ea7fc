package pdftext

import (
	"unicode/utf16"
)

// A cmap holds what a CMap stream says: its code space (how many bytes
// each code takes), code → Unicode (a ToUnicode CMap) and code → CID (an
// encoding CMap). Ranges are kept as ranges: one bfrange can span 64k codes.
type cmap struct {
	space    []codeRange
	single   map[uint32]string
	ranges   []uniRange
	cids     map[uint32]uint32
	cidRange []cidRange
}

type codeRange struct {
	n      int // bytes
	lo, hi uint32
}

type uniRange struct {
	lo, hi uint32
	dst    []uint16 // UTF-16 of lo's text; the last unit counts up
	list   []string // or one text per code
}

type cidRange struct{ lo, hi, cid uint32 }

// maxCMapEntries bounds what one CMap may hold, against hostile files.
const maxCMapEntries = 1 << 17

func codeOf(b []byte) uint32 {
	var c uint32
	for _, x := range b[:min(len(b), 4)] {
		c = c<<8 | uint32(x)
	}
	return c
}

func utf16Text(b []byte) string {
	if len(b) == 1 { // one byte destinations occur in sloppy CMaps
		return string(rune(b[0]))
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
	}
	return string(utf16.Decode(u))
}

// parseCMap reads a CMap stream. It never fails: what it cannot read is
// left out, and the caller's confidence check sees the unmapped codes.
func parseCMap(data []byte) *cmap {
	m := &cmap{single: map[uint32]string{}}
	l := &lexer{b: data}
	var stack []operand // operands since the last operator
	entries := 0
	for {
		o, ok := l.next(0)
		if !ok {
			break
		}
		if o.kind != kOp {
			if len(stack) < 1024 {
				stack = append(stack, o)
			}
			continue
		}
		switch string(o.str) {
		case "endcodespacerange":
			m.addSpace(stack)
		case "endbfchar":
			entries = m.addBFChars(stack, entries)
		case "endbfrange":
			entries = m.addBFRanges(stack, entries)
		case "endcidchar":
			entries = m.addCIDChars(stack, entries)
		case "endcidrange":
			entries = m.addCIDRanges(stack, entries)
		}
		stack = stack[:0]
	}
	return m
}

// addSpace reads a codespacerange's pairs of low and high codes.
func (m *cmap) addSpace(stack []operand) {
	for i := 0; i+1 < len(stack); i += 2 {
		lo, hi := stack[i], stack[i+1]
		if lo.kind == kStr && hi.kind == kStr && len(lo.str) > 0 && len(lo.str) <= 4 {
			m.space = append(m.space, codeRange{n: len(lo.str), lo: codeOf(lo.str), hi: codeOf(hi.str)})
		}
	}
}

// addBFChars reads a bfchar block's code → text pairs (text as UTF-16 or a glyph name)
// while entries, the CMap's count so far, is under maxCMapEntries; it returns the count.
func (m *cmap) addBFChars(stack []operand, entries int) int {
	for i := 0; i+1 < len(stack) && entries < maxCMapEntries; i += 2 {
		src, dst := stack[i], stack[i+1]
		if src.kind != kStr {
			continue
		}
		switch dst.kind {
		case kStr:
			m.single[codeOf(src.str)] = utf16Text(dst.str)
		case kName:
			m.single[codeOf(src.str)] = glyphText(string(dst.str))
		}
		entries++
	}
	return entries
}

// addBFRanges reads a bfrange block's low code, high code and destination triples, as
// addBFChars its pairs.
func (m *cmap) addBFRanges(stack []operand, entries int) int {
	for i := 0; i+2 < len(stack) && entries < maxCMapEntries; i += 3 {
		lo, hi, dst := stack[i], stack[i+1], stack[i+2]
		if lo.kind != kStr || hi.kind != kStr {
			continue
		}
		r, ok := bfRange(lo, hi, dst)
		if !ok {
			continue
		}
		m.ranges = append(m.ranges, r)
		entries++
	}
	return entries
}

// bfRange is the range from code lo to hi mapped to dst: the first code's UTF-16 text
// (counting up) or an array of one text per code. It is false for what cannot be read
// and for a range of more than 64k codes.
func bfRange(lo, hi, dst operand) (uniRange, bool) {
	r := uniRange{lo: codeOf(lo.str), hi: codeOf(hi.str)}
	if r.hi < r.lo || r.hi-r.lo > 0xFFFF {
		return r, false
	}
	switch dst.kind {
	case kStr:
		if len(dst.str) < 2 {
			if len(dst.str) == 1 {
				r.dst = []uint16{uint16(dst.str[0])}
			} else {
				return r, false
			}
		} else {
			r.dst = make([]uint16, len(dst.str)/2)
			for k := range r.dst {
				r.dst[k] = uint16(dst.str[2*k])<<8 | uint16(dst.str[2*k+1])
			}
		}
	case kArr:
		for _, e := range dst.arr {
			if e.kind == kStr {
				r.list = append(r.list, utf16Text(e.str))
			} else {
				r.list = append(r.list, "")
			}
		}
	default:
		return r, false
	}
	return r, true
}

// addCIDChars reads a cidchar block's code → CID pairs, as addBFChars its pairs.
func (m *cmap) addCIDChars(stack []operand, entries int) int {
	for i := 0; i+1 < len(stack) && entries < maxCMapEntries; i += 2 {
		if stack[i].kind == kStr && stack[i+1].kind == kNum {
			if m.cids == nil {
				m.cids = map[uint32]uint32{}
			}
			m.cids[codeOf(stack[i].str)] = uint32(max(0, stack[i+1].num))
			entries++
		}
	}
	return entries
}

// addCIDRanges reads a cidrange block's low code, high code and first CID triples.
func (m *cmap) addCIDRanges(stack []operand, entries int) int {
	for i := 0; i+2 < len(stack) && entries < maxCMapEntries; i += 3 {
		if stack[i].kind == kStr && stack[i+1].kind == kStr && stack[i+2].kind == kNum {
			m.cidRange = append(m.cidRange, cidRange{codeOf(stack[i].str), codeOf(stack[i+1].str), uint32(max(0, stack[i+2].num))})
			entries++
		}
	}
	return entries
}

// text returns the Unicode text of code, if the CMap maps it.
func (m *cmap) text(code uint32) (string, bool) {
	if s, ok := m.single[code]; ok {
		return s, true
	}
	for i := range m.ranges {
		r := &m.ranges[i]
		if code < r.lo || code > r.hi {
			continue
		}
		off := code - r.lo
		if r.list != nil {
			if int(off) < len(r.list) {
				return r.list[off], true
			}
			return "", false
		}
		u := append([]uint16(nil), r.dst...)
		u[len(u)-1] += uint16(off)
		return string(utf16.Decode(u)), true
	}
	return "", false
}

// cid returns the CID of code under an encoding CMap.
func (m *cmap) cid(code uint32) uint32 {
	if c, ok := m.cids[code]; ok {
		return c
	}
	for _, r := range m.cidRange {
		if code >= r.lo && code <= r.hi {
			return r.cid + code - r.lo
		}
	}
	return 0
}

// codeLen returns how many bytes the code at the start of b takes under
// the code space, or 0 when no range matches.
func codeLen(space []codeRange, b []byte) int {
	for n := 1; n <= 4 && n <= len(b); n++ {
		c := codeOf(b[:n])
		for _, r := range space {
			if r.n == n && c >= r.lo && c <= r.hi {
				return n
			}
		}
	}
	return 0
}
