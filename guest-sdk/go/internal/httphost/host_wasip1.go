//go:build wasip1

package httphost

import "unsafe"

//go:wasmimport endpoints http_send
func wasmHTTPSend(req *byte, reqLen uint32, body *byte, bodyLen uint32) int32

//go:wasmimport endpoints http_response
func wasmHTTPResponse(h int32, buf *byte, bufLen uint32) int32

//go:wasmimport endpoints http_body_read
func wasmHTTPBodyRead(h int32, buf *byte, bufLen uint32) int32

//go:wasmimport endpoints http_close
func wasmHTTPClose(h int32) int32

//go:wasmimport endpoints http_error
func wasmHTTPError(buf *byte, bufLen uint32) int32

// Send is http_send: the request's JSON (an abi.HTTPRequest) and body; a
// handle, or a negative errno.
func Send(req, body []byte) int32 {
	return wasmHTTPSend(unsafe.SliceData(req), uint32(len(req)), unsafe.SliceData(body), uint32(len(body)))
}

// Response is http_response: the size of the response head's JSON, written
// to buf when it fits, or a negative errno.
func Response(h int32, buf []byte) int32 {
	return wasmHTTPResponse(h, unsafe.SliceData(buf), uint32(len(buf)))
}

// BodyRead is http_body_read: the bytes of the body read into buf, 0 at
// the end, or a negative errno.
func BodyRead(h int32, buf []byte) int32 {
	return wasmHTTPBodyRead(h, unsafe.SliceData(buf), uint32(len(buf)))
}

// Close is http_close: 0, or a negative errno.
func Close(h int32) int32 { return wasmHTTPClose(h) }

// Error is http_error: the size of the last failure's JSON (an
// abi.HTTPError), written to buf when it fits, or a negative errno.
func Error(buf []byte) int32 { return wasmHTTPError(unsafe.SliceData(buf), uint32(len(buf))) }
