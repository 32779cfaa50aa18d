package host

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/formdata"
)

// call is the state of one guest call: the request as validated, the answer
// being built, and the deadline the interrupt check consults. It is the
// context.Context handed to wazero, so host functions find it with one type
// assertion and no allocation.
//
// A call is owned by the goroutine serving the request; host functions run
// on that goroutine, inside the guest call. The only field another
// goroutine touches is stop. Slices host functions read from guest memory
// point into the instance's memory, which is unmapped when the instance
// closes: a call keeps copies, never those slices.
type call struct {
	parent context.Context
	host   *Host
	set    *settings // of the table the request started on
	route  *route
	op     *operation // nil for a plain route and while loading

	// request side
	req      *http.Request
	loading  bool // reading the contract: no request
	params   map[string]any
	query    map[string]any
	headers  map[string]any
	body     any // validated JSON body
	bodyRaw  []byte
	bodyJSON bool // bodyRaw is the body as received and can be handed over as is
	bodyPos  int
	bodySrc  io.Reader // plain routes and raw bodies: the request body, read as the guest asks
	// bodyPresent: the request carried a body of a declared type.
	bodyPresent bool
	contentType string                 // the body's media type, lower case, for the envelope
	multipart   *formdata.Multipart    // a multipart body's files, for file_read
	failure     *abi.ValidationFailure // set while an onValidationError hook runs
	// idempotency: the key claimed for this call and its lease, until the
	// answer is stored or the key released; a streamed answer is copied to
	// idemTee for the store, unless longer than maxReplayBody.
	idemKey, idemLease string
	idemTee            bytes.Buffer
	idemOverflow       bool
	envelope           []byte
	scratch            []byte

	// response side
	status      int
	header      http.Header
	buf         bytes.Buffer
	w           http.ResponseWriter // plain routes and streaming answers: bytes go straight out
	out         http.ResponseWriter // an endpoint's writer, until its answer streams
	flush       bool                // flush after every write (streaming endpoint answers)
	mediaType   string              // the negotiated type, for the envelope and Content-Type
	wroteHeader bool
	writeErr    error

	// interrupt
	deadline int64 // unix nanoseconds
	stop     atomic.Bool
	logger   *slog.Logger

	// memory carries the memory allocator while the call instantiates a
	// module (engine.instantiate); nil otherwise.
	memory context.Context
}

type callKey struct{}

func (c *call) Deadline() (time.Time, bool) { return time.Unix(0, c.deadline), true }
func (c *call) Done() <-chan struct{}       { return c.parent.Done() }
func (c *call) Err() error                  { return c.parent.Err() }
func (c *call) Value(key any) any {
	if key == (callKey{}) {
		return c
	}
	if c.memory != nil {
		if v := c.memory.Value(key); v != nil {
			return v
		}
	}
	return c.parent.Value(key)
}

func callFrom(ctx context.Context) *call {
	c, _ := ctx.Value(callKey{}).(*call)
	return c
}

// Expired reports whether the guest must stop: past its deadline, told to
// stop, its client went away, or the host is closing. It makes the call an
// interrupt.Expirer, which the interrupt check asks directly.
func (c *call) Expired() bool {
	return c.stop.Load() || time.Now().UnixNano() > c.deadline || c.parent.Err() != nil ||
		(c.host != nil && c.host.engine.stopping())
}

// reset prepares a pooled call for a request.
func (c *call) reset(ctx context.Context, h *Host, set *settings, rt *route, op *operation, r *http.Request) {
	timeout := set.opts.Limits.timeout()
	*c = call{
		parent:   ctx,
		host:     h,
		set:      set,
		route:    rt,
		op:       op,
		req:      r,
		status:   http.StatusOK,
		header:   c.header,
		buf:      c.buf,
		envelope: c.envelope[:0],
		scratch:  c.scratch[:0],
		deadline: time.Now().Add(timeout).UnixNano(),
		logger:   h.logger,
		params:   reuse(c.params),
		query:    reuse(c.query),
		headers:  reuse(c.headers),
		idemTee:  c.idemTee,
	}
	c.idemTee.Reset()
	if c.header == nil {
		c.header = http.Header{}
	} else {
		clear(c.header)
	}
	c.buf.Reset()
}

// reuse empties a map of a pooled call for the next request.
func reuse(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	clear(m)
	return m
}

// log writes a guest's log line.
func (c *call) log(level abi.LogLevel, msg string) {
	l := slog.LevelInfo
	switch level {
	case abi.LogDebug:
		l = slog.LevelDebug
	case abi.LogWarn:
		l = slog.LevelWarn
	case abi.LogError:
		l = slog.LevelError
	}
	file := ""
	if c.route != nil {
		file = c.route.file
	}
	c.logger.Log(c.parent, l, msg, "route", file)
}
