package envelope

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/requestbody"
	"github.com/wasmendpoints/endpoints/internal/jsonvalue"
)

// Append appends the envelope of the request c to b and returns it
// (abi.Envelope; docs/spec.md §5):
//
//	{"kind":"endpoint","method":"GET","route":"/users/:id","path":"/users/7",
//	 "params":{"id":7},"query":{},"headers":{}}
func Append(b []byte, c *Request) []byte {
	b = append(b, `{"kind":`...)
	b, _ = jsontext.AppendQuote(b, c.Kind)
	b = append(b, `,"method":`...)
	b, _ = jsontext.AppendQuote(b, c.HTTP.Method)
	b = append(b, `,"route":`...)
	b, _ = jsontext.AppendQuote(b, c.Route)
	b = append(b, `,"path":`...)
	b, _ = jsontext.AppendQuote(b, c.HTTP.URL.EscapedPath())
	if c.HTTP.URL.RawQuery != "" {
		b = append(b, `,"rawQuery":`...)
		b, _ = jsontext.AppendQuote(b, c.HTTP.URL.RawQuery)
	}
	b = appendRequestContext(b, c)
	if c.Failure != nil {
		b = append(b, `,"error":`...)
		f, err := json.Marshal(c.Failure)
		if err != nil {
			f = []byte("null")
		}
		b = append(b, f...)
		b = append(b, '}')
		return b
	}
	if len(c.Params) > 0 || !c.Plain {
		b = append(b, `,"params":`...)
		b = jsonvalue.AppendValue(b, c.Params)
	}
	if c.Plain {
		b = append(b, `,"headers":{`...)
		keys := make([]string, 0, len(c.HTTP.Header)+1)
		for k := range c.HTTP.Header {
			keys = append(keys, k)
		}
		if c.HTTP.Host != "" && c.HTTP.Header["Host"] == nil {
			keys = append(keys, "Host")
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b, _ = jsontext.AppendQuote(b, strings.ToLower(k))
			b = append(b, ':', '[')
			for j, v := range HeaderValues(c.HTTP, k) {
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
		b = jsonvalue.AppendValue(b, c.Query)
		b = append(b, `,"headers":`...)
		b = jsonvalue.AppendValue(b, c.Headers)
		if c.MediaType != "" {
			b = append(b, `,"mediaType":`...)
			b, _ = jsontext.AppendQuote(b, c.MediaType)
		}
		if c.Body.ContentType() != "" {
			b = append(b, `,"contentType":`...)
			b, _ = jsontext.AppendQuote(b, c.Body.ContentType())
		}
		if c.Body.Value() != nil || c.Body.Raw() != nil && c.Body.RawIsValue() {
			b = append(b, `,"body":`...)
			b = appendBody(b, c.Body)
		}
		if m := c.Body.Multipart(); m != nil && len(m.Files) > 0 {
			b = append(b, `,"files":[`...)
			for i, f := range m.Files {
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
	return b
}

// appendRequestContext appends what middleware and security added to the
// request (requestId, auth, context) and, for a middleware call, its
// phase and what it is about.
func appendRequestContext(b []byte, c *Request) []byte {
	if c.RequestID != "" {
		b = append(b, `,"requestId":`...)
		b, _ = jsontext.AppendQuote(b, c.RequestID)
	}
	if id := c.TraceID; id != "" {
		b = append(b, `,"traceId":`...)
		b = append(b, '"')
		b = append(b, id...)
		b = append(b, '"')
	}
	if p := c.Principal; p != nil && c.Phase != abi.PhaseVerify {
		if pj, err := json.Marshal(p); err == nil {
			b = append(b, `,"auth":`...)
			b = append(b, pj...)
		}
	}
	if len(c.Values) > 0 {
		keys := make([]string, 0, len(c.Values))
		for k := range c.Values {
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
			b, _ = jsontext.AppendQuote(b, c.Values[k])
		}
		b = append(b, '}')
	}
	if c.Phase == "" {
		return b
	}
	b = append(b, `,"phase":`...)
	b, _ = jsontext.AppendQuote(b, c.Phase)
	if c.Verify != nil {
		if vj, err := json.Marshal(c.Verify); err == nil {
			b = append(b, `,"verify":`...)
			b = append(b, vj...)
		}
	}
	if c.Phase == abi.PhaseAfter {
		b = append(b, `,"response":{"status":`...)
		b = strconv.AppendInt(b, int64(c.AfterStatus), 10)
		if c.Sent {
			b = append(b, `,"sent":true`...)
		}
		b = append(b, '}')
	}
	return b
}

// appendBody appends the body's JSON: as received when it is canonical,
// else its value encoded.
func appendBody(b []byte, c *requestbody.Body) []byte {
	if c.RawIsValue() {
		return append(b, c.Raw()...)
	}
	return jsonvalue.AppendValue(b, c.Value())
}

// Value appends to dst (the caller's reused buffer, emptied) the JSON of
// one validated value for request_value: the parameter, query parameter,
// header (case-insensitive) or body member name of the part, or the whole
// part when name is "". It returns the bytes, or abi.ErrNotFound for a
// value the request does not have (any, while an onValidationError hook
// runs) and abi.ErrInvalid for an unknown part.
func Value(dst []byte, c *Parts, part abi.Part, name string) ([]byte, abi.Errno) {
	if c.Failure != nil {
		// An onValidationError hook: the parts did not pass.
		return nil, abi.ErrNotFound
	}
	var m map[string]any
	switch part {
	case abi.PartParams:
		m = c.Params
	case abi.PartQuery:
		m = c.Query
	case abi.PartHeaders:
		// Header names are case-insensitive, as in request_header: the
		// contract declares them in lower case.
		m, name = c.Headers, strings.ToLower(name)
	case abi.PartBody:
		if c.Body.Value() == nil {
			return nil, abi.ErrNotFound
		}
		if name == "" {
			return appendBody(dst, c.Body), 0
		}
		obj, ok := c.Body.Value().(map[string]any)
		if !ok {
			return nil, abi.ErrNotFound
		}
		m = obj
	default:
		return nil, abi.ErrInvalid
	}
	if name == "" {
		if c.Plain && part != abi.PartParams {
			return nil, abi.ErrNotFound
		}
		return jsonvalue.AppendValue(dst, m), 0
	}
	v, ok := m[name]
	if !ok {
		return nil, abi.ErrNotFound
	}
	return jsonvalue.AppendValue(dst, v), 0
}
