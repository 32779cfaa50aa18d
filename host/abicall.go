package host

import (
	"errors"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/abihost"
	"github.com/wasmendpoints/endpoints/storage"
)

// guestCall is what a guest sees of its call: the host functions of
// package abihost (abihost.Call, this file) and the engine that runs it
// (engine.Call, enginecall.go). Each method serves one of them, on the
// goroutine of the call. The call's Value for abihost.CallKey is its
// guestCall, which holds the call alone, so it is stored in an interface
// without an allocation.
type guestCall struct{ *call }

var _ abihost.Call = guestCall{}

func (c guestCall) Loading() bool     { return c.rq.Loading }
func (c guestCall) Phase() string     { return c.phase }
func (c guestCall) Middleware() bool  { return c.mw != nil }
func (c guestCall) HeadersSent() bool { return c.resp.Sent() }
func (c guestCall) Envelope() []byte  { return c.envelopeJSON() }
func (c guestCall) SetStatus(s int)   { c.resp.SetStatus(s) }

// Scratch is the call's reusable buffer (guestrequest.Request.Scratch).
func (c guestCall) Scratch() *[]byte { return c.rq.Scratch() }

func (c guestCall) RequestValue(part abi.Part, name []byte) ([]byte, abi.Errno) {
	return c.rq.Value(part, string(name))
}

func (c guestCall) RequestHeader(name []byte) []string {
	return c.rq.Header(name)
}

func (c guestCall) ReadBody(dst []byte) (int, abi.Errno) { return c.rq.ReadBody(dst) }
func (c guestCall) ReadFile(index int32, dst []byte) (int, abi.Errno) {
	return c.rq.ReadFile(index, dst, c.logger, c.route.File)
}
func (c guestCall) Write(data []byte) abi.Errno { return c.resp.Write(data) }

func (c guestCall) SetResponseHeader(name, value string, add bool) abi.Errno {
	return c.resp.SetHeader(name, value, add)
}

func (c guestCall) SetRequestHeader(name, value []byte) abi.Errno {
	return c.setRequestHeader(name, value)
}
func (c guestCall) SetContext(name, value []byte) abi.Errno { return c.rq.SetContext(name, value) }
func (c guestCall) SetPrincipal(b []byte) abi.Errno         { return c.rq.SetPrincipal(b) }
func (c guestCall) Log(level abi.LogLevel, line []byte)     { c.log(level, line) }

// Store is the app's store, for a call that serves a request.
func (c guestCall) Store() (storage.Store, string, bool) {
	if c.host == nil {
		return nil, "", false
	}
	return c.host.store, c.host.namespace, true
}

// Variable is the value of the app's variable name, from the settings
// the request started on.
func (c guestCall) Variable(name []byte) ([]byte, bool) {
	if c.set == nil {
		return nil, false
	}
	return c.set.Variables.Lookup(string(name))
}

// StoreSpan begins the span of a guest's store operation op, under its
// guest call's span.
func (c *call) StoreSpan(op string) func(error) { return c.startSpan(StepStore, op) }

// StoreError maps a store error to the ABI's errno.
func (c guestCall) StoreError(op string, err error) abi.Errno {
	switch {
	case errors.Is(err, storage.ErrNotInteger):
		return abi.ErrInvalid
	case errors.Is(err, storage.ErrFull):
		c.host.opts.Observer.reportStoreError(op, err)
		c.logger.Warn("the key-value store is full", "route", c.route.Name, "op", op)
		return abi.ErrUnavailable
	default:
		c.host.opts.Observer.reportStoreError(op, err)
		c.logger.Error("the key-value store failed", "route", c.route.Name, "op", op, "error", err)
		return abi.ErrUnavailable
	}
}
