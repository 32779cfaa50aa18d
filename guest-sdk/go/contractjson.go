package endpoints

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/guest-sdk/go/internal/jsonenc"
)

// This file writes an [abi.Contract] as JSON by hand, byte for byte as
// marshalJSON (an encoding/json Encoder with SetEscapeHTML(false)) writes
// it, for the same reason schemajson.go writes schemas: encoding/json
// builds its encoders for the contract's nine types in every fresh
// instance, by reflection over their fields, and a bundle's declaration
// runs in wazero's interpreter while a saved route's new version loads.
// TestContractJSON holds this writer to encoding/json's output over
// contracts filled at random, every field of every type included.

// contractWriter appends JSON to b and keeps the first error: a
// json.RawMessage that is not valid JSON, as encoding/json reports it.
type contractWriter struct {
	b   []byte
	err error
	// html escapes <, > and & in strings, as json.Marshal does (the
	// bundle's middleware); escaped then notes a JSON value holding one
	// of the characters json.Marshal escapes inside it, which raw does
	// not, and the caller leaves to json.Marshal.
	html, escaped bool
}

// appendBundleMiddleware appends mws as JSON to b as json.Marshal writes
// them, for the bundle's declaration.
func appendBundleMiddleware(b []byte, mws []abi.BundleMiddleware) ([]byte, error) {
	w := contractWriter{b: b, html: true}
	if mws == nil {
		w.null()
		return w.b, nil
	}
	w.b = append(w.b, '[')
	for i, m := range mws {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		o := w.open()
		o.key("name")
		w.str(m.Name)
		o.key("declaration")
		d := w.open()
		d.strs("routes", m.Declaration.Routes)
		d.strs("methods", m.Declaration.Methods)
		d.strs("phases", m.Declaration.Phases)
		if len(m.Declaration.Responses) > 0 {
			d.key("responses")
			writeMap(&w, m.Declaration.Responses, w.response)
		}
		d.close()
		o.close()
	}
	w.b = append(w.b, ']')
	if w.escaped || w.err != nil {
		// encoding/json's escapes inside JSON values, and its errors.
		out, err := json.Marshal(mws)
		if err != nil {
			return nil, err
		}
		return append(b, out...), nil
	}
	return w.b, nil
}

// appendContract appends c as JSON to b.
func appendContract(b []byte, c *abi.Contract) ([]byte, error) {
	w := contractWriter{b: b}
	w.contract(c)
	if w.err != nil {
		return nil, w.err
	}
	return w.b, nil
}

// jsonObject writes the members of one JSON object (open, then key or
// a member's writer per member, then close): each member after the first
// is preceded by a comma; str, flag, raw and strs omit an empty value, as
// omitempty does.
type jsonObject struct {
	w     *contractWriter
	after bool // a member was written
}

// open writes the brace of an object and returns its writer.
func (w *contractWriter) open() jsonObject {
	w.b = append(w.b, '{')
	return jsonObject{w: w}
}

func (o *jsonObject) close() { o.w.b = append(o.w.b, '}') }

func (o *jsonObject) key(name string) {
	if o.after {
		o.w.b = append(o.w.b, ',')
	}
	o.after = true
	o.w.b = append(o.w.b, '"')
	o.w.b = append(o.w.b, name...)
	o.w.b = append(o.w.b, '"', ':')
}

func (o *jsonObject) str(name, value string) {
	if value != "" {
		o.key(name)
		o.w.str(value)
	}
}

func (o *jsonObject) flag(name string, value bool) {
	if value {
		o.key(name)
		o.w.b = append(o.w.b, "true"...)
	}
}

func (o *jsonObject) raw(name string, value json.RawMessage) {
	if len(value) > 0 {
		o.key(name)
		o.w.raw(value)
	}
}

func (o *jsonObject) strs(name string, values []string) {
	if len(values) > 0 {
		o.key(name)
		o.w.strs(values)
	}
}

func (w *contractWriter) str(s string) {
	if w.html {
		w.b = jsonenc.AppendString(w.b, s)
		return
	}
	w.b = jsonenc.AppendStringNoHTML(w.b, s)
}

func (w *contractWriter) null() { w.b = append(w.b, "null"...) }

// raw writes a JSON value compacted, as encoding/json writes a
// json.RawMessage ("null" for nil).
func (w *contractWriter) raw(value json.RawMessage) {
	if value == nil {
		w.null()
		return
	}
	c := compactor{src: value, out: w.b}
	out, err := c.compact()
	switch {
	case err != nil:
		if w.err == nil {
			w.err = err
		}
	case c.copied:
		w.b = out
	default:
		w.b = append(w.b, out...)
	}
	w.escaped = w.escaped || c.escapes
}

func (w *contractWriter) strs(values []string) {
	if values == nil {
		w.null()
		return
	}
	w.b = append(w.b, '[')
	for i, v := range values {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.str(v)
	}
	w.b = append(w.b, ']')
}

// writeMap writes map m as a JSON object, its keys sorted as encoding/json
// sorts them, each value written by value; "null" for a nil map.
func writeMap[V any](w *contractWriter, m map[string]V, value func(V)) {
	if m == nil {
		w.null()
		return
	}
	w.b = append(w.b, '{')
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.str(k)
		w.b = append(w.b, ':')
		value(m[k])
	}
	w.b = append(w.b, '}')
}

func (w *contractWriter) contract(c *abi.Contract) {
	if c == nil {
		w.null()
		return
	}
	o := w.open()
	o.str("summary", c.Summary)
	o.str("description", c.Description)
	o.strs("tags", c.Tags)
	o.flag("deprecated", c.Deprecated)
	if len(c.Methods) > 0 {
		o.key("methods")
		writeMap(w, c.Methods, w.contract)
	}
	if c.Request != nil {
		o.key("request")
		w.request(c.Request)
	}
	if len(c.Responses) > 0 {
		o.key("responses")
		writeMap(w, c.Responses, w.response)
	}
	o.flag("responsesInferred", c.ResponsesInferred)
	if c.Idempotency != nil {
		o.key("idempotency")
		w.idempotency(c.Idempotency)
	}
	if c.Security != nil { // omitzero: an empty list is written
		o.key("security")
		w.b = append(w.b, '[')
		for i, req := range c.Security {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			writeMap(w, req, w.strs)
		}
		w.b = append(w.b, ']')
	}
	o.flag("onValidationError", c.OnValidationError)
	o.str("timeout", c.Timeout)
	o.str("idleTimeout", c.IdleTimeout)
	if len(c.Defs) > 0 {
		o.key("$defs")
		writeMap(w, c.Defs, w.raw)
	}
	o.close()
}

func (w *contractWriter) request(r *abi.Request) {
	o := w.open()
	o.raw("params", r.Params)
	o.raw("query", r.Query)
	o.raw("headers", r.Headers)
	if r.Body != nil {
		o.key("body")
		w.body(r.Body)
	}
	if len(r.QueryStyles) > 0 {
		o.key("queryStyles")
		writeMap(w, r.QueryStyles, func(q *abi.QueryStyle) {
			if q == nil {
				w.null()
				return
			}
			o := w.open()
			o.key("style")
			w.str(q.Style)
			if q.Explode != nil {
				o.key("explode")
				w.b = strconv.AppendBool(w.b, *q.Explode)
			}
			o.close()
		})
	}
	o.close()
}

func (w *contractWriter) body(b *abi.Body) {
	o := w.open()
	o.raw("schema", b.Schema)
	if len(b.Content) > 0 {
		o.key("content")
		writeMap(w, b.Content, func(m *abi.MediaType) {
			if m == nil {
				w.null()
				return
			}
			o := w.open()
			o.raw("schema", m.Schema)
			if len(m.Encoding) > 0 {
				o.key("encoding")
				writeMap(w, m.Encoding, func(e *abi.Encoding) {
					if e == nil {
						w.null()
						return
					}
					o := w.open()
					o.str("contentType", e.ContentType)
					o.close()
				})
			}
			o.close()
		})
	}
	if b.Required != nil {
		o.key("required")
		w.b = strconv.AppendBool(w.b, *b.Required)
	}
	o.str("description", b.Description)
	if b.MaxBytes != 0 {
		o.key("maxBytes")
		w.b = strconv.AppendInt(w.b, b.MaxBytes, 10)
	}
	o.close()
}

func (w *contractWriter) response(r *abi.Response) {
	if r == nil {
		w.null()
		return
	}
	o := w.open()
	o.str("description", r.Description)
	o.raw("schema", r.Schema)
	o.str("contentType", r.ContentType)
	o.strs("media", r.Media)
	if len(r.Headers) > 0 {
		o.key("headers")
		writeMap(w, r.Headers, w.raw)
	}
	o.close()
}

func (w *contractWriter) idempotency(i *abi.Idempotency) {
	o := w.open()
	o.flag("required", i.Required)
	if len(i.ReplayStatuses) > 0 {
		o.key("replayStatuses")
		w.b = append(w.b, '[')
		for j, s := range i.ReplayStatuses {
			if j > 0 {
				w.b = append(w.b, ',')
			}
			w.b = strconv.AppendInt(w.b, int64(s), 10)
		}
		w.b = append(w.b, ']')
	}
	o.strs("fingerprint", i.Fingerprint)
	o.close()
}
