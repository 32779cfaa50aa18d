package endpoints

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"strings"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/guest-sdk/go/internal/jsonenc"
)

// Buffers reused across requests. An instance serves one request at a
// time (the host owns it for the request), so they need no lock.
var (
	// envelopeBuf receives the request envelope; it starts at 4 KiB and
	// grows to the largest envelope seen.
	envelopeBuf = make([]byte, 4096)
	// headerBuf receives raw header values for Header.
	headerBuf = make([]byte, 256)
	// replyBuf and replyEnc encode reply bodies; planBuf holds those
	// jsonenc encodes.
	replyBuf bytes.Buffer
	replyEnc = json.NewEncoder(&replyBuf)
	planBuf  []byte
)

// importError is a host function that returned an [abi.Errno].
type importError struct {
	fn    string
	errno abi.Errno
}

func (e *importError) Error() string {
	return fmt.Sprintf("host function %s: %v (%d)", e.fn, e.errno, int32(e.errno))
}

func (e *importError) Unwrap() error { return e.errno }

// check turns a negative result of host function fn into an error.
func check(fn string, rc int32) error {
	if rc < 0 {
		return &importError{fn, abi.Errno(rc)}
	}
	return nil
}

// handle serves one request; it is the body of the endpoints_handle
// export. It returns 0 when the guest answered and 1 when it failed (the
// failure is logged; the host answers 500 when nothing was sent yet).
func handle() (code int32) {
	defer func() {
		if v := recover(); v != nil {
			hostLog(abi.LogError, fmt.Sprintf("endpoints: handler panicked: %v\n%s", v, debug.Stack()))
			code = 1
		}
	}()
	if err := reg.serve(); err != nil {
		hostLog(abi.LogError, "endpoints: "+err.Error())
		return 1
	}
	return 0
}

// request is what the SDK keeps of the request being served, for
// [MediaType] and [ContentType]. serve and the validation-error hook set
// it; it is valid during one call of an export.
var request requestState

// requestState is what the SDK keeps of the request being served.
type requestState struct {
	envelope    []byte // the request envelope, in envelopeBuf
	mediaType   []byte // the raw "mediaType" member; nil when absent
	contentType []byte // the raw "contentType" member; nil when absent
	// auth, requestID, traceID and context are the raw members of the
	// same names.
	auth, requestID, traceID, context []byte
	scanned                           bool // the envelope was scanned: all are final
}

// beginRequest and endRequest set and clear what the SDK keeps of the
// request being served.
func beginRequest(envelope []byte) {
	request = requestState{envelope: envelope}
}

func endRequest() { beginRequest(nil) }

// serve reads the request, runs the registered handler and writes its
// answer.
func (r *registry) serve() error {
	defer endRequest()
	envelope, err := readEnvelope()
	if err != nil {
		return err
	}
	beginRequest(envelope)
	if r.raw != nil {
		return serveRaw(r.raw, envelope)
	}
	op, err := r.operationFor(envelope)
	if err != nil {
		return err
	}
	r.ready() // a bundle's route, at its first request
	reply, err := op.serve(envelope)
	if err != nil {
		return err
	}
	if reply.status == 0 {
		return errors.New("the handler returned the zero Reply: build replies with endpoints.Respond, Bytes, Stream or EventStream")
	}
	return writeReply(reply, envelope, 200)
}

// readEnvelope reads the request envelope into envelopeBuf, growing it to
// the size the host asks for.
func readEnvelope() ([]byte, error) {
	for range 3 {
		n := requestRead(envelopeBuf)
		if err := check(abi.ImportRequestRead, n); err != nil {
			return nil, err
		}
		if int(n) <= len(envelopeBuf) {
			return envelopeBuf[:n], nil
		}
		envelopeBuf = make([]byte, n)
	}
	return nil, fmt.Errorf("host function %s: the envelope size kept changing", abi.ImportRequestRead)
}

// operationFor picks the operation for the request's method.
func (r *registry) operationFor(envelope []byte) (*operation, error) {
	if len(r.ops) == 0 {
		return nil, errors.New("no handler registered: call endpoints.Handle, HandleFunc or HandleRaw from an init function")
	}
	if len(r.ops) == 1 && r.ops[0].method == "" {
		return r.ops[0], nil
	}
	method, err := envelopeMethod(envelope)
	if err != nil {
		return nil, fmt.Errorf("decoding the request envelope: %w", err)
	}
	var get *operation
	for _, o := range r.ops {
		if o.method == method {
			return o, nil
		}
		if o.method == "GET" {
			get = o
		}
	}
	if method == "HEAD" && get != nil {
		return get, nil
	}
	declared := make([]string, len(r.ops))
	for i, o := range r.ops {
		declared[i] = o.method
	}
	return nil, fmt.Errorf("no handler for method %q: the module declares %s", method, strings.Join(declared, ", "))
}

// Member names of the request envelope: the json tags of abi.Envelope
// (TestEnvelopeKeys checks them) and the names of abi.Part. They are
// constants so that comparisons and switch statements on them compile to
// inline loads and compares rather than calls to runtime.memequal (11 of
// them per GET when they were variables): the envelope is read on every
// request, and calls are dear in a Go WebAssembly module.
const (
	keyMethod      = "method"
	keyRoute       = "route"
	keyPath        = "path"
	keyRawQuery    = "rawQuery"
	keyParams      = "params"
	keyQuery       = "query"
	keyHeaders     = "headers"
	keyBody        = "body"
	keyMediaType   = "mediaType"
	keyContentType = "contentType"
	keyFiles       = "files"
	keyRequestID   = "requestId"
	keyTraceID     = "traceId"
	keyAuth        = "auth"
	keyContext     = "context"
	keyError       = "error"
)

// jsonKey returns the JSON member name of field of struct type T.
func jsonKey[T any](field string) string {
	f, ok := reflect.TypeFor[T]().FieldByName(field)
	if !ok {
		panic("endpoints: " + reflect.TypeFor[T]().String() + " has no field " + field)
	}
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}

// errFound stops a scan early.
var errFound = errors.New("found")

// envelopeMethod returns the request method of the envelope.
func envelopeMethod(envelope []byte) (string, error) {
	raw, err := findMember(envelope, keyMethod)
	if err != nil || raw == nil {
		return "", err
	}
	method, err := decodeString(raw)
	if err != nil {
		return "", fmt.Errorf("%s: %w", keyMethod, err)
	}
	return method, nil
}

// findMember returns the raw value of the envelope's member key, nil when
// it is absent. The scan stops at the member.
func findMember(envelope []byte, key string) ([]byte, error) {
	var found []byte
	err := eachMember(envelope, func(k string, value []byte) error {
		if k != key {
			return nil
		}
		found = value
		return errFound
	})
	if err != nil && err != errFound {
		return nil, err
	}
	return found, nil
}

// writeReply sends a Reply: status, headers, then the body. envelope is
// the request's, for the method of a stream; status is the status the
// host starts the answer with (200 for a handler, the failure's for a
// validation-error hook), which needs no host call.
func writeReply(reply Reply, envelope []byte, status int) error {
	var body []byte
	switch reply.kind {
	case replyJSON:
		if reply.body != nil {
			var err error
			if body, err = encodeJSON(reply.body); err != nil {
				return fmt.Errorf("encoding the body of the %d reply: %w", reply.status, err)
			}
		}
	case replyBytes:
		body = reply.bytes
	case replyStream:
		if reply.stream == nil {
			return fmt.Errorf("the %d reply: %w", reply.status, errNilStream)
		}
	}
	if reply.status != status {
		if err := check(abi.ImportResponseSetStatus, responseSetStatus(int32(reply.status))); err != nil {
			return fmt.Errorf("status %d: %w", reply.status, err)
		}
	}
	for _, h := range reply.defaults {
		if reply.overrides(h.name) {
			continue
		}
		if err := check(abi.ImportResponseSetHeader, responseSetHeader(h.name, h.value)); err != nil {
			return fmt.Errorf("header %q: %w", h.name, err)
		}
	}
	for _, h := range reply.headers {
		if err := check(abi.ImportResponseAddHeader, responseAddHeader(h.name, h.value)); err != nil {
			return fmt.Errorf("header %q: %w", h.name, err)
		}
	}
	if reply.kind == replyStream {
		return writeStream(reply, envelope)
	}
	if len(body) > 0 {
		if err := check(abi.ImportResponseWrite, responseWrite(body)); err != nil {
			return err
		}
	}
	return nil
}

// encodeJSON encodes a Respond body, without the trailing newline; the
// bytes are valid until the next call, and as long as the body.
func encodeJSON(v any) ([]byte, error) {
	replyBuf.Reset()
	if raw, ok := v.(json.RawMessage); ok {
		// Bytes that already are JSON (a value read from the key-value
		// store) are only checked and compacted, as encoding/json would,
		// with the compactor's tight loops: no decode and encode inside
		// wasm, and no copy at all when they are compact already. Those
		// with characters encoding/json escapes (<, >, &, U+2028,
		// U+2029) go to the encoder, broken ones too when they hold such
		// a character, as they always did.
		c := compactor{src: raw, out: replyBuf.AvailableBuffer()}
		out, err := c.compact()
		switch {
		case err == nil && !c.escapes && !c.copied:
			return out, nil
		case err == nil && !c.escapes:
			replyBuf.Write(out) // keep the buffer for the next reply
			return replyBuf.Bytes(), nil
		case err != nil && !bytes.ContainsAny(raw, "<>&\u2028\u2029"):
			return nil, fmt.Errorf("json: error calling MarshalJSON for type json.RawMessage: %w", err)
		}
	}
	// The usual bodies (structs of strings, numbers, booleans, pointers
	// and slices) take jsonenc's plans: the same bytes, without
	// encoding/json's reflection and allocations.
	if out, ok := jsonenc.Append(planBuf[:0], v); ok {
		planBuf = out
		return out, nil
	}
	if err := replyEnc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(replyBuf.Bytes(), []byte{'\n'}), nil
}

// Header returns the raw value of a request header, the values joined with
// ", " when it was sent several times, and whether it was sent. The name is
// case-insensitive. Outside a request it returns "", false.
//
//	// If-None-Match compares weakly: the host sends a compressed
//	// answer's ETag as W/"...", and the client sends that back.
//	if etag, ok := endpoints.Header("If-None-Match"); ok && strings.TrimPrefix(etag, "W/") == current {
//		return endpoints.Respond(304, nil)
//	}
//
// Declared header parameters (`header:"x-tenant"`) are better: they are
// validated, typed and documented. Header reads any header, undeclared
// ones included.
func Header(name string) (string, bool) {
	for range 3 {
		n := requestHeader(name, headerBuf)
		if n < 0 {
			if abi.Errno(n) != abi.ErrNotFound && abi.Errno(n) != abi.ErrState {
				hostLog(abi.LogWarn, "endpoints: "+check(abi.ImportRequestHeader, n).Error())
			}
			return "", false
		}
		if int(n) <= len(headerBuf) {
			return string(headerBuf[:n]), true
		}
		headerBuf = make([]byte, n)
	}
	return "", false
}
