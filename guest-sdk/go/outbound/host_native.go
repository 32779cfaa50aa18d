//go:build !wasip1

package outbound

import "github.com/wasmendpoints/endpoints/abi"

// Outside WebAssembly there is no host: the http_* functions are served
// by fake when a test of this package sets it, and answer abi.ErrState
// otherwise. http.DefaultTransport is left alone.

// hostFuncs are the http_* functions of the ABI.
type hostFuncs interface {
	send(req, body []byte) int32
	response(h int32, buf []byte) int32
	bodyRead(h int32, buf []byte) int32
	close(h int32) int32
	error(buf []byte) int32
}

var fake hostFuncs

func httpSend(req, body []byte) int32 {
	if fake == nil {
		return int32(abi.ErrState)
	}
	return fake.send(req, body)
}

func httpResponse(h int32, buf []byte) int32 {
	if fake == nil {
		return int32(abi.ErrState)
	}
	return fake.response(h, buf)
}

func httpBodyRead(h int32, buf []byte) int32 {
	if fake == nil {
		return int32(abi.ErrState)
	}
	return fake.bodyRead(h, buf)
}

func httpClose(h int32) int32 {
	if fake == nil {
		return int32(abi.ErrState)
	}
	return fake.close(h)
}

func httpError(buf []byte) int32 {
	if fake == nil {
		return int32(abi.ErrNotFound)
	}
	return fake.error(buf)
}
