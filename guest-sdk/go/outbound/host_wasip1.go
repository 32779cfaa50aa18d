//go:build wasip1

package outbound

import (
	"net/http"
	"unsafe"
)

func init() { http.DefaultTransport = Transport{} }

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

func httpSend(req, body []byte) int32 {
	return wasmHTTPSend(unsafe.SliceData(req), uint32(len(req)), unsafe.SliceData(body), uint32(len(body)))
}

func httpResponse(h int32, buf []byte) int32 {
	return wasmHTTPResponse(h, unsafe.SliceData(buf), uint32(len(buf)))
}

func httpBodyRead(h int32, buf []byte) int32 {
	return wasmHTTPBodyRead(h, unsafe.SliceData(buf), uint32(len(buf)))
}

func httpClose(h int32) int32 { return wasmHTTPClose(h) }

func httpError(buf []byte) int32 { return wasmHTTPError(unsafe.SliceData(buf), uint32(len(buf))) }
