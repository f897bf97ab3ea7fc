package chunk

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/carrel-app/carrel/backend/document"
)

// Profiles maps a document type ([document.Types]) to the options its documents are
// split with; chunking.json's keys are the types as spelled there.
type Profiles map[document.Type]Options

// DefaultProfiles are the chunk sizes per document type; docs/chunking.md
// says why each is what it is. Sizes are characters:
// about 4 per token of English prose, about 3 per token of code.
func DefaultProfiles() Profiles {
	return Profiles{
		// Essays, literature, notes, web articles: ~225 tokens; children ~100.
		document.TypeGeneral: DefaultOptions(),
		// A paragraph of a paper with its claim and evidence: ~300 tokens;
		// children of two or three sentences.
		document.TypePaper: {Target: 1200, Min: 300, Max: 1600, Overlap: 0.15,
			ChildTarget: 450, ChildMin: 120, ChildMax: 650, ChildOverlap: 0.15},
		// An explanation or a worked example: ~375 tokens.
		document.TypeTextbook: {Target: 1500, Min: 400, Max: 2000, Overlap: 0.15,
			ChildTarget: 500, ChildMin: 120, ChildMax: 750, ChildOverlap: 0.15},
		// One option, function or clause with its example: ~250 tokens,
		// cut at headings, little overlap.
		document.TypeDocs: {Target: 1000, Min: 250, Max: 1400, Overlap: 0.10,
			ChildTarget: 400, ChildMin: 100, ChildMax: 600, ChildOverlap: 0.10},
		// One function or type: ~500 tokens of code, cut at declarations;
		// children of ~200 tokens (a block or a short function).
		document.TypeCode: {Target: 1600, Min: 300, Max: 2400, Overlap: 0.10,
			ChildTarget: 600, ChildMin: 150, ChildMax: 900, ChildOverlap: 0.10},
		// One message's point: ~175 tokens; children of a few sentences.
		document.TypeMail: {Target: 700, Min: 150, Max: 1000, Overlap: 0.10,
			ChildTarget: 300, ChildMin: 80, ChildMax: 450, ChildOverlap: 0.10},
	}
}

// For returns the options for documents of docType: its profile, else the
// "general" one, else [DefaultOptions].
func (p Profiles) For(docType document.Type) Options {
	if o, ok := p[docType]; ok {
		return o.sane()
	}
	if o, ok := p[document.TypeGeneral]; ok {
		return o.sane()
	}
	return DefaultOptions()
}

// ProfilesFile is the name of the file in the library folder that
// overrides the default chunk sizes, for example
//
//	{"paper": {"target": 1500, "min": 400, "max": 2000, "overlap": 0.2,
//	           "child_target": 500, "child_min": 120, "child_max": 700, "child_overlap": 0.15}}
//
// A field left out (or 0) keeps its default; a type left out keeps its
// profile. Changed sizes apply to documents ingested afterwards.
const ProfilesFile = "chunking.json"

// LoadProfiles returns [DefaultProfiles] overridden by the JSON file at
// path. A missing file gives the defaults and no error; an unreadable or
// malformed one gives the defaults and the error.
func LoadProfiles(path string) (Profiles, error) {
	p := DefaultProfiles()
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return p, fmt.Errorf("chunk profiles: %w", err)
	}
	var over map[document.Type]Options
	if err := json.Unmarshal(b, &over); err != nil {
		return p, fmt.Errorf("chunk profiles %s: %w", path, err)
	}
	for t, o := range over {
		base, ok := p[t]
		if !ok {
			base = DefaultOptions()
		}
		if o.Target > 0 {
			base.Target = o.Target
		}
		if o.Min > 0 {
			base.Min = o.Min
		}
		if o.Max > 0 {
			base.Max = o.Max
		}
		if o.Overlap > 0 {
			base.Overlap = o.Overlap
		}
		if o.ChildTarget > 0 {
			base.ChildTarget = o.ChildTarget
		}
		if o.ChildMin > 0 {
			base.ChildMin = o.ChildMin
		}
		if o.ChildMax > 0 {
			base.ChildMax = o.ChildMax
		}
		if o.ChildOverlap != 0 {
			base.ChildOverlap = o.ChildOverlap
		}
		p[t] = base.sane()
	}
	return p, nil
}
