// Package gguf writes a tiny llama-architecture model in the GGUF v3 format.
//
// The model has random weights (seeded, so the same [Options] always give the
// same bytes), two transformer blocks of width 64 and a SentencePiece-style
// vocabulary of control tokens, the 256 byte tokens and a few "▁word" pieces.
// It is gibberish, but Ollama imports it with `ollama create` and serves it
// through /api/generate, /api/chat and /api/embed, so tests can exercise a
// real server without downloading weights.
//
// The output projection is shaped so that sampling prefers the word pieces:
// rows for control and byte tokens are zero and rows for normal tokens are
// scaled up. A stream from the model is therefore mostly readable words,
// never dangling UTF-8 bytes, and rarely ends early with </s>.
package gguf

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
)

// Model shape. These are fixed: the appendix of DESIGN.md records that this
// shape works with Ollama v0.6.5.
const (
	Width       = 64  // llama.embedding_length
	Blocks      = 2   // llama.block_count
	FeedForward = 128 // llama.feed_forward_length
	Heads       = 4   // llama.attention.head_count and head_count_kv
	RopeDims    = Width / Heads
	Alignment   = 32 // general.alignment (the GGUF default)
)

// Token ids of the special tokens.
const (
	UnknownID = 0 // <unk>
	BOSID     = 1 // <s>
	EOSID     = 2 // </s>
)

// Token types of tokenizer.ggml.token_type.
const (
	tokenNormal  = 1
	tokenUnknown = 2
	tokenControl = 3
	tokenByte    = 6
)

// GGUF metadata value types.
const (
	typeUint32  = 4
	typeInt32   = 5
	typeFloat32 = 6
	typeString  = 8
	typeArray   = 9
)

// tensorF32 is the GGUF tensor type of 32-bit floats.
const tensorF32 = 0

// DefaultWords are the whole words of the vocabulary. Each is added as
// "▁word" together with every prefix ("▁w", "▁wo", ...), so that the
// SentencePiece merges can build it from characters when a prompt is
// tokenised.
var DefaultWords = []string{
	"the", "of", "and", "to", "in", "is", "a", "page", "paper", "study", "note",
	"text", "model", "answer", "section", "source",
}

// Options configure [Write]. The zero value is valid.
type Options struct {
	// Seed selects the random weights; 0 means 1.
	Seed uint64
	// ContextLength is llama.context_length; 0 means 4096.
	ContextLength int
	// Words replaces [DefaultWords] when not nil.
	Words []string
	// MeanPool makes an embedding model whose vectors mean something. llama.cpp embeds
	// a llama model by its last token's hidden state, so the first block averages: its
	// queries are zero, so attention is uniform over the text, its values and output are
	// the identity (scaled up), and everything else adds nothing; the last token's state
	// is then mostly the mean of the text's normalised token embeddings (control tokens
	// embed as zero). Texts sharing words are near; give it a vocabulary of whole words
	// (Words) for that to hold at the word level.
	MeanPool bool
	// Vectors, when not nil, are pretrained embeddings of Words (Vectors[i] of Words[i],
	// at most Width long, zero-padded): the model is then a MeanPool embedder whose
	// whole-word pieces embed as their vectors and every other token (prefixes, letters,
	// bytes) as zero, so a text embeds as the mean of its known words' normalised
	// vectors. Its output projection is left out (tied to the embeddings), as an
	// embedder never samples.
	Vectors [][]float32
	// WordPiece gives the model a BERT (WordPiece) vocabulary instead: [UNK], [CLS],
	// [SEP] (at UnknownID, BOSID, EOSID) and one "▁word" token per word, nothing else.
	// llama.cpp's WordPiece tokenizer lower-cases and splits off punctuation, and a word
	// not in the vocabulary becomes [UNK], so a vocabulary of lower-case words covers
	// any casing without prefix pieces. Keep it small all the same: llama.cpp computes
	// the output projection (vocabulary × width) for every token, even when embedding.
	WordPiece bool
	// Weighted makes the Vectors embedder pool the vectors as given, not their
	// normalised directions: a text embeds as the normalised sum of its known words'
	// vectors, so a longer vector weighs more. The first block's RMS norm would otherwise
	// divide every token by its own length, so each vector gets a padding value in the
	// last dimension (Width-1, which the vectors must leave free) that brings every
	// token embedding to one length; the value projection and the output norm then drop
	// that dimension, and the norm divides every token by the same number.
	Weighted bool
	// Width is llama.embedding_length (and the feed-forward width); 0 means [Width].
	// It must be a multiple of 2×[Heads] (even head dimensions for RoPE).
	Width int
}

func (o Options) withDefaults() Options {
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.ContextLength <= 0 {
		o.ContextLength = 4096
	}
	if o.Words == nil {
		o.Words = DefaultWords
	}
	if o.Width <= 0 {
		o.Width = Width
	}
	if o.Vectors != nil {
		o.MeanPool = true
	}
	return o
}

// Vocab returns the tokens, scores and token types that [Write] stores for
// opts, in token-id order.
func Vocab(opts Options) (tokens []string, scores []float32, types []int32) {
	opts = opts.withDefaults()
	add := func(tok string, score float32, typ int32) {
		tokens = append(tokens, tok)
		scores = append(scores, score)
		types = append(types, typ)
	}
	if opts.WordPiece {
		add("[UNK]", 0, tokenUnknown)
		add("[CLS]", 0, tokenControl)
		add("[SEP]", 0, tokenControl)
		for _, w := range opts.Words {
			add("▁"+w, 0, tokenNormal)
		}
		return tokens, scores, types
	}
	add("<unk>", 0, tokenUnknown)
	add("<s>", 0, tokenControl)
	add("</s>", 0, tokenControl)
	for b := range 256 {
		add(fmt.Sprintf("<0x%02X>", b), 0, tokenByte)
	}

	seen := make(map[string]bool)
	addNormal := func(piece string) {
		if seen[piece] {
			return
		}
		seen[piece] = true
		// Longer pieces score higher so SentencePiece merges prefer them.
		add(piece, float32(len([]rune(piece))), tokenNormal)
	}
	addNormal("▁")
	for c := 'a'; c <= 'z'; c++ {
		addNormal(string(c))
	}
	for _, w := range opts.Words {
		piece := []rune("▁" + w)
		for n := 2; n <= len(piece); n++ {
			addNormal(string(piece[:n]))
		}
	}

	return tokens, scores, types
}

type tensor struct {
	name string
	dims []uint64 // fastest-varying first, as GGUF stores them
	data []float32
}

func (t tensor) size() uint64 { return uint64(len(t.data)) * 4 }

type kv struct {
	key   string
	value any // uint32, float32, string, []string, []float32, []int32
}

// Write writes the model described by opts to w.
func Write(w io.Writer, opts Options) error {
	opts = opts.withDefaults()
	if opts.Vectors != nil && len(opts.Vectors) != len(opts.Words) {
		return fmt.Errorf("write gguf: %d vectors for %d words", len(opts.Vectors), len(opts.Words))
	}
	if opts.Width%(2*Heads) != 0 {
		return fmt.Errorf("write gguf: width %d is not a multiple of %d", opts.Width, 2*Heads)
	}
	tokens, scores, types := Vocab(opts)
	nVocab := len(tokens)
	tokenizerModel := "llama"
	if opts.WordPiece {
		tokenizerModel = "bert"
	}
	width := opts.Width
	ffn := width * FeedForward / Width
	w64, f64 := uint64(width), uint64(ffn)

	meta := []kv{
		{"general.architecture", "llama"},
		{"general.name", "carrel-tiny"},
		{"general.alignment", uint32(Alignment)},
		{"llama.context_length", uint32(opts.ContextLength)},
		{"llama.embedding_length", uint32(width)},
		{"llama.block_count", uint32(Blocks)},
		{"llama.feed_forward_length", uint32(ffn)},
		{"llama.attention.head_count", uint32(Heads)},
		{"llama.attention.head_count_kv", uint32(Heads)},
		{"llama.rope.dimension_count", uint32(width / Heads)},
		{"llama.attention.layer_norm_rms_epsilon", float32(1e-5)},
		{"tokenizer.ggml.model", tokenizerModel},
		{"tokenizer.ggml.tokens", tokens},
		{"tokenizer.ggml.scores", scores},
		{"tokenizer.ggml.token_type", types},
		{"tokenizer.ggml.bos_token_id", uint32(BOSID)},
		{"tokenizer.ggml.eos_token_id", uint32(EOSID)},
		{"tokenizer.ggml.unknown_token_id", uint32(UnknownID)},
	}
	if opts.WordPiece {
		meta = append(meta, kv{"tokenizer.ggml.seperator_token_id", uint32(EOSID)}) // sic
	}

	rng := rand.New(rand.NewPCG(opts.Seed, 0x63617272656c)) // "carrel"
	gauss := func(n int, std float64) []float32 {
		out := make([]float32, n)
		for i := range out {
			out[i] = float32(rng.NormFloat64() * std)
		}
		return out
	}
	ones := func(n int) []float32 {
		out := make([]float32, n)
		for i := range out {
			out[i] = 1
		}
		return out
	}

	// The output projection: zero rows for special and byte tokens, larger
	// weights for normal tokens so their logits dominate (see package doc).
	var output []float32
	if opts.Vectors == nil {
		output = make([]float32, width*nVocab)
		for tok := range nVocab {
			if types[tok] != tokenNormal {
				continue
			}
			copy(output[tok*width:], gauss(width, 0.5))
		}
	}

	var embd []float32
	if opts.Vectors == nil {
		embd = gauss(width*nVocab, 0.02)
	}
	tensors := []tensor{
		{"token_embd.weight", []uint64{w64, uint64(nVocab)}, embd},
		{"output_norm.weight", []uint64{w64}, ones(width)},
		{"output.weight", []uint64{w64, uint64(nVocab)}, output},
	}
	// Weights of a block: random, or for a mean-pooling embedder (see Options) zero,
	// except the first block's values and output.
	identity := func(scale float32) []float32 {
		out := make([]float32, width*width)
		for i := range width {
			out[i*width+i] = scale
		}
		return out
	}
	weights := func(b int, name string, n int) []float32 {
		if !opts.MeanPool {
			return gauss(n, 0.02)
		}
		switch {
		case b == 0 && name == "attn_v" && opts.Vectors != nil && opts.Weighted:
			v := identity(1)
			v[(width-1)*width+width-1] = 0 // the padding dimension (see Options.Weighted)
			return v
		case b == 0 && name == "attn_v":
			return identity(1)
		case b == 0 && name == "attn_output":
			return identity(20)
		case name == "attn_k" || name == "ffn_gate" || name == "ffn_up":
			return gauss(n, 0.02) // multiplied by zero queries or outputs: harmless
		}
		return make([]float32, n)
	}
	switch {
	case opts.Vectors != nil:
		id := make(map[string]int, nVocab)
		for tok, piece := range tokens {
			id[piece] = tok
		}
		room := width
		if opts.Weighted {
			room = width - 1 // the padding dimension
		}
		// Weighted: every token embedding gets length sqrt(width) (RMS 1, far above the
		// norm's epsilon), the longest vector's scaled to it and the rest padded up to it.
		scale, pad := 1.0, width-1
		if opts.Weighted {
			longest := 0.0
			for _, v := range opts.Vectors {
				longest = max(longest, norm(v))
			}
			if longest == 0 {
				return fmt.Errorf("write gguf: weighted vectors are all zero")
			}
			scale = math.Sqrt(float64(width)) / longest
		}
		emb := make([]float32, width*nVocab)
		for i, word := range opts.Words {
			if len(opts.Vectors[i]) > room {
				return fmt.Errorf("write gguf: vector of %q has %d dimensions, more than %d", word, len(opts.Vectors[i]), room)
			}
			row := emb[id["▁"+word]*width : (id["▁"+word]+1)*width]
			if !opts.Weighted {
				copy(row, opts.Vectors[i])
				continue
			}
			for j, x := range opts.Vectors[i] {
				row[j] = float32(float64(x) * scale)
			}
			row[pad] = float32(math.Sqrt(max(0, float64(width)-sq(row[:pad]))))
		}
		tensors[0].data = emb
		tensors = tensors[:2] // no output projection: llama ties it to token_embd
		if opts.Weighted {
			tensors[1].data[pad] = 0 // output_norm.weight
		}
	case opts.MeanPool:
		emb := gauss(width*nVocab, 1)
		for tok := range nVocab {
			if types[tok] == tokenControl || types[tok] == tokenUnknown {
				clear(emb[tok*width : (tok+1)*width])
			}
		}
		tensors[0].data = emb
	}
	for b := range Blocks {
		p := fmt.Sprintf("blk.%d.", b)
		tensors = append(tensors,
			tensor{p + "attn_norm.weight", []uint64{w64}, ones(width)},
			tensor{p + "attn_q.weight", []uint64{w64, w64}, weights(b, "attn_q", width*width)},
			tensor{p + "attn_k.weight", []uint64{w64, w64}, weights(b, "attn_k", width*width)},
			tensor{p + "attn_v.weight", []uint64{w64, w64}, weights(b, "attn_v", width*width)},
			tensor{p + "attn_output.weight", []uint64{w64, w64}, weights(b, "attn_output", width*width)},
			tensor{p + "ffn_norm.weight", []uint64{w64}, ones(width)},
			tensor{p + "ffn_gate.weight", []uint64{w64, f64}, weights(b, "ffn_gate", width*ffn)},
			tensor{p + "ffn_down.weight", []uint64{f64, w64}, weights(b, "ffn_down", ffn*width)},
			tensor{p + "ffn_up.weight", []uint64{w64, f64}, weights(b, "ffn_up", width*ffn)},
		)
	}

	ew := &errWriter{w: bufio.NewWriter(w)}
	ew.raw([]byte("GGUF"))
	ew.u32(3)
	ew.u64(uint64(len(tensors)))
	ew.u64(uint64(len(meta)))
	for _, m := range meta {
		ew.str(m.key)
		ew.value(m.value)
	}
	var offset uint64
	for _, t := range tensors {
		ew.str(t.name)
		ew.u32(uint32(len(t.dims)))
		for _, d := range t.dims {
			ew.u64(d)
		}
		ew.u32(tensorF32)
		ew.u64(offset)
		offset = align(offset + t.size())
	}
	ew.pad()
	for _, t := range tensors {
		for _, f := range t.data {
			ew.u32(math.Float32bits(f))
		}
		ew.pad()
	}
	if ew.err != nil {
		return fmt.Errorf("write gguf: %w", ew.err)
	}
	if err := ew.w.Flush(); err != nil {
		return fmt.Errorf("write gguf: %w", err)
	}
	return nil
}

func sq(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return s
}

func norm(v []float32) float64 { return math.Sqrt(sq(v)) }

func align(n uint64) uint64 { return (n + Alignment - 1) / Alignment * Alignment }

// errWriter writes little-endian GGUF values and remembers the first error.
type errWriter struct {
	w   *bufio.Writer
	n   uint64
	err error
	buf [8]byte
}

func (e *errWriter) raw(p []byte) {
	if e.err != nil {
		return
	}
	var n int
	n, e.err = e.w.Write(p)
	e.n += uint64(n)
}

func (e *errWriter) u32(v uint32) {
	binary.LittleEndian.PutUint32(e.buf[:4], v)
	e.raw(e.buf[:4])
}

func (e *errWriter) u64(v uint64) {
	binary.LittleEndian.PutUint64(e.buf[:8], v)
	e.raw(e.buf[:8])
}

func (e *errWriter) str(s string) {
	e.u64(uint64(len(s)))
	e.raw([]byte(s))
}

func (e *errWriter) pad() {
	if rem := align(e.n) - e.n; rem > 0 {
		e.raw(make([]byte, rem))
	}
}

func (e *errWriter) value(v any) {
	switch v := v.(type) {
	case uint32:
		e.u32(typeUint32)
		e.u32(v)
	case float32:
		e.u32(typeFloat32)
		e.u32(math.Float32bits(v))
	case string:
		e.u32(typeString)
		e.str(v)
	case []string:
		e.u32(typeArray)
		e.u32(typeString)
		e.u64(uint64(len(v)))
		for _, s := range v {
			e.str(s)
		}
	case []float32:
		e.u32(typeArray)
		e.u32(typeFloat32)
		e.u64(uint64(len(v)))
		for _, f := range v {
			e.u32(math.Float32bits(f))
		}
	case []int32:
		e.u32(typeArray)
		e.u32(typeInt32)
		e.u64(uint64(len(v)))
		for _, i := range v {
			e.u32(uint32(i))
		}
	default:
		if e.err == nil {
			e.err = fmt.Errorf("unsupported metadata type %T", v)
		}
	}
}
