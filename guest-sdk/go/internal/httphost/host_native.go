//go:build !wasip1

package httphost

// Funcs are the http_* functions of the ABI, as a test serves them.
type Funcs interface {
	Send(req, body []byte) int32
	Response(h int32, buf []byte) int32
	BodyRead(h int32, buf []byte) int32
	Close(h int32) int32
	Error(buf []byte) int32
}

// Fake serves the functions outside WebAssembly when a test sets it (and
// sets it back to nil when done); while it is nil, Go's net/http does.
var Fake Funcs

// Send is http_send: the request's JSON (an abi.HTTPRequest) and body; a
// handle, or a negative errno.
func Send(req, body []byte) int32 {
	if Fake == nil {
		return direct.Send(req, body)
	}
	return Fake.Send(req, body)
}

// Response is http_response: the size of the response head's JSON, written
// to buf when it fits, or a negative errno.
func Response(h int32, buf []byte) int32 {
	if Fake == nil {
		return direct.Response(h, buf)
	}
	return Fake.Response(h, buf)
}

// BodyRead is http_body_read: the bytes of the body read into buf, 0 at
// the end, or a negative errno.
func BodyRead(h int32, buf []byte) int32 {
	if Fake == nil {
		return direct.BodyRead(h, buf)
	}
	return Fake.BodyRead(h, buf)
}

// Close is http_close: 0, or a negative errno.
func Close(h int32) int32 {
	if Fake == nil {
		return direct.Close(h)
	}
	return Fake.Close(h)
}

// Error is http_error: the size of the last failure's JSON (an
// abi.HTTPError), written to buf when it fits, or a negative errno.
func Error(buf []byte) int32 {
	if Fake == nil {
		return direct.Error(buf)
	}
	return Fake.Error(buf)
}
