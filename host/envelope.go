package host

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/answer"
	"github.com/wasmendpoints/endpoints/internal/interrupt"
	"github.com/wasmendpoints/endpoints/internal/jsonvalue"
)

// envelopeJSON encodes the request envelope (abi.Envelope) on first use; a
// guest that reads single values with request_value never pays for it.
func (c *call) envelopeJSON() []byte {
	if len(c.envelope) > 0 {
		return c.envelope
	}
	b := c.envelope[:0]
	kind := abi.KindEndpoint
	switch {
	case c.mw != nil:
		kind = abi.KindMiddleware
	case c.op == nil:
		kind = abi.KindPlain
	}
	b = append(b, `{"kind":`...)
	b, _ = jsontext.AppendQuote(b, kind)
	b = append(b, `,"method":`...)
	b, _ = jsontext.AppendQuote(b, c.req.Method)
	b = append(b, `,"route":`...)
	b, _ = jsontext.AppendQuote(b, c.route.pattern)
	b = append(b, `,"path":`...)
	b, _ = jsontext.AppendQuote(b, c.req.URL.EscapedPath())
	if c.req.URL.RawQuery != "" {
		b = append(b, `,"rawQuery":`...)
		b, _ = jsontext.AppendQuote(b, c.req.URL.RawQuery)
	}
	b = c.appendRequestContext(b)
	if c.failure != nil {
		b = append(b, `,"error":`...)
		f, err := json.Marshal(c.failure)
		if err != nil {
			f = []byte("null")
		}
		b = append(b, f...)
		b = append(b, '}')
		c.envelope = b
		return b
	}
	if len(c.params) > 0 || c.op != nil {
		b = append(b, `,"params":`...)
		b = jsonvalue.AppendValue(b, c.params)
	}
	if c.op == nil {
		b = append(b, `,"headers":{`...)
		keys := make([]string, 0, len(c.req.Header)+1)
		for k := range c.req.Header {
			keys = append(keys, k)
		}
		if c.req.Host != "" && c.req.Header["Host"] == nil {
			keys = append(keys, "Host")
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b, _ = jsontext.AppendQuote(b, strings.ToLower(k))
			b = append(b, ':', '[')
			for j, v := range requestHeaderValues(c.req, k) {
				if j > 0 {
					b = append(b, ',')
				}
				b, _ = jsontext.AppendQuote(b, v)
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	} else {
		b = append(b, `,"query":`...)
		b = jsonvalue.AppendValue(b, c.query)
		b = append(b, `,"headers":`...)
		b = jsonvalue.AppendValue(b, c.headers)
		if c.mediaType != "" {
			b = append(b, `,"mediaType":`...)
			b, _ = jsontext.AppendQuote(b, c.mediaType)
		}
		if c.contentType != "" {
			b = append(b, `,"contentType":`...)
			b, _ = jsontext.AppendQuote(b, c.contentType)
		}
		if c.body != nil || c.bodyRaw != nil && c.bodyJSON {
			b = append(b, `,"body":`...)
			b = c.appendBody(b)
		}
		if c.multipart != nil && len(c.multipart.Files) > 0 {
			b = append(b, `,"files":[`...)
			for i, f := range c.multipart.Files {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"name":`...)
				b, _ = jsontext.AppendQuote(b, f.Name)
				b = append(b, `,"filename":`...)
				b, _ = jsontext.AppendQuote(b, f.Filename)
				b = append(b, `,"contentType":`...)
				b, _ = jsontext.AppendQuote(b, f.ContentType)
				b = append(b, `,"size":`...)
				b = strconv.AppendInt(b, f.Size, 10)
				b = append(b, '}')
			}
			b = append(b, ']')
		}
	}
	b = append(b, '}')
	c.envelope = b
	return b
}

// appendRequestContext appends what middleware and security added to the
// request (requestId, auth, context) and, for a middleware call, its
// phase and what it is about.
func (c *call) appendRequestContext(b []byte) []byte {
	rc := c.requestCall()
	if rc.requestID != "" {
		b = append(b, `,"requestId":`...)
		b, _ = jsontext.AppendQuote(b, rc.requestID)
	}
	if id := traceID(c.req.Header); id != "" {
		b = append(b, `,"traceId":`...)
		b = append(b, '"')
		b = append(b, id...)
		b = append(b, '"')
	}
	if p := rc.principal; p != nil && c.phase != abi.PhaseVerify {
		if pj, err := json.Marshal(p); err == nil {
			b = append(b, `,"auth":`...)
			b = append(b, pj...)
		}
	}
	if len(rc.values) > 0 {
		keys := make([]string, 0, len(rc.values))
		for k := range rc.values {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, `,"context":{`...)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b, _ = jsontext.AppendQuote(b, k)
			b = append(b, ':')
			b, _ = jsontext.AppendQuote(b, rc.values[k])
		}
		b = append(b, '}')
	}
	if c.phase == "" {
		return b
	}
	b = append(b, `,"phase":`...)
	b, _ = jsontext.AppendQuote(b, c.phase)
	if c.verify != nil {
		if vj, err := json.Marshal(c.verify); err == nil {
			b = append(b, `,"verify":`...)
			b = append(b, vj...)
		}
	}
	if c.phase == abi.PhaseAfter {
		b = append(b, `,"response":{"status":`...)
		b = strconv.AppendInt(b, int64(c.afterStatus), 10)
		if c.wroteHeader {
			b = append(b, `,"sent":true`...)
		}
		b = append(b, '}')
	}
	return b
}

func (c *requestPart) appendBody(b []byte) []byte {
	if c.bodyJSON {
		return append(b, c.bodyRaw...)
	}
	return jsonvalue.AppendValue(b, c.body)
}

// value encodes one validated value for request_value.
func (c *call) value(part abi.Part, name string) ([]byte, abi.Errno) {
	if c.failure != nil {
		// An onValidationError hook: the parts did not pass.
		return nil, abi.ErrNotFound
	}
	var m map[string]any
	switch part {
	case abi.PartParams:
		m = c.params
	case abi.PartQuery:
		m = c.query
	case abi.PartHeaders:
		// Header names are case-insensitive, as in request_header: the
		// contract declares them in lower case.
		m, name = c.headers, strings.ToLower(name)
	case abi.PartBody:
		if c.body == nil {
			return nil, abi.ErrNotFound
		}
		if name == "" {
			c.scratch = c.appendBody(c.scratch[:0])
			return c.scratch, 0
		}
		obj, ok := c.body.(map[string]any)
		if !ok {
			return nil, abi.ErrNotFound
		}
		m = obj
	default:
		return nil, abi.ErrInvalid
	}
	if name == "" {
		if c.op == nil && part != abi.PartParams {
			return nil, abi.ErrNotFound
		}
		c.scratch = jsonvalue.AppendValue(c.scratch[:0], m)
		return c.scratch, 0
	}
	v, ok := m[name]
	if !ok {
		return nil, abi.ErrNotFound
	}
	c.scratch = jsonvalue.AppendValue(c.scratch[:0], v)
	return c.scratch, 0
}

// write serves response_write: buffered for an endpoint, straight to the
// client for a plain route.
func (c *call) write(data []byte) abi.Errno {
	if c.w == nil && c.op != nil && c.out != nil {
		if first, ok := c.op.media[c.status]; ok {
			// A media answer streams from its first byte: status and
			// headers go out now, every write is flushed.
			c.w, c.flush = c.out, true
			if c.header.Get("Content-Type") == "" {
				ct := first
				if c.mediaType != "" && c.op.negotiates() {
					ct = c.mediaType
				}
				c.header.Set("Content-Type", ct)
			}
		}
	}
	if c.fault != "" {
		return abi.ErrInvalid
	}
	if c.w != nil && !c.wroteHeader && c.Expired() {
		// Past the deadline before the first byte: a clean 500 is still
		// possible.
		panic(interrupt.ErrInterrupted)
	}
	if c.w == nil {
		if c.maxBuffer > 0 && int64(c.buf.Len())+int64(len(data)) > c.maxBuffer {
			panic(&limitError{fmt.Sprintf("the handler wrote an answer of more than %d bytes (limits.responseBytes); declare a media response to stream large answers", c.maxBuffer)})
		}
		c.buf.Write(data)
		return 0
	}
	if !c.wroteHeader {
		c.commit()
	}
	if c.writeErr != nil {
		return abi.ErrIO
	}
	if c.req.Method == http.MethodHead || answer.NoBody(c.status) {
		// Dropped, as an endpoint's buffered answer drops it: net/http
		// refuses the bytes, which is no fault of the client's.
		return 0
	}
	// Each write must be taken within server.writeTimeout, and by the
	// call's deadline: a client that stops reading a stream ends it.
	setWriteDeadline(c.w, time.Unix(0, min(time.Now().Add(time.Duration(c.set.server.WriteTimeout)).UnixNano(), c.until)))
	if _, err := c.w.Write(data); err != nil {
		c.clientGone(err)
		return abi.ErrIO
	}
	c.idem.Tee(data)
	if c.flush {
		if err := http.NewResponseController(c.w).Flush(); err != nil {
			c.clientGone(err)
			return abi.ErrIO
		}
	}
	c.extendIdle(time.Now())
	return 0
}

// clientGone records that writing to the client failed (it left, or
// stopped reading until the write deadline) and stops the guest at its
// next check: nobody will read what it writes.
func (c *call) clientGone(err error) {
	c.writeErr = err
	c.stop.Store(true)
}

// limitError is the trap a host function raises when a guest passes one of
// the host's limits (limits.responseBytes); its message says which.
type limitError struct{ msg string }

func (e *limitError) Error() string { return e.msg }

// commit sends a plain route's status and headers.
func (c *answerPart) commit() {
	c.wroteHeader = true
	hdr := c.w.Header()
	for k, vs := range c.header {
		hdr[k] = vs
	}
	c.w.WriteHeader(c.status)
}
