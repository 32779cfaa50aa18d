// Package guestanswer is the answer a guest call makes (abi/README.md §3,
// "Answers"): its status, its headers within the ABI's bounds, and its
// body, buffered for an endpoint (bounded by limits.responseBytes, checked
// and sent by the host once the guest returns) or streamed to the client as
// it is written (a plain route's, or an endpoint's answer of a declared
// media type, from its first byte).
//
// An [Answer] is a field of the host's per-request call, reused from call
// to call ([Answer.Reset]). It is owned by the goroutine serving the
// request: the host functions of the call write into it on that goroutine.
// What it asks of the call is its [guestclock.Clock] (stop the guest, the
// end a write may wait until, a stream's activity) and whether the guest
// must stop ([interrupt.Expirer]).
package guestanswer

import (
	"bytes"
	"fmt"
	"net/http"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/conndeadline"
	"github.com/wasmendpoints/endpoints/host/internal/guestclock"
	"github.com/wasmendpoints/endpoints/internal/interrupt"
)

// maxKeptBuffer is the capacity past which a released answer drops its
// buffer rather than keep it for the next call.
const maxKeptBuffer = 64 << 10

// Answer is the answer of one guest call. The zero Answer is ready for
// [Answer.Reset].
type Answer struct {
	status int
	// statusSet: the guest set the status (SetStatus) since the answer
	// was reset or restarted.
	statusSet bool
	header    http.Header
	buf       bytes.Buffer
	// w is where bytes go straight out (a plain route, a streaming
	// answer); out is an endpoint's writer, until its answer streams.
	w, out      http.ResponseWriter
	to          Target
	flush       bool   // flush after every write (streaming endpoint answers)
	mediaType   string // the negotiated type, for the envelope and Content-Type
	wroteHeader bool
	writeErr    error
	// maxBuffer bounds the buffered answer (limits.responseBytes);
	// headerCount and headerBytes count what the guest set in header.
	maxBuffer                int64
	headerCount, headerBytes int
	// fault is why the call fails whatever the guest returns: it passed a
	// limit the ABI answers with an errno (too many headers).
	fault string

	clock *guestclock.Clock
	call  interrupt.Expirer
}

// Target is where an answer goes and what its streamed writes are held
// to.
type Target struct {
	// W is the request's writer.
	W http.ResponseWriter
	// Head says the request is a HEAD: what the guest streams is
	// dropped, as net/http refuses it.
	Head bool
	// WriteTimeout is server.writeTimeout: each streamed write must be
	// taken within it (and by the call's end).
	WriteTimeout time.Duration
	// Deadlines sets the writes' deadlines, skipping one that would move
	// the deadline in force by less than 1/64 of WriteTimeout; nil sets
	// each.
	Deadlines *conndeadline.Writes
	// Tee keeps a copy of what streams (the Idempotency-Key's stored
	// answer); nil keeps none.
	Tee Tee
	// Media are the media types an endpoint's statuses answer with
	// (routes.Operation.Media): an answer of such a status streams from
	// its first byte, with that Content-Type unless the guest set one, or
	// the negotiated type when Negotiates.
	Media      map[int]string
	Negotiates bool
	// Finish, when set, completes a streamed answer's headers as they go
	// out, once the guest's are in (what the host adds to an answer the
	// guest made); nil adds nothing.
	Finish Finisher
}

// Finisher completes the headers h of an answer of status before they
// are sent.
type Finisher interface {
	FinishHeader(status int, h http.Header)
}

// Tee keeps a copy of the bytes an answer streams.
type Tee interface{ Tee(data []byte) }

// Reset prepares a pooled answer for a call: status 200, no headers, an
// empty buffer bounded by maxBuffer bytes (0 bounds none), and no target
// (nothing streams until [Answer.Plain] or [Answer.Endpoint]). clock and
// call are the call's, for the writes' deadlines.
func (a *Answer) Reset(maxBuffer int64, clock *guestclock.Clock, call interrupt.Expirer) {
	header, buf := a.header, a.buf
	*a = Answer{status: http.StatusOK, header: header, buf: buf, maxBuffer: maxBuffer, clock: clock, call: call}
	if a.header == nil {
		a.header = http.Header{}
	} else {
		clear(a.header)
	}
	a.buf.Reset()
}

// Release drops what the answer holds of its request once the call is
// over (its writers, a large buffer) before the call is pooled.
func (a *Answer) Release() {
	a.w, a.out, a.to = nil, nil, Target{}
	a.clock, a.call = nil, nil
	if a.buf.Cap() > maxKeptBuffer {
		a.buf = bytes.Buffer{}
	}
}

// Plain sends what the guest writes straight to t.W: a plain route's
// answer, whose status and headers go out at its first write or at
// [Answer.Commit].
func (a *Answer) Plain(t Target) { a.to, a.w = t, t.W }

// Endpoint buffers what the guest writes, unless its status is one of
// t.Media: an endpoint's answer.
func (a *Answer) Endpoint(t Target) { a.to, a.out = t, t.W }

// Writer is the request's writer the answer goes to, nil before
// [Answer.Plain] or [Answer.Endpoint].
func (a *Answer) Writer() http.ResponseWriter {
	if a.out != nil {
		return a.out
	}
	return a.w
}

// Status is the answer's status; 200 unless the guest set one.
func (a *Answer) Status() int { return a.status }

// SetStatus sets the answer's status (response_set_status).
func (a *Answer) SetStatus(s int) { a.status, a.statusSet = s, true }

// StatusSet reports whether the guest set the status ([Answer.SetStatus])
// since [Answer.Reset] or [Answer.Restart]: an answer it chose, which the
// host never replaces with one of its own guesses (a failed call after a
// database outage is answered 503 only when its guest set no status).
func (a *Answer) StatusSet() bool { return a.statusSet }

// Header is the answer's header fields as the guest set them.
func (a *Answer) Header() http.Header { return a.header }

// UseHeader makes h the answer's header fields: a middleware call sets
// those of the answer it wraps. Give nil before the call is pooled, so that
// the pool never holds another answer's headers.
func (a *Answer) UseHeader(h http.Header) { a.header = h }

// Body is the buffered answer's bytes.
func (a *Answer) Body() []byte { return a.buf.Bytes() }

// Sent reports whether the status and headers went out: bytes streamed.
func (a *Answer) Sent() bool { return a.wroteHeader }

// MarkSent says the answer went out, for a middleware's after call on a
// streamed answer.
func (a *Answer) MarkSent() { a.wroteHeader = true }

// MediaType is the media type content negotiation chose, "" without it.
func (a *Answer) MediaType() string { return a.mediaType }

// SetMediaType records the media type content negotiation chose.
func (a *Answer) SetMediaType(t string) { a.mediaType = t }

// Fault is why the call fails whatever the guest returns, "" when
// nothing passed a limit.
func (a *Answer) Fault() string { return a.fault }

// SetFault fails the call whatever the guest returns, with why.
func (a *Answer) SetFault(why string) { a.fault = why }

// Restart empties the answer for another export of the same call (an
// onValidationError hook) that answers with status by default.
func (a *Answer) Restart(status int) {
	a.status, a.statusSet = status, false
	clear(a.header)
	a.headerCount, a.headerBytes, a.fault = 0, 0, ""
	a.buf.Reset()
}

// SetHeader sets or adds a response header within the ABI's limits on
// their number and size (abi.ResponseHeaderMaxCount,
// abi.ResponseHeaderMaxBytes); past them the call fails (its fault) and
// the guest gets ErrInvalid, and a guest that goes on is stopped.
func (a *Answer) SetHeader(name, value string, add bool) abi.Errno {
	if a.fault != "" {
		// Told once; a guest that goes on is stopped.
		a.clock.Stop()
		return abi.ErrInvalid
	}
	key := http.CanonicalHeaderKey(name)
	count, size := a.headerCount+1, a.headerBytes+len(key)+len(value)
	if !add {
		for _, v := range a.header[key] {
			count--
			size -= len(key) + len(v)
		}
	}
	if count > abi.ResponseHeaderMaxCount || size > abi.ResponseHeaderMaxBytes {
		a.fault = fmt.Sprintf("the handler set more response headers than the host allows (%d values, %d bytes)", abi.ResponseHeaderMaxCount, abi.ResponseHeaderMaxBytes)
		return abi.ErrInvalid
	}
	if add {
		a.header[key] = append(a.header[key], value)
	} else {
		a.header[key] = []string{value}
	}
	a.headerCount, a.headerBytes = count, size
	return 0
}
