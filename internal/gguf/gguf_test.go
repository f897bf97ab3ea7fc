package gguf

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"testing"

	"github.com/ollama/ollama/fs/ggml"
)

// parsed is what readGGUF finds in a file.
type parsed struct {
	version     uint32
	kv          map[string]any
	tensors     []tensorInfo
	dataOffset  uint64 // start of the tensor data section
	fileSize    uint64
	tensorBytes map[string][]byte
}

type tensorInfo struct {
	name   string
	dims   []uint64
	typ    uint32
	offset uint64
}

// readGGUF is an independent, strict reader of the subset of GGUF that Write
// produces.
func readGGUF(b []byte) (*parsed, error) {
	r := bytes.NewReader(b)
	var err error
	rd := func(v any) {
		if err == nil {
			err = binary.Read(r, binary.LittleEndian, v)
		}
	}
	str := func() string {
		var n uint64
		rd(&n)
		if err != nil || n > uint64(r.Len()) {
			if err == nil {
				err = fmt.Errorf("string length %d past end", n)
			}
			return ""
		}
		s := make([]byte, n)
		_, err = io.ReadFull(r, s)
		return string(s)
	}
	var scalar func(typ uint32) any
	scalar = func(typ uint32) any {
		switch typ {
		case typeUint32:
			var v uint32
			rd(&v)
			return v
		case typeInt32:
			var v int32
			rd(&v)
			return v
		case typeFloat32:
			var v float32
			rd(&v)
			return v
		case typeString:
			return str()
		case typeArray:
			var et uint32
			var n uint64
			rd(&et)
			rd(&n)
			out := make([]any, 0, n)
			for range n {
				out = append(out, scalar(et))
			}
			return out
		default:
			err = fmt.Errorf("unexpected value type %d", typ)
			return nil
		}
	}

	magic := make([]byte, 4)
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != "GGUF" {
		return nil, fmt.Errorf("bad magic %q", magic)
	}
	p := &parsed{kv: map[string]any{}, fileSize: uint64(len(b)), tensorBytes: map[string][]byte{}}
	var nTensors, nKV uint64
	rd(&p.version)
	rd(&nTensors)
	rd(&nKV)
	for range nKV {
		key := str()
		var typ uint32
		rd(&typ)
		p.kv[key] = scalar(typ)
	}
	for range nTensors {
		var ti tensorInfo
		ti.name = str()
		var nd uint32
		rd(&nd)
		ti.dims = make([]uint64, nd)
		for i := range ti.dims {
			rd(&ti.dims[i])
		}
		rd(&ti.typ)
		rd(&ti.offset)
		p.tensors = append(p.tensors, ti)
	}
	if err != nil {
		return nil, err
	}
	pos := uint64(len(b) - r.Len())
	p.dataOffset = align(pos)
	for _, ti := range p.tensors {
		n := uint64(4)
		for _, d := range ti.dims {
			n *= d
		}
		start := p.dataOffset + ti.offset
		if start+n > uint64(len(b)) {
			return nil, fmt.Errorf("tensor %s [%d,%d) past end %d", ti.name, start, start+n, len(b))
		}
		p.tensorBytes[ti.name] = b[start : start+n]
	}
	return p, nil
}

func TestWriteParsesBack(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, Options{}); err != nil {
		t.Fatal(err)
	}
	p, err := readGGUF(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	tokens, _, _ := Vocab(Options{})
	nVocab := uint64(len(tokens))

	// The file is parsed once; each subtest checks one part of it.
	t.Run("version and metadata", func(t *testing.T) {
		if p.version != 3 {
			t.Errorf("version = %d, want 3", p.version)
		}
		if got, want := len(p.tensors), 3+9*Blocks; got != want {
			t.Errorf("tensor count = %d, want %d", got, want)
		}
		if got := len(p.kv); got != 18 {
			t.Errorf("metadata count = %d, want 18", got)
		}
		for key, want := range map[string]any{
			"general.architecture":                   "llama",
			"llama.context_length":                   uint32(4096),
			"llama.embedding_length":                 uint32(64),
			"llama.block_count":                      uint32(2),
			"llama.feed_forward_length":              uint32(128),
			"llama.attention.head_count":             uint32(4),
			"llama.attention.head_count_kv":          uint32(4),
			"llama.rope.dimension_count":             uint32(16),
			"llama.attention.layer_norm_rms_epsilon": float32(1e-5),
			"tokenizer.ggml.model":                   "llama",
			"tokenizer.ggml.bos_token_id":            uint32(1),
			"tokenizer.ggml.eos_token_id":            uint32(2),
			"tokenizer.ggml.unknown_token_id":        uint32(0),
		} {
			if got := p.kv[key]; got != want {
				t.Errorf("%s = %v (%T), want %v (%T)", key, got, got, want, want)
			}
		}
	})

	t.Run("the vocabulary", func(t *testing.T) {
		toks, _ := p.kv["tokenizer.ggml.tokens"].([]any)
		if uint64(len(toks)) != nVocab {
			t.Fatalf("tokens: %d, want %d", len(toks), nVocab)
		}
		for i, want := range map[int]string{0: "<unk>", 1: "<s>", 2: "</s>", 3: "<0x00>", 3 + 0x41: "<0x41>", 258: "<0xFF>", 259: "▁"} {
			if toks[i] != want {
				t.Errorf("token %d = %q, want %q", i, toks[i], want)
			}
		}
		for _, key := range []string{"tokenizer.ggml.scores", "tokenizer.ggml.token_type"} {
			if arr, _ := p.kv[key].([]any); uint64(len(arr)) != nVocab {
				t.Errorf("%s has %d entries, want %d", key, len(arr), nVocab)
			}
		}
		types := p.kv["tokenizer.ggml.token_type"].([]any)
		for i, want := range map[int]int32{0: 2, 1: 3, 2: 3, 3: 6, 258: 6, 259: 1} {
			if types[i] != want {
				t.Errorf("token_type[%d] = %v, want %d", i, types[i], want)
			}
		}
	})

	t.Run("tensors aligned, F32, in their shapes", func(t *testing.T) {
		if p.dataOffset%Alignment != 0 {
			t.Errorf("data section at %d, not %d-aligned", p.dataOffset, Alignment)
		}
		if p.fileSize%Alignment != 0 {
			t.Errorf("file size %d not padded to %d", p.fileSize, Alignment)
		}
		shapes := map[string][]uint64{
			"token_embd.weight":        {64, nVocab},
			"output_norm.weight":       {64},
			"output.weight":            {64, nVocab},
			"blk.0.attn_norm.weight":   {64},
			"blk.1.attn_q.weight":      {64, 64},
			"blk.1.attn_k.weight":      {64, 64},
			"blk.1.attn_v.weight":      {64, 64},
			"blk.1.attn_output.weight": {64, 64},
			"blk.1.ffn_norm.weight":    {64},
			"blk.0.ffn_gate.weight":    {64, 128},
			"blk.0.ffn_down.weight":    {128, 64},
			"blk.0.ffn_up.weight":      {64, 128},
			"blk.1.ffn_up.weight":      {64, 128},
			"blk.1.attn_norm.weight":   {64},
			"blk.0.attn_output.weight": {64, 64},
			"blk.0.ffn_norm.weight":    {64},
		}
		seen := map[string]bool{}
		for _, ti := range p.tensors {
			seen[ti.name] = true
			if ti.typ != tensorF32 {
				t.Errorf("%s: type %d, want F32", ti.name, ti.typ)
			}
			if ti.offset%Alignment != 0 {
				t.Errorf("%s: offset %d not aligned", ti.name, ti.offset)
			}
			if want, ok := shapes[ti.name]; ok && fmt.Sprint(ti.dims) != fmt.Sprint(want) {
				t.Errorf("%s: dims %v, want %v", ti.name, ti.dims, want)
			}
		}
		for name := range shapes {
			if !seen[name] {
				t.Errorf("missing tensor %s", name)
			}
		}
	})

	t.Run("weights initialised", func(t *testing.T) {
		// Norms are 1; other weights are small, finite and not all zero.
		f32 := func(b []byte, i int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])) }
		if v := f32(p.tensorBytes["output_norm.weight"], 63); v != 1 {
			t.Errorf("output_norm[63] = %v, want 1", v)
		}
		q := p.tensorBytes["blk.0.attn_q.weight"]
		var sum2 float64
		for i := range len(q) / 4 {
			v := float64(f32(q, i))
			if math.IsNaN(v) || math.Abs(v) > 0.2 {
				t.Fatalf("attn_q[%d] = %v", i, v)
			}
			sum2 += v * v
		}
		if std := math.Sqrt(sum2 / float64(len(q)/4)); std < 0.015 || std > 0.025 {
			t.Errorf("attn_q std = %.4f, want about 0.02", std)
		}
	})

	t.Run("under 1 MiB", func(t *testing.T) {
		if size := buf.Len(); size > 1<<20 {
			t.Errorf("model is %d bytes, want well under 1 MiB", size)
		}
	})
}

func TestWriteIsDeterministic(t *testing.T) {
	var a, b, c bytes.Buffer
	if err := Write(&a, Options{Seed: 7}); err != nil {
		t.Fatal(err)
	}
	if err := Write(&b, Options{Seed: 7}); err != nil {
		t.Fatal(err)
	}
	if err := Write(&c, Options{Seed: 8}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("same seed gave different bytes")
	}
	if bytes.Equal(a.Bytes(), c.Bytes()) {
		t.Error("different seeds gave the same bytes")
	}
}

// TestOllamaDecodes checks the file with the decoder `ollama create` uses.
func TestOllamaDecodes(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, Options{ContextLength: 2048}); err != nil {
		t.Fatal(err)
	}
	f, _, err := ggml.Decode(bytes.NewReader(buf.Bytes()), -1)
	if err != nil {
		t.Fatal(err)
	}
	kv := f.KV()
	if kv.Architecture() != "llama" || kv.ContextLength() != 2048 || kv.EmbeddingLength() != 64 || kv.BlockCount() != 2 {
		t.Errorf("kv: arch %q ctx %d width %d blocks %d", kv.Architecture(), kv.ContextLength(), kv.EmbeddingLength(), kv.BlockCount())
	}
	tokens, _, _ := Vocab(Options{})
	if got := len(kv.Strings("tokenizer.ggml.tokens")); got != len(tokens) {
		t.Errorf("ollama sees %d tokens, want %d", got, len(tokens))
	}
	if got := len(f.Tensors().Items()); got != 3+9*Blocks {
		t.Errorf("ollama sees %d tensors", got)
	}
	if f.Tensors().Offset%Alignment != 0 {
		t.Errorf("ollama data offset %d not aligned", f.Tensors().Offset)
	}
}
