package compress

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// Options are a [Policy]'s settings: endpoints.json "server.compression"
// with its defaults filled in, and the largest buffered answer.
type Options struct {
	// MinBytes is the smallest answer compressed: below it, the bytes
	// saved do not pay for the work. Zero compresses every non-empty
	// answer.
	MinBytes int64
	// MaxBytes is the largest answer compressed, the most the writer
	// holds before it sends: the host's limits.responseBytes, which bounds
	// every buffered answer. Zero or less: no bound.
	MaxBytes int64
	// Level is how hard the encoders work.
	Level Level
}

// Policy compresses the answers of one configuration. It is immutable,
// and safe for concurrent use.
type Policy struct {
	opts Options
	enc  *encoders
}

// New returns the policy of o.
func New(o Options) (*Policy, error) {
	enc, err := forLevel(o.Level)
	if err != nil {
		return nil, err
	}
	return &Policy{opts: o, enc: enc}, nil
}

// writers pools the wrapping writers: one per request.
var writers = sync.Pool{New: func() any { return new(Writer) }}

// Wrap returns the writer of one request's answer, which compresses it
// when the policy allows and r accepts it. The caller owns the writer
// until it calls [Writer.Close], after the handler returned and before
// the request ends; the writer is not safe for concurrent use, as no
// http.ResponseWriter is.
func (p *Policy) Wrap(w http.ResponseWriter, r *http.Request) *Writer {
	cw := writers.Get().(*Writer)
	*cw = Writer{ResponseWriter: w, policy: p, coding: Negotiate(r.Header["Accept-Encoding"]), head: r.Method == http.MethodHead}
	return cw
}

// Negotiate returns the encoding to answer with, given the
// Accept-Encoding field values of a request: [Zstd], [Gzip], or "" for
// the identity.
//
// The coding with the highest q-value wins; gzip wins a tie with zstd:
// on a 10 KB JSON answer, zstd sent half gzip's bytes for about twice its
// encoding CPU (BenchmarkAnswer10KB; BenchmarkCompressRequest in package
// host), and an API server's CPU is what it runs short of. A coding with q=0 is refused, "*" stands for
// each coding not listed, "x-gzip" is gzip (RFC 9110 §8.4.1.3). Identity
// wins when it is listed (or "*" stands for it) with a higher q-value
// than the best coding; when it is not listed, any accepted coding beats
// it.
//
//	Negotiate([]string{"gzip, deflate, br, zstd"}) // "gzip"
//	Negotiate([]string{"zstd, gzip;q=0.5"})        // "zstd"
//	Negotiate([]string{"gzip;q=0, identity"})      // ""
func Negotiate(values []string) string {
	zstdQ, gzipQ, identityQ, anyQ := -1.0, -1.0, -1.0, -1.0
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			name, params, _ := strings.Cut(part, ";")
			name = strings.ToLower(strings.TrimSpace(name))
			if name == "" {
				continue
			}
			weight := qValue(params)
			switch name {
			case Zstd:
				zstdQ = max(zstdQ, weight)
			case Gzip, "x-gzip":
				gzipQ = max(gzipQ, weight)
			case "identity":
				identityQ = max(identityQ, weight)
			case "*":
				anyQ = max(anyQ, weight)
			}
		}
	}
	if zstdQ < 0 {
		zstdQ = anyQ
	}
	if gzipQ < 0 {
		gzipQ = anyQ
	}
	if identityQ < 0 {
		identityQ = anyQ // -1 when unlisted: below any accepted coding
	}
	best, coding := gzipQ, Gzip
	if zstdQ > gzipQ {
		best, coding = zstdQ, Zstd
	}
	if best <= 0 || best < identityQ {
		return ""
	}
	return coding
}

// qValue reads the weight of an Accept-Encoding member from its
// parameters (";q=0.5"): 1 when absent, 0 when malformed (a member the
// client did not write plainly is not taken as accepted).
func qValue(params string) float64 {
	for p := range strings.SplitSeq(params, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || f < 0 || f > 1 {
			return 0
		}
		return f
	}
	return 1
}

// Compressible reports whether a Content-Type names a media type that
// compresses: text/*, JSON and XML (with their +json and +xml suffixes),
// YAML, JavaScript, SVG, WebAssembly, NDJSON, form data. Everything else
// (images, audio, video, archives, fonts, octet streams) is taken to be
// compressed already, or of unknown content.
func Compressible(contentType string) bool {
	mt, _, _ := strings.Cut(contentType, ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	typ, sub, ok := strings.Cut(mt, "/")
	if !ok || sub == "" {
		return false
	}
	if typ == "text" {
		return true
	}
	if strings.HasSuffix(sub, "+json") || strings.HasSuffix(sub, "+xml") || strings.HasSuffix(sub, "+yaml") {
		return true
	}
	switch mt {
	case "application/json", "application/xml", "application/yaml", "application/x-yaml",
		"application/javascript", "application/ecmascript", "application/x-javascript",
		"application/x-ndjson", "application/jsonl", "application/wasm",
		"application/x-www-form-urlencoded", "application/graphql", "application/sql":
		return true
	}
	return false
}
