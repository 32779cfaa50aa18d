package compress

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Level is how hard the encoders work: a trade of CPU per answer for
// fewer bytes on the wire.
type Level int

// The levels, from cheapest to smallest.
const (
	// Fastest is gzip level 1 and zstd's fastest level (about zstd 1).
	Fastest Level = iota
	// Default is gzip's default level (about 5 in this library) and
	// zstd's default (about zstd 3).
	Default
	// Best is gzip level 9 and zstd's "better compression" level (about
	// zstd 7): zstd's best level costs several times more for a few
	// percent, too much for each answer of an API.
	Best
)

// ParseLevel reads a level's name: "fastest", "default" or "best".
func ParseLevel(name string) (Level, error) {
	switch name {
	case "fastest":
		return Fastest, nil
	case "default":
		return Default, nil
	case "best":
		return Best, nil
	}
	return 0, fmt.Errorf("%q is not a compression level: want \"fastest\", \"default\" or \"best\"", name)
}

// Encodings the writer sends, as Content-Encoding names them.
const (
	// Zstd is Zstandard (RFC 8878), with a window of at most
	// [zstdWindow] as RFC 9659 asks of HTTP.
	Zstd = "zstd"
	// Gzip is gzip (RFC 1952).
	Gzip = "gzip"
)

// zstdWindow is the largest window a zstd answer uses: 8 MiB, the most a
// browser's decoder must accept for Content-Encoding: zstd (RFC 9659 §3).
const zstdWindow = 8 << 20

// encoders holds, per level, the encoders every policy of that level
// shares: one zstd.Encoder (whose EncodeAll is safe for concurrent use)
// and a pool of gzip writers. They are made on first use and live for
// the process, so a reload that makes a new [Policy] allocates none.
type encoders struct {
	once sync.Once
	zstd *zstd.Encoder
	err  error
	gzip sync.Pool // of *gzip.Writer
}

var byLevel [Best + 1]encoders

// forLevel returns the encoders of l, making them on first use.
func forLevel(l Level) (*encoders, error) {
	e := &byLevel[l]
	e.once.Do(func() {
		zl := [...]zstd.EncoderLevel{Fastest: zstd.SpeedFastest, Default: zstd.SpeedDefault, Best: zstd.SpeedBetterCompression}[l]
		e.zstd, e.err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zl), zstd.WithWindowSize(zstdWindow), zstd.WithLowerEncoderMem(true))
		gl := [...]int{Fastest: gzip.BestSpeed, Default: gzip.DefaultCompression, Best: gzip.BestCompression}[l]
		e.gzip.New = func() any {
			w, _ := gzip.NewWriterLevel(nil, gl) // gl is one of gzip's own levels
			return w
		}
	})
	return e, e.err
}

// encode appends the encoding of src in coding to dst.
func (e *encoders) encode(dst []byte, coding string, src []byte) []byte {
	if coding == Zstd {
		return e.zstd.EncodeAll(src, dst)
	}
	buf := bytes.NewBuffer(dst)
	gw := e.gzip.Get().(*gzip.Writer)
	gw.Reset(buf)
	// Writes to a bytes.Buffer do not fail.
	_, _ = gw.Write(src)
	_ = gw.Close()
	gw.Reset(nil)
	e.gzip.Put(gw)
	return buf.Bytes()
}
