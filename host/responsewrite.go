package host

import (
	"fmt"
	"net/http"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/conndeadline"
	"github.com/wasmendpoints/endpoints/host/internal/guestfail"
	"github.com/wasmendpoints/endpoints/internal/answer"
	"github.com/wasmendpoints/endpoints/internal/interrupt"
)

// write serves response_write: buffered for an endpoint, straight to the
// client for a plain route.
func (c *call) write(data []byte) abi.Errno {
	if c.w == nil && c.op != nil && c.out != nil {
		if first, ok := c.op.Media[c.status]; ok {
			// A media answer streams from its first byte: status and
			// headers go out now, every write is flushed.
			c.w, c.flush = c.out, true
			if c.header.Get("Content-Type") == "" {
				ct := first
				if c.mediaType != "" && c.op.Negotiates() {
					ct = c.mediaType
				}
				c.header.Set("Content-Type", ct)
			}
		}
	}
	if c.fault != "" {
		return abi.ErrInvalid
	}
	if c.w != nil && !c.wroteHeader && c.Expired() {
		// Past the deadline before the first byte: a clean 500 is still
		// possible.
		panic(interrupt.ErrInterrupted)
	}
	if c.w == nil {
		if c.maxBuffer > 0 && int64(c.buf.Len())+int64(len(data)) > c.maxBuffer {
			panic(&guestfail.LimitError{Msg: fmt.Sprintf("the handler wrote an answer of more than %d bytes (limits.responseBytes); declare a media response to stream large answers", c.maxBuffer)})
		}
		c.buf.Write(data)
		return 0
	}
	if !c.wroteHeader {
		c.commit()
	}
	if c.writeErr != nil {
		return abi.ErrIO
	}
	if c.req.Method == http.MethodHead || answer.NoBody(c.status) {
		// Dropped, as an endpoint's buffered answer drops it: net/http
		// refuses the bytes, which is no fault of the client's.
		return 0
	}
	// Each write must be taken within server.writeTimeout, and by the
	// call's deadline: a client that stops reading a stream ends it.
	conndeadline.SetWrite(c.w, time.Unix(0, min(time.Now().Add(time.Duration(c.set.Server.WriteTimeout)).UnixNano(), c.clock.Until().UnixNano())))
	if _, err := c.w.Write(data); err != nil {
		c.clientGone(err)
		return abi.ErrIO
	}
	c.idem.Tee(data)
	if c.flush {
		if err := http.NewResponseController(c.w).Flush(); err != nil {
			c.clientGone(err)
			return abi.ErrIO
		}
	}
	c.clock.Active(time.Now())
	return 0
}

// clientGone records that writing to the client failed (it left, or
// stopped reading until the write deadline) and stops the guest at its
// next check: nobody will read what it writes.
func (c *call) clientGone(err error) {
	c.writeErr = err
	c.clock.Stop()
}

// commit sends a plain route's status and headers.
func (c *answerPart) commit() {
	c.wroteHeader = true
	hdr := c.w.Header()
	for k, vs := range c.header {
		hdr[k] = vs
	}
	c.w.WriteHeader(c.status)
}
