package guestanswer

import (
	"fmt"
	"net/http"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/guestfail"
	"github.com/wasmendpoints/endpoints/internal/answer"
	"github.com/wasmendpoints/endpoints/internal/interrupt"
)

// Write serves response_write: buffered for an endpoint, straight to the
// client for a plain route or a media answer. Past limits.responseBytes,
// or past the call's deadline before a streamed answer's first byte, it
// panics (a guestfail.LimitError, interrupt.ErrInterrupted) to stop the
// guest with a clean 500.
func (a *Answer) Write(data []byte) abi.Errno {
	if a.w == nil && a.to.Media != nil && a.out != nil {
		if first, ok := a.to.Media[a.status]; ok {
			// A media answer streams from its first byte: status and
			// headers go out now, every write is flushed.
			a.w, a.flush = a.out, true
			if a.header.Get("Content-Type") == "" {
				ct := first
				if a.mediaType != "" && a.to.Negotiates {
					ct = a.mediaType
				}
				a.header.Set("Content-Type", ct)
			}
		}
	}
	if a.fault != "" {
		return abi.ErrInvalid
	}
	if a.w != nil && !a.wroteHeader && a.call.Expired() {
		// Past the deadline before the first byte: a clean 500 is still
		// possible.
		panic(interrupt.ErrInterrupted)
	}
	if a.w == nil {
		if a.maxBuffer > 0 && int64(a.buf.Len())+int64(len(data)) > a.maxBuffer {
			panic(&guestfail.LimitError{Msg: fmt.Sprintf("the handler wrote an answer of more than %d bytes (limits.responseBytes); declare a media response to stream large answers", a.maxBuffer)})
		}
		a.buf.Write(data)
		return 0
	}
	if !a.wroteHeader {
		a.Commit()
	}
	if a.writeErr != nil {
		return abi.ErrIO
	}
	if a.to.Head || answer.NoBody(a.status) {
		// Dropped, as an endpoint's buffered answer drops it: net/http
		// refuses the bytes, which is no fault of the client's.
		return 0
	}
	// Each write must be taken within server.writeTimeout, and by the
	// call's deadline: a client that stops reading a stream ends it.
	a.to.Deadlines.Set(a.w, a.clock.Within(a.to.WriteTimeout), a.to.WriteTimeout/64)
	if _, err := a.w.Write(data); err != nil {
		a.clientGone(err)
		return abi.ErrIO
	}
	if a.to.Tee != nil {
		a.to.Tee.Tee(data)
	}
	if a.flush {
		if err := http.NewResponseController(a.w).Flush(); err != nil {
			a.clientGone(err)
			return abi.ErrIO
		}
	}
	if a.clock.Idle() > 0 {
		// Without an idle timeout, activity moves nothing: no clock
		// reading.
		a.clock.Active(time.Now())
	}
	return 0
}

// clientGone records that writing to the client failed (it left, or
// stopped reading until the write deadline) and stops the guest at its
// next check: nobody will read what it writes.
func (a *Answer) clientGone(err error) {
	a.writeErr = err
	a.clock.Stop()
}

// Commit sends the status and headers of a plain route's answer or of a
// streamed one, completed by the target's Finish.
func (a *Answer) Commit() {
	a.wroteHeader = true
	hdr := a.w.Header()
	for k, vs := range a.header {
		hdr[k] = vs
	}
	if a.to.Finish != nil {
		a.to.Finish.FinishHeader(a.status, hdr)
	}
	a.w.WriteHeader(a.status)
}
