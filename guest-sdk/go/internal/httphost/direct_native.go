//go:build !wasip1

package httphost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

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
	open:   map[int32]*directResponse{},
}

// directResponse is an open response of the native host, with the
// context of its request (its timeout) and what ends it.
type directResponse struct {
	*http.Response
	ctx    context.Context
	cancel context.CancelFunc
}

// directHost is a host's outbound session, for a native process: its open
// responses by handle and why the last call failed.
type directHost struct {
	client http.Client

	mu   sync.Mutex
	next int32
	open map[int32]*directResponse
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
	if spec.Timeout < 0 || spec.Timeout > abi.HTTPTimeoutMax {
		return d.fail(abi.ErrInvalid, abi.HTTPErrorInvalid, fmt.Sprintf("timeout %d: want milliseconds from 1 to %d, or 0 for none", spec.Timeout, abi.HTTPTimeoutMax))
	}
	ctx, cancel := context.WithCancel(context.Background())
	if spec.Timeout > 0 {
		ctx, cancel = context.WithTimeout(context.Background(), time.Duration(spec.Timeout)*time.Millisecond)
	}
	res, err := d.client.Do(r.WithContext(ctx))
	if err != nil {
		timedOut := errors.Is(ctx.Err(), context.DeadlineExceeded)
		cancel()
		if timedOut {
			return d.fail(abi.ErrIO, abi.HTTPErrorTimeout, fmt.Sprintf("%s did not answer within the request's timeout of %dms", spec.URL, spec.Timeout))
		}
		return d.fail(abi.ErrIO, abi.HTTPErrorConnect, err.Error())
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	h := d.next
	d.next++
	d.open[h] = &directResponse{Response: res, ctx: ctx, cancel: cancel}
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
		if err != nil && errors.Is(res.ctx.Err(), context.DeadlineExceeded) {
			return d.fail(abi.ErrIO, abi.HTTPErrorTimeout, "reading the response body: the request's timeout passed")
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
	res.cancel()
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
