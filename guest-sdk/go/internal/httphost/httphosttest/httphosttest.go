//go:build !wasip1

// Package httphosttest serves the ABI's http_* functions to the tests of
// the outbound packages, outside WebAssembly: one canned response, or a
// failure, and a record of what the guest sent.
package httphosttest

import (
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/guest-sdk/go/internal/httphost"
)

// Handle is the handle the fake's http_send returns.
const Handle = 3

// Host serves one response (Head, then Body two bytes a read), or fails
// http_send with Errno; http_error then answers ErrJSON.
type Host struct {
	// Sent and SentBody are what the last http_send was given.
	Sent, SentBody string
	// Head is http_response's JSON (an abi.HTTPResponse).
	Head string
	// Body is what http_body_read has left to give.
	Body string
	// Errno, when not 0, is what http_send returns.
	Errno abi.Errno
	// BodyErrno, when not 0, is what http_body_read returns once Body is
	// exhausted (a limit, a broken connection), instead of 0.
	BodyErrno abi.Errno
	// ErrJSON is http_error's JSON (an abi.HTTPError); "" answers
	// ErrNotFound.
	ErrJSON string
	// Closed counts http_close calls; ReadsAfterEnd the reads past the
	// body's end.
	Closed, ReadsAfterEnd int
}

// Install makes h the host of the http_* functions until t ends.
func Install(t testing.TB, h *Host) *Host {
	httphost.Fake = h
	t.Cleanup(func() { httphost.Fake = nil })
	return h
}

// Send records req and body, and returns Handle or Errno.
func (h *Host) Send(req, body []byte) int32 {
	h.Sent, h.SentBody = string(req), string(body)
	if h.Errno != 0 {
		return int32(h.Errno)
	}
	return Handle
}

// Response writes Head when it fits, and returns its size.
func (h *Host) Response(handle int32, buf []byte) int32 {
	if handle != Handle {
		return int32(abi.ErrNotFound)
	}
	if len(h.Head) <= len(buf) {
		copy(buf, h.Head)
	}
	return int32(len(h.Head))
}

// BodyRead gives the next two bytes of Body, then 0 (or BodyErrno).
func (h *Host) BodyRead(handle int32, buf []byte) int32 {
	if handle != Handle {
		return int32(abi.ErrNotFound)
	}
	if h.Body == "" {
		h.ReadsAfterEnd++
		return int32(h.BodyErrno)
	}
	n := copy(buf, h.Body[:min(len(h.Body), 2)])
	h.Body = h.Body[n:]
	return int32(n)
}

// Close counts the call.
func (h *Host) Close(int32) int32 { h.Closed++; return 0 }

// Error writes ErrJSON when it fits, and returns its size.
func (h *Host) Error(buf []byte) int32 {
	if h.ErrJSON == "" {
		return int32(abi.ErrNotFound)
	}
	if len(h.ErrJSON) <= len(buf) {
		copy(buf, h.ErrJSON)
	}
	return int32(len(h.ErrJSON))
}
