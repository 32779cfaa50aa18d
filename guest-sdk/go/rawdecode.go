package endpoints

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"unicode/utf8"
	"unsafe"
)

// A plain route's request, decoded with as few allocations and calls as
// the RawRequest API allows: an allocation costs a Go module in wasm a few
// hundred nanoseconds (with the collections it brings), a call a few, and
// a plain route such as a health check does little else.

// rawInlineBytes and rawInlineValues size the room a rawCall has for a
// request's strings and header values: those of a request as curl, wrk
// or a load balancer's health check sends it fit (curl's GET /health
// needs 64 bytes and 3 values); a larger request allocates once more for
// each. The room is part of one object the collector scans, and costs
// with its size: 128 bytes were about 3% faster on GET /health than 256.
const (
	rawInlineBytes  = 128
	rawInlineValues = 8
)

// rawCall is what a plain route's request allocates: the request, the
// writer, and room for the request's strings and header values, in one
// object, as they live as long as each other. A handler may keep the
// request (and every map and string it holds) and the writer's headers
// after it returns, so nothing of one request is reused for the next.
type rawCall struct {
	req    RawRequest
	w      responseWriter
	values [rawInlineValues]string
	bytes  [rawInlineBytes]byte
}

// serveRaw runs a plain route's handler.
func serveRaw(h func(ResponseWriter, *RawRequest), envelope []byte) error {
	c := &rawCall{}
	if err := c.decode(envelope); err != nil {
		return fmt.Errorf("decoding the request envelope: %w", err)
	}
	h(&c.w, &c.req)
	if !c.w.wroteHeader {
		c.w.WriteHeader(200)
	}
	return c.w.err
}

// decode fills c.req from a plain route's envelope. It scans the envelope
// once, with no closure per member, and reads params and headers in place
// (a lazy scan: an object is not skipped first and then read); it copies
// the strings it reads into the rawCall's room (rawStrings) and the
// header values into one slice, and makes each map once, sized for what
// it will hold. Members that are null are left out; members the route
// does not read are skipped.
func (c *rawCall) decode(envelope []byte) error {
	req := &c.req
	req.Params, req.Body = map[string]string{}, bodyReader{}
	a := rawStrings{arena: stringArena{buf: c.bytes[:0], rest: len(envelope)}, valid: utf8.Valid(envelope)}
	m := scanMembers(envelope)
	m.lazy = true
	for m.next() {
		// Params and headers are read in place; any other open value
		// is made whole, which costs what next's skip would, for the
		// error decodeString gives a method that is not a string.
		if m.open && m.key != keyParams && m.key != keyHeaders && !m.whole() {
			break
		}
		if isNull(m.value) {
			continue
		}
		var err error
		switch m.key {
		case keyMethod:
			req.Method, err = a.value(m.value, m.escaped)
		case keyRoute:
			req.Route, err = a.value(m.value, m.escaped)
		case keyPath:
			req.Path, err = a.value(m.value, m.escaped)
		case keyRawQuery:
			req.RawQuery, err = a.value(m.value, m.escaped)
		case keyParams:
			err = a.params(req.Params, &m)
		case keyHeaders:
			req.Headers, err = c.headers(&a, req.Headers, &m)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", m.key, err)
		}
	}
	if req.Headers == nil {
		req.Headers = Headers{}
	}
	return m.err
}

// rawCountLimit bounds the bytes headers counts quotes in: the headers
// object read in place goes on to the envelope's end, and the count only
// sizes the map and the list of values, which grow past it.
const rawCountLimit = 2048

// headers adds to h (made when nil) the headers of m's member, an object
// of lists of strings, and returns it. The lists share one backing array
// (c.values when it is large enough), each capped at its end so that an
// append to one copies it rather than overwrite the next.
func (c *rawCall) headers(a *rawStrings, h Headers, m *members) (Headers, error) {
	hm := m.object()
	// Names and values are strings: half the quotes of the object bound
	// how many there are, and a header has a value or more.
	n := countQuotes(hm.d[:min(len(hm.d), rawCountLimit)]) / 2
	if h == nil {
		h = make(Headers, n/2)
	}
	values := c.values[:0]
	if n > len(c.values) {
		values = make([]string, 0, n)
	}
	hm.lazy = true
	for hm.next() {
		first := len(values)
		var e elements // as hm.object() for an array, without the call
		if hm.open {
			e = scanElementsWithin(hm.d[hm.i:])
		} else {
			e = scanElements(hm.value)
		}
		for e.next() {
			s, err := a.value(e.value, e.escaped)
			if err != nil {
				return h, err
			}
			values = append(values, s)
		}
		if e.err != nil {
			return h, e.err
		}
		if hm.open {
			hm.resume(hm.i + e.i) // read in place
		}
		var list []string // nil for an empty list, as append leaves it
		if len(values) > first {
			list = values[first:len(values):len(values)]
		}
		h[a.copy(hm.key)] = list
	}
	if hm.err == nil && m.open {
		m.resume(m.i + hm.i)
	}
	return h, hm.err
}

// rawStrings makes the strings of a RawRequest: those without escapes
// are copied from the envelope (whose buffer the next request reuses) to
// an arena whose first chunk is the rawCall's room; strings with escapes,
// and every value when the envelope is not valid UTF-8 (encoding/json
// makes U+FFFD of bad bytes), are decoded by decodeString.
type rawStrings struct {
	arena stringArena
	valid bool // the envelope is valid UTF-8
}

// copy returns a copy of s.
func (a *rawStrings) copy(s string) string {
	return a.arena.string(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// value returns the string of the JSON string raw; escaped says whether
// it holds escapes.
func (a *rawStrings) value(raw []byte, escaped bool) (string, error) {
	if escaped || !a.valid || raw[0] != '"' {
		return decodeString(raw)
	}
	return a.arena.string(raw[1 : len(raw)-1]), nil
}

// params fills params from m's member, an object of strings.
func (a *rawStrings) params(params map[string]string, m *members) error {
	pm := m.object()
	for pm.next() {
		s, err := a.value(pm.value, pm.escaped)
		if err != nil {
			return err
		}
		params[a.copy(pm.key)] = s
	}
	if pm.err == nil && m.open {
		m.resume(m.i + pm.i)
	}
	return pm.err
}

// countQuotes returns at least the number of '"' bytes in d, and at most
// that plus the number of '#' bytes right after one: it tests eight bytes
// at a time, as scanString does (a byte at a time costs a Go module in
// wasm a bounds check and a loop each), with a test whose borrow can mark
// a '#' after a '"' too. The caller uses it as an upper bound.
func countQuotes(d []byte) int {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	n, i := 0, 0
	for ; i+8 <= len(d); i += 8 {
		q := binary.LittleEndian.Uint64(d[i:]) ^ (lo * '"')
		n += bits.OnesCount64((q - lo) &^ q & hi)
	}
	for ; i < len(d); i++ {
		if d[i] == '"' {
			n++
		}
	}
	return n
}
