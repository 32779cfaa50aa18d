//go:build !wasip1

package httphost

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/wasmendpoints/endpoints/abi"
)

// direct serves the http_* functions outside WebAssembly, when no test set
// Fake, with Go's own net/http: a test of a route that calls out can point
// it at an httptest server. There is no host, so no allowlist and no
// limits; a native build is never what serves requests.
var direct = &directHost{
	// A transport of its own: a test may have made http.DefaultTransport
	// outbound's, which comes back here.
	client: http.Client{Transport: &http.Transport{}},
	open:   map[int32]*http.Response{},
}

// directHost is a host's outbound session, for a native process: its open
// responses by handle and why the last call failed.
type directHost struct {
	client http.Client

	mu   sync.Mutex
	next int32
	open map[int32]*http.Response
	last []byte // the last failure's abi.HTTPError JSON; nil: none
}

func (d *directHost) Send(req, body []byte) int32 {
	var spec abi.HTTPRequest
	if err := json.Unmarshal(req, &spec); err != nil {
		return d.fail(abi.ErrInvalid, abi.HTTPErrorInvalid, "the request's JSON: "+err.Error())
	}
	if spec.Method == "" {
		spec.Method = http.MethodGet
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	r, err := http.NewRequest(spec.Method, spec.URL, rd)
	if err != nil {
		return d.fail(abi.ErrInvalid, abi.HTTPErrorInvalid, err.Error())
	}
	for _, kv := range spec.Headers {
		r.Header.Add(kv[0], kv[1])
	}
	res, err := d.client.Do(r)
	if err != nil {
		return d.fail(abi.ErrIO, abi.HTTPErrorConnect, err.Error())
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	h := d.next
	d.next++
	d.open[h] = res
	return h
}

func (d *directHost) Response(h int32, buf []byte) int32 {
	d.mu.Lock()
	res := d.open[h]
	d.mu.Unlock()
	if res == nil {
		return int32(abi.ErrNotFound)
	}
	head := abi.HTTPResponse{Status: res.StatusCode, Headers: [][2]string{}}
	for name, values := range res.Header {
		for _, v := range values {
			head.Headers = append(head.Headers, [2]string{strings.ToLower(name), v})
		}
	}
	js, err := json.Marshal(head)
	if err != nil {
		return d.fail(abi.ErrIO, abi.HTTPErrorProtocol, err.Error())
	}
	return copyOut(buf, js)
}

func (d *directHost) BodyRead(h int32, buf []byte) int32 {
	d.mu.Lock()
	res := d.open[h]
	d.mu.Unlock()
	if res == nil {
		return int32(abi.ErrNotFound)
	}
	for {
		n, err := res.Body.Read(buf)
		if n > 0 || len(buf) == 0 {
			return int32(n)
		}
		if errors.Is(err, io.EOF) {
			return 0
		}
		if err != nil {
			return d.fail(abi.ErrIO, abi.HTTPErrorProtocol, "reading the response body: "+err.Error())
		}
	}
}

func (d *directHost) Close(h int32) int32 {
	d.mu.Lock()
	res := d.open[h]
	delete(d.open, h)
	d.mu.Unlock()
	if res == nil {
		return int32(abi.ErrNotFound)
	}
	res.Body.Close()
	return 0
}

func (d *directHost) Error(buf []byte) int32 {
	d.mu.Lock()
	last := d.last
	d.mu.Unlock()
	if last == nil {
		return int32(abi.ErrNotFound)
	}
	return copyOut(buf, last)
}

// fail records why a call failed, and returns errno.
func (d *directHost) fail(errno abi.Errno, code, message string) int32 {
	js, _ := json.Marshal(abi.HTTPError{Code: code, Message: message})
	d.mu.Lock()
	d.last = js
	d.mu.Unlock()
	return int32(errno)
}

// copyOut writes b into buf when it fits, and returns its size, as the
// host functions that answer JSON do.
func copyOut(buf, b []byte) int32 {
	if len(b) <= len(buf) {
		copy(buf, b)
	}
	return int32(len(b))
}
