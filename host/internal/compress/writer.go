package compress

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Writer is the writer of one request's answer (see the package doc). It
// passes everything through except an answer it compresses, whose header
// it holds until the whole body arrived.
type Writer struct {
	http.ResponseWriter
	policy *Policy
	coding string // what the request accepts: Zstd, Gzip or ""
	head   bool
	// decided is set at the first WriteHeader; holding when the answer
	// is being compressed and has not gone out yet.
	decided, holding bool
	status           int
	want             int     // the declared Content-Length of a held answer
	body             *[]byte // the held bytes, pooled; nil until a second write
}

// bodies pools the buffers of answers that arrive in more than one write.
var bodies = sync.Pool{New: func() any { return new([]byte) }}

// outs pools the buffers compressed answers are encoded into.
var outs = sync.Pool{New: func() any { return new([]byte) }}

// Unwrap returns the server's writer, for http.ResponseController.
func (w *Writer) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// WriteHeader decides whether the answer is compressed, from its status
// and header as they are now; a compressed answer's header is held.
func (w *Writer) WriteHeader(status int) {
	if w.decided || status < 200 && status != http.StatusSwitchingProtocols {
		// An informational answer (103 Early Hints) passes, and the
		// decision waits for the final one.
		w.ResponseWriter.WriteHeader(status)
		return
	}
	w.decided = true
	h := w.Header()
	n, ok := w.eligible(status, h)
	if ok || status == http.StatusNotModified {
		addVary(h)
	}
	if !ok || w.coding == "" || w.head || n == 0 {
		w.ResponseWriter.WriteHeader(status)
		return
	}
	w.holding, w.status, w.want = true, status, n
}

// eligible reports whether an answer of status and header could be
// compressed, whatever the request accepts, and its length.
func (w *Writer) eligible(status int, h http.Header) (int, bool) {
	// The keys are canonical, so indexing h finds what h.Get would,
	// without canonicalising each key again on every answer.
	switch {
	case status < 200, status == http.StatusNoContent, status == http.StatusPartialContent, status == http.StatusNotModified:
		return 0, false
	case first(h, "Content-Encoding") != "" && !strings.EqualFold(first(h, "Content-Encoding"), "identity"),
		first(h, "Content-Range") != "",
		!Compressible(first(h, "Content-Type")),
		noTransform(h["Cache-Control"]):
		return 0, false
	}
	length := first(h, "Content-Length")
	if length == "" {
		// Streamed, or of unknown length: nothing to parse (and no
		// syntax error to allocate).
		return 0, false
	}
	n, err := strconv.ParseInt(length, 10, 64)
	o := w.policy.opts
	if err != nil || n < o.MinBytes || o.MaxBytes > 0 && n > o.MaxBytes || n > int64(^uint(0)>>1) {
		return 0, false
	}
	return int(n), true
}

// Write holds the bytes of a compressed answer until all have arrived,
// then sends it; other answers pass through.
func (w *Writer) Write(p []byte) (int, error) {
	if !w.decided {
		w.WriteHeader(http.StatusOK)
	}
	if !w.holding {
		return w.ResponseWriter.Write(p)
	}
	if w.body == nil && len(p) == w.want {
		// The usual case: the buffered answer in one write.
		return len(p), w.send(p)
	}
	if w.body == nil {
		w.body = bodies.Get().(*[]byte)
		*w.body = slices.Grow((*w.body)[:0], w.want)
	}
	if len(*w.body)+len(p) > w.want {
		// More than the handler declared: net/http will refuse the
		// excess; send what was declared as it is.
		w.release()
		return w.ResponseWriter.Write(p)
	}
	*w.body = append(*w.body, p...)
	if len(*w.body) == w.want {
		return len(p), w.send(*w.body)
	}
	return len(p), nil
}

// send compresses body, the whole answer, and sends it with its header;
// the identity bytes go out when compression does not make them smaller.
func (w *Writer) send(body []byte) error {
	w.holding = false
	out := outs.Get().(*[]byte)
	defer func() {
		if cap(*out) <= 1<<20 {
			outs.Put(out)
		}
	}()
	*out = w.policy.enc.encode((*out)[:0], w.coding, body)
	h := w.Header()
	if len(*out) >= len(body) {
		w.ResponseWriter.WriteHeader(w.status)
		_, err := w.ResponseWriter.Write(body)
		return err
	}
	h.Set("Content-Encoding", w.coding)
	h.Set("Content-Length", strconv.Itoa(len(*out)))
	if tag := h.Get("ETag"); tag != "" && !strings.HasPrefix(tag, "W/") {
		h.Set("ETag", "W/"+tag)
	}
	w.ResponseWriter.WriteHeader(w.status)
	_, err := w.ResponseWriter.Write(*out)
	return err
}

// release gives up compressing a held answer: its header and what
// arrived of its body go out as they are.
func (w *Writer) release() {
	w.holding = false
	w.ResponseWriter.WriteHeader(w.status)
	if w.body != nil && len(*w.body) > 0 {
		_, _ = w.ResponseWriter.Write(*w.body)
	}
}

// FlushError sends a held answer as it is (a handler that flushes before
// its last byte is streaming), then flushes.
func (w *Writer) FlushError() error {
	if w.holding {
		w.release()
	}
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Close ends the answer: a held answer whose body fell short of its
// Content-Length goes out as it is. It returns the writer to its pool;
// the caller must not use it afterwards.
func (w *Writer) Close() {
	if w.holding {
		w.release()
	}
	if w.body != nil && cap(*w.body) <= 1<<20 {
		bodies.Put(w.body)
	}
	*w = Writer{}
	writers.Put(w)
}

// first is h.Get(key) for a canonical key: the first value, or "".
func first(h http.Header, key string) string {
	if vs := h[key]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// addVary adds Accept-Encoding to h's Vary, unless Vary already names it
// or is "*".
func addVary(h http.Header) {
	for _, v := range h["Vary"] {
		for name := range strings.SplitSeq(v, ",") {
			name = strings.TrimSpace(name)
			if name == "*" || strings.EqualFold(name, "Accept-Encoding") {
				return
			}
		}
	}
	h.Add("Vary", "Accept-Encoding")
}

// noTransform reports whether Cache-Control forbids transforming the
// answer (RFC 9111 §5.2.2.6).
func noTransform(values []string) bool {
	for _, v := range values {
		for d := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(d), "no-transform") {
				return true
			}
		}
	}
	return false
}
