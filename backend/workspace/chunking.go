package workspace

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/carrel-app/carrel/backend/chunk"
	"github.com/carrel-app/carrel/backend/document"
)

// ChunkField describes one numeric field of a chunking profile (chunk.Options), so the
// settings panel can show every field, including ones added later, without knowing them.
type ChunkField struct {
	Name    string  `json:"name"`
	Integer bool    `json:"integer"`
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
}

// ChunkSettings is the chunking section of the settings: the document types, each
// type's sizes in force, and the built-in defaults.
type ChunkSettings struct {
	DocTypes []document.Type                      `json:"doc_types"`
	Profiles map[document.Type]map[string]float64 `json:"profiles"`
	Defaults map[document.Type]map[string]float64 `json:"defaults"`
	Fields   []ChunkField                         `json:"fields"`
	// Error says why the library's chunking.json was not used (the defaults are then in force).
	Error string `json:"error"`
}

// chunkFields lists the numeric fields of chunk.Options by their JSON names. Integer
// fields are sizes in characters; fractional ones (overlap) are shares of a chunk.
func chunkFields() []ChunkField {
	var out []ChunkField
	t := reflect.TypeFor[chunk.Options]()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		switch f.Type.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			out = append(out, ChunkField{Name: name, Integer: true, Min: 1, Max: 100_000})
		case reflect.Float32, reflect.Float64:
			// chunk.Options clamps overlaps to half a chunk; 0 means "the default" in
			// chunking.json, so the smallest share that can be set is 0.01.
			out = append(out, ChunkField{Name: name, Min: 0.01, Max: 0.5})
		}
	}
	return out
}

// numbers turns a chunk.Options into its numeric fields by JSON name.
func numbers(o chunk.Options, fields []ChunkField) map[string]float64 {
	b, _ := json.Marshal(o)
	var all map[string]any
	json.Unmarshal(b, &all)
	out := map[string]float64{}
	for _, f := range fields {
		if v, ok := all[f.Name].(float64); ok {
			out[f.Name] = v
		}
	}
	return out
}

func (w *Workspace) chunkingPath() string {
	return filepath.Join(w.eng.Config().Dir, chunk.ProfilesFile)
}

// ChunkSettings returns the chunk sizes per document type, as read from the library's
// chunking.json over the defaults.
func (w *Workspace) ChunkSettings() ChunkSettings {
	fields := chunkFields()
	out := ChunkSettings{DocTypes: slices.Clone(document.Types), Fields: fields,
		Profiles: map[document.Type]map[string]float64{}, Defaults: map[document.Type]map[string]float64{}}
	cur, err := chunk.LoadProfiles(w.chunkingPath())
	if err != nil {
		out.Error = err.Error()
	}
	def := chunk.DefaultProfiles()
	for _, t := range out.DocTypes {
		out.Profiles[t] = numbers(cur.For(t), fields)
		out.Defaults[t] = numbers(def.For(t), fields)
	}
	return out
}

// SetChunkSettings saves chunk sizes per document type in the library's chunking.json
// (only what differs from the defaults; all defaults remove the file) and returns them
// as now in force. They apply to documents added afterwards. A bad value is an error
// naming it as "type.field: what is wrong", one per line.
func (w *Workspace) SetChunkSettings(profiles map[document.Type]map[string]float64) (ChunkSettings, error) {
	fields := chunkFields()
	if err := validateChunking(profiles, fields); err != nil {
		return ChunkSettings{}, err
	}
	file := overrides(profiles, fields)
	path := w.chunkingPath()
	if len(file) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return ChunkSettings{}, fmt.Errorf("reset chunk sizes: %w", err)
		}
		return w.ChunkSettings(), nil
	}
	b, _ := json.MarshalIndent(file, "", "  ")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return ChunkSettings{}, fmt.Errorf("save chunk sizes: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return ChunkSettings{}, fmt.Errorf("save chunk sizes: %w", err)
	}
	return w.ChunkSettings(), nil
}

// overrides keeps the values of profiles that differ from the defaults, as chunking.json
// holds them (whole numbers as integers).
func overrides(profiles map[document.Type]map[string]float64, fields []ChunkField) map[document.Type]map[string]any {
	def := chunk.DefaultProfiles()
	file := map[document.Type]map[string]any{}
	for _, t := range document.Types {
		p, ok := profiles[t]
		if !ok {
			continue
		}
		d := numbers(def.For(t), fields)
		for _, f := range fields {
			v, ok := p[f.Name]
			if !ok || v == d[f.Name] {
				continue
			}
			if file[t] == nil {
				file[t] = map[string]any{}
			}
			if f.Integer {
				file[t][f.Name] = int64(v)
			} else {
				file[t][f.Name] = v
			}
		}
	}
	return file
}

// typeList names the document types for a message: "paper, textbook, …".
func typeList() string {
	names := make([]string, len(document.Types))
	for i, t := range document.Types {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}

// validateChunking checks every value: a known type and field, a number in range, whole
// where it counts characters, and for each family of sizes (target, min, max, or
// child_target, child_min, child_max…) min ≤ target ≤ max.
func validateChunking(profiles map[document.Type]map[string]float64, fields []ChunkField) error {
	byName := map[string]ChunkField{}
	for _, f := range fields {
		byName[f.Name] = f
	}
	var errs []string
	types := make([]document.Type, 0, len(profiles))
	for t := range profiles {
		types = append(types, t)
	}
	slices.Sort(types)
	for _, t := range types {
		p := profiles[t]
		if !slices.Contains(document.Types, t) {
			errs = append(errs, fmt.Sprintf("%s: not a document type (one of %s)", t, typeList()))
			continue
		}
		names := make([]string, 0, len(p))
		for n := range p {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			v := p[n]
			f, ok := byName[n]
			switch {
			case !ok:
				errs = append(errs, fmt.Sprintf("%s.%s: not a chunking setting", t, n))
			case math.IsNaN(v) || math.IsInf(v, 0):
				errs = append(errs, fmt.Sprintf("%s.%s: must be a number", t, n))
			case f.Integer && v != math.Trunc(v):
				errs = append(errs, fmt.Sprintf("%s.%s: must be a whole number of characters", t, n))
			case v < f.Min || v > f.Max:
				errs = append(errs, fmt.Sprintf("%s.%s: must be between %g and %g", t, n, f.Min, f.Max))
			}
		}
		for _, n := range names {
			prefix, ok := strings.CutSuffix(n, "target")
			if !ok {
				continue
			}
			target := p[n]
			if lo, ok := p[prefix+"min"]; ok && lo > target {
				errs = append(errs, fmt.Sprintf("%s.%smin: must be at most the %starget (%g)", t, prefix, strings.ReplaceAll(prefix, "_", " "), target))
			}
			if hi, ok := p[prefix+"max"]; ok && hi < target {
				errs = append(errs, fmt.Sprintf("%s.%smax: must be at least the %starget (%g)", t, prefix, strings.ReplaceAll(prefix, "_", " "), target))
			}
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "\n"))
	}
	return nil
}
