package edge

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"unicode/utf8"

	"github.com/go-json-experiment/json"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/abihost"
)

// The rules of the ABI calls only middleware make (abi/README.md §3):
// what a before or verify module passes on to the rest of the request
// (context_set, request_set_header), and who a verify module says the
// client is (principal_set).

// Passed is what a request's middleware passed on to what follows them:
// the context values they set and how much they grew the request's
// headers, each within the ABI's bounds. The zero Passed is empty.
type Passed struct {
	values                   map[string]string
	valueBytes               int
	headerCount, headerBytes int
}

// SetContext records the context value name (context_set): valid UTF-8,
// a name not empty, at most abi.ContextMaxValues values of
// abi.ContextMaxBytes bytes in all (names and values); a value set again
// replaces the old one. Past a bound it records nothing and returns
// abi.ErrInvalid.
func (p *Passed) SetContext(name, value []byte) abi.Errno {
	size := p.valueBytes + len(name) + len(value)
	old, had := p.values[string(name)]
	if had {
		size -= len(name) + len(old)
	}
	switch {
	case len(name) == 0 || !utf8.Valid(name) || !utf8.Valid(value):
		return abi.ErrInvalid
	case size > abi.ContextMaxBytes:
		return abi.ErrInvalid
	case !had && len(p.values) >= abi.ContextMaxValues:
		return abi.ErrInvalid
	}
	if p.values == nil {
		p.values = map[string]string{}
	}
	p.values[string(name)] = string(value)
	p.valueBytes = size
	return 0
}

// Values are the context values set, by name; nil when none was. The
// caller must not change them.
func (p *Passed) Values() map[string]string { return p.values }

// SetRequestHeader replaces in h (or, with an empty value, removes) the
// request header name for what follows a before module
// (request_set_header). A header the ABI forbids (abi.ForbiddenRequestHeaders)
// or not valid is refused with abi.ErrInvalid. The modules of a request
// may grow its headers by at most abi.ResponseHeaderMaxCount values and
// abi.ResponseHeaderMaxBytes bytes in all: past that it changes nothing
// and returns abi.ErrInvalid with fault, why the call fails.
func (p *Passed) SetRequestHeader(h http.Header, name, value []byte) (errno abi.Errno, fault string) {
	key := http.CanonicalHeaderKey(string(name))
	if !abihost.ValidHeader(string(name), string(value)) || slices.Contains(abi.ForbiddenRequestHeaders, key) || !utf8.Valid(value) {
		return abi.ErrInvalid, ""
	}
	count, size := p.headerCount, p.headerBytes
	for _, v := range h[key] {
		count--
		size -= len(key) + len(v)
	}
	if len(value) > 0 {
		count++
		size += len(key) + len(value)
	}
	if count > abi.ResponseHeaderMaxCount || size > abi.ResponseHeaderMaxBytes {
		return abi.ErrInvalid, fmt.Sprintf("the middleware set more request headers than the host allows (%d values, %d bytes more than the client sent)", abi.ResponseHeaderMaxCount, abi.ResponseHeaderMaxBytes)
	}
	p.headerCount, p.headerBytes = count, size
	if len(value) == 0 {
		h.Del(key)
	} else {
		h[key] = []string{string(value)}
	}
	return 0, ""
}

// ParsePrincipal reads who a verify module says the client is
// (principal_set): a JSON object of abi.Principal's members, with a
// subject, of at most abi.ContextMaxBytes bytes. Anything else is
// abi.ErrInvalid.
func ParsePrincipal(b []byte) (*abi.Principal, abi.Errno) {
	if len(b) > abi.ContextMaxBytes {
		return nil, abi.ErrInvalid
	}
	var p abi.Principal
	if err := json.Unmarshal(b, &p, json.RejectUnknownMembers(true)); err != nil || p.Subject == "" || !bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) {
		return nil, abi.ErrInvalid
	}
	return &p, 0
}
