package pdftext

import (
	"strconv"
	"strings"
	"sync"
)

var (
	aglOnce sync.Once
	agl     map[string]string
)

// glyphText returns the Unicode text of a glyph name following the Adobe
// Glyph List rules (AGL names, uniXXXX, uXXXX[XX], "a.sc" variants,
// "f_i" ligatures), or "" when the name says nothing about its character
// (producer names like "g12" or "cid345").
func glyphText(name string) string {
	aglOnce.Do(loadAGL)
	if s, ok := agl[name]; ok {
		return s
	}
	if i := strings.IndexByte(name, '.'); i > 0 {
		name = name[:i]
		if s, ok := agl[name]; ok {
			return s
		}
	}
	if strings.Contains(name, "_") {
		var b strings.Builder
		for part := range strings.SplitSeq(name, "_") {
			s := glyphText(part)
			if s == "" {
				return ""
			}
			b.WriteString(s)
		}
		return b.String()
	}
	if strings.HasPrefix(name, "uni") && len(name) >= 7 && (len(name)-3)%4 == 0 {
		var b strings.Builder
		for i := 3; i < len(name); i += 4 {
			v, err := strconv.ParseUint(name[i:i+4], 16, 32)
			if err != nil || (v >= 0xD800 && v <= 0xDFFF) {
				return ""
			}
			b.WriteRune(rune(v))
		}
		return b.String()
	}
	if len(name) >= 5 && len(name) <= 7 && name[0] == 'u' {
		if v, err := strconv.ParseUint(name[1:], 16, 32); err == nil && v <= 0x10FFFF && (v < 0xD800 || v > 0xDFFF) {
			return string(rune(v))
		}
	}
	return ""
}

func loadAGL() {
	agl = make(map[string]string, 14000)
	for line := range strings.SplitSeq(aglData, "\n") {
		name, codes, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		var b strings.Builder
		for c := range strings.FieldsSeq(codes) {
			v, err := strconv.ParseUint(c, 16, 32)
			if err != nil {
				b.Reset()
				break
			}
			b.WriteRune(rune(v))
		}
		if b.Len() > 0 {
			agl[name] = b.String()
		}
	}
	// pypdf's table maps the names "a1"…"a255" to the byte values, a guess
	// for producers' numbered glyphs that is more often wrong than right;
	// the ZapfDingbats names among them are kept by the font's encoding.
	for i := range 256 {
		delete(agl, "a"+strconv.Itoa(i))
	}
	delete(agl, ".notdef")
}
