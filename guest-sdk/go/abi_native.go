//go:build !wasip1

package endpoints

// Outside WebAssembly there is no host: the SDK's host functions are served
// by fake, an in-memory stand-in that follows the ABI's rules. It lets the
// package, and route packages, build and run their tests natively. A test
// of this package sets fake up for a request, calls handle and reads what
// was answered.

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/wasmendpoints/endpoints/abi"
)

// fakeHost is the state of the native stand-in host. It is not safe for
// concurrent use, like a module instance.
type fakeHost struct {
	inRequest bool              // request functions answer ErrState otherwise
	envelope  []byte            // what request_read returns
	headers   map[string]string // raw request headers by lower-case name
	body      []byte            // the rest of the raw request body
	bodyErr   abi.Errno         // body_read's error once body is drained; 0 for none
	files     [][]byte          // the rest of each file file_read serves, by index
	fail      map[string]abi.Errno

	status  int32
	header  Headers
	written []byte
	chunks  []string  // each response_write's bytes
	logs    []logLine // logs during a request; others go to stderr
}

// logLine is one call of the log host function.
type logLine struct {
	level abi.LogLevel
	msg   string
}

var fake = &fakeHost{}

// failing returns the error a test asked host function fn to return.
func (f *fakeHost) failing(fn string) (abi.Errno, bool) {
	e, ok := f.fail[fn]
	return e, ok
}

// fill copies a whole value into buf when it fits and returns its size,
// as request_read and request_header do.
func fill(buf []byte, value []byte) int32 {
	if len(value) <= len(buf) {
		copy(buf, value)
	}
	return int32(len(value))
}

func requestRead(buf []byte) int32 {
	if e, ok := fake.failing(abi.ImportRequestRead); ok {
		return int32(e)
	}
	if !fake.inRequest {
		return int32(abi.ErrState)
	}
	return fill(buf, fake.envelope)
}

func requestHeader(name string, buf []byte) int32 {
	if e, ok := fake.failing(abi.ImportRequestHeader); ok {
		return int32(e)
	}
	if !fake.inRequest {
		return int32(abi.ErrState)
	}
	v, ok := fake.headers[strings.ToLower(name)]
	if !ok {
		return int32(abi.ErrNotFound)
	}
	return fill(buf, []byte(v))
}

func bodyRead(buf []byte) int32 {
	if e, ok := fake.failing(abi.ImportBodyRead); ok {
		return int32(e)
	}
	if !fake.inRequest {
		return int32(abi.ErrState)
	}
	if len(fake.body) == 0 && fake.bodyErr != 0 {
		return int32(fake.bodyErr)
	}
	n := copy(buf, fake.body)
	fake.body = fake.body[n:]
	return int32(n)
}

func fileRead(index int32, buf []byte) int32 {
	if e, ok := fake.failing(abi.ImportFileRead); ok {
		return int32(e)
	}
	if !fake.inRequest {
		return int32(abi.ErrState)
	}
	if index < 0 || int(index) >= len(fake.files) {
		return int32(abi.ErrNotFound)
	}
	n := copy(buf, fake.files[index])
	fake.files[index] = fake.files[index][n:]
	return int32(n)
}

func responseSetStatus(status int32) int32 {
	if e, ok := fake.failing(abi.ImportResponseSetStatus); ok {
		return int32(e)
	}
	switch {
	case !fake.inRequest:
		return int32(abi.ErrState)
	case status < 100 || status > 599:
		return int32(abi.ErrInvalid)
	case len(fake.written) > 0:
		return int32(abi.ErrHeadersSent)
	}
	fake.status = status
	return 0
}

func responseSetHeader(name, value string) int32 {
	if e := fake.checkHeader(abi.ImportResponseSetHeader, name, value); e != 0 {
		return int32(e)
	}
	fake.header.Set(name, value)
	return 0
}

func responseAddHeader(name, value string) int32 {
	if e := fake.checkHeader(abi.ImportResponseAddHeader, name, value); e != 0 {
		return int32(e)
	}
	fake.header.Add(name, value)
	return 0
}

// checkHeader applies the rules of response_set_header.
func (f *fakeHost) checkHeader(fn, name, value string) abi.Errno {
	if e, ok := f.failing(fn); ok {
		return e
	}
	switch {
	case !f.inRequest:
		return abi.ErrState
	case len(f.written) > 0:
		return abi.ErrHeadersSent
	case name == "" || strings.ContainsFunc(name, func(r rune) bool {
		return r <= ' ' || r >= 0x7f || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r)
	}):
		return abi.ErrInvalid
	case strings.ContainsAny(value, "\r\n\x00"):
		return abi.ErrInvalid
	case slices.ContainsFunc(abi.ForbiddenResponseHeaders, func(h string) bool { return strings.EqualFold(h, name) }):
		return abi.ErrInvalid
	}
	return 0
}

func responseWrite(buf []byte) int32 {
	if e, ok := fake.failing(abi.ImportResponseWrite); ok {
		return int32(e)
	}
	if !fake.inRequest {
		return int32(abi.ErrState)
	}
	fake.written = append(fake.written, buf...)
	fake.chunks = append(fake.chunks, string(buf))
	return 0
}

func hostLog(level abi.LogLevel, msg string) {
	if fake.inRequest {
		fake.logs = append(fake.logs, logLine{level, msg})
		return
	}
	fmt.Fprintf(os.Stderr, "%s %s\n", [...]string{"DEBUG", "INFO", "WARN", "ERROR"}[min(max(int(level), 0), 3)], msg)
}
