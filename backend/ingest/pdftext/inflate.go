package pdftext

import (
	"bytes"
	"errors"
	"io"
	"sync"

	"github.com/klauspost/compress/zlib"
)

// Content streams are nearly all plain Flate. klauspost's inflater is
// faster than the standard library's that pdfcpu uses, and its readers are
// reused: decoding was a fifth of extraction.
var inflaters sync.Pool

var errTooLarge = errors.New("the stream inflates beyond the limit")

func inflate(raw []byte, limit int) ([]byte, error) {
	src := bytes.NewReader(raw)
	var zr io.ReadCloser
	if v := inflaters.Get(); v != nil {
		zr = v.(io.ReadCloser)
		if err := zr.(zlib.Resetter).Reset(src, nil); err != nil {
			return nil, err
		}
	} else {
		var err error
		if zr, err = zlib.NewReader(src); err != nil {
			return nil, err
		}
	}
	defer inflaters.Put(zr)
	out := bytes.NewBuffer(make([]byte, 0, min(limit, 4*len(raw)+512)))
	n, err := out.ReadFrom(io.LimitReader(zr, int64(limit)+1))
	if err != nil {
		return nil, err
	}
	if n > int64(limit) {
		return nil, errTooLarge
	}
	return out.Bytes(), nil
}
