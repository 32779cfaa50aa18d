// Package requestbody reads a request's body as its operation declares it
// (docs/spec.md §4 steps 5 and 6): the declared media types compiled once
// ([Compile]), the one a request's Content-Type picks ([Body.Choose]; none
// is a 415), the body read within its limit and decoded for validation
// (JSON, forms, multipart uploads: [Body.Take]), or streamed to the guest
// as it asks (body_read, file_read), and what is left of it discarded
// before a refusal ([Body.Discard]).
//
// A [Body] belongs to one request, on the goroutine that serves it; the
// host keeps one per pooled call and [Body.Release]s it between requests.
// What the host answers when a body cannot be taken is the host's: [Body.Take]
// says why in an [Outcome].
package requestbody

import (
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/formdata"
	"github.com/wasmendpoints/endpoints/internal/jsonvalue"
	"github.com/wasmendpoints/endpoints/internal/validation"
)

// Decl is an operation's request body as its contract declares it,
// compiled: its media types (or the one JSON type of "schema"), whether a
// request must carry one, and its own size limit. A nil *Decl declares no
// body. It is read-only once compiled.
type Decl struct {
	bodyRequired bool
	// bodyLimit replaces the app's body limit when positive (maxBytes).
	bodyLimit int64
	// bodyTypes are the declared request media types; bodySupported their
	// names as declared, for 415.
	bodyTypes     []*bodyType
	bodySupported []string
}

// Compile compiles the request body declaration b of an operation of the
// module file, whose contract comp holds it under the JSON pointer base:
// each declared type's schema and multipart encodings. Its errors name
// the file, the pointer and what is wrong.
func Compile(comp *validation.Contract, file string, b *abi.Body, base string) (*Decl, error) {
	d := &Decl{}
	if err := d.compileBody(comp, file, b, base); err != nil {
		return nil, err
	}
	return d, nil
}

// Supported is the media types the operation declares, as the contract
// writes them: what a 415 lists.
func (op *Decl) Supported() []string { return op.bodySupported }

// Limit is the largest body the operation takes: its own maxBytes when
// it declares one, else def (limits.bodyBytes). It is def for a nil Decl.
func (op *Decl) Limit(def int64) int64 {
	if op != nil && op.bodyLimit > 0 {
		return op.bodyLimit
	}
	return def
}

// Body is one request's body, as the host took it: read whole for
// validation (its decoded value, the bytes as received, a multipart body's
// files) or left to stream to the guest within its limit, and how much of
// it was read. The zero Body has no body; a Body is reset by Release.
type Body struct {
	body     any // validated JSON body, or a form's object
	bodyRaw  []byte
	bodyJSON bool // bodyRaw is the body as received and can be handed over as is
	bodyPos  int
	bodySrc  *bodyLimit // plain routes and raw bodies: the request body, read as the guest asks
	// bodyTouched: reading the body began (so a client that asked for
	// 100-continue was told to send it); bodyRead: it was read whole, or
	// discarded.
	bodyTouched, bodyRead bool
	// bodyPresent: the request carried a body of a declared type.
	bodyPresent bool
	contentType string              // the body's media type, lower case, for the envelope
	multipart   *formdata.Multipart // a multipart body's files, for file_read
	// bodyType is the declared type Choose picked; nil before, and for a
	// body the operation does not declare.
	bodyType *bodyType
}

// Value is the body decoded and validated (a JSON value, a form's or a
// multipart body's object), with its defaults; nil when there is none.
func (c *Body) Value() any { return c.body }

// Raw is the body as read whole for validation or its fingerprint; nil
// when it was not read whole. While the guest reads it (body_read), it
// reads these bytes.
func (c *Body) Raw() []byte { return c.bodyRaw }

// RawIsValue reports whether Raw is the JSON of Value as it stands:
// canonical as received (2, not 2.0) and no default added, so it can be
// handed over as is.
func (c *Body) RawIsValue() bool { return c.bodyJSON }

// ContentType is the media type of a declared body, lower case without
// parameters; "" before Choose, and for a body not declared.
func (c *Body) ContentType() string { return c.contentType }

// Multipart is a multipart body's fields and files; nil for any other.
func (c *Body) Multipart() *formdata.Multipart { return c.multipart }

// Stream leaves the request body to the guest (a plain route's), to read
// as it asks, at most limit bytes.
func (c *Body) Stream(body io.Reader, limit int64) {
	c.bodySrc = &bodyLimit{r: body, left: limit}
}

// Streams reports whether the body is left to the guest to read: a plain
// route's, or one of a raw type.
func (c *Body) Streams() bool { return c.bodySrc != nil }

// OverLimit reports whether reading a streamed body went past its limit.
func (c *Body) OverLimit() bool { return c.bodySrc != nil && c.bodySrc.hit }

// Drain reads what the guest left of a streamed body and throws it away:
// ErrTooLarge past the limit (then Discard reads the rest), nil at its end.
func (c *Body) Drain() error {
	if c.bodySrc == nil {
		return nil
	}
	_, err := io.Copy(io.Discard, c.bodySrc)
	return err
}

// Release ends the request's use of the body: an upload's files are
// removed (the error says why one could not be), and the Body is empty
// for the next request.
func (c *Body) Release() error {
	var err error
	if c.multipart != nil {
		err = c.multipart.Close()
	}
	*c = Body{}
	return err
}

// Choose is step 5: it picks the type of d a request's Content-Type
// matches, the most specific first, and reports whether one did (none is a
// 415 listing d.Supported()). It keeps the request's media type, lower
// case without parameters, for the envelope (ContentType).
func (c *Body) Choose(d *Decl, contentType string) bool {
	bt, mt := d.bodyTypeFor(contentType)
	if bt == nil {
		return false
	}
	c.bodyType, c.contentType = bt, mt
	return true
}

// Has reports whether the request carries a body.
func Has(r *http.Request) bool { return hasBody(r) }

// Outcome is what taking a body ended in, besides its validation issues:
// Read, or why the host must answer at once.
type Outcome = bodyOutcome

// The outcomes of [Body.Take], each with the answer the host gives (the
// names the moved code of requestbody.go knows them by are the unexported
// ones).
const (
	Read     = bodyRead     // read (or left to stream), maybe with issues
	TooLarge = bodyTooLarge // over the limit: 413
	TimedOut = bodyTimedOut // not all there by server.readTimeout: 408
	Failed   = bodyFailed   // the client's body could not be read: 400
	Unstored = bodyUnstored // the host could not keep an uploaded file: 500
)

// ErrTooLarge is the error of a body read past its limit: the guest's
// (body_read), or what Drain reads.
var ErrTooLarge = errBodyTooLarge

// Options is what taking a body needs besides the request and its
// declaration.
type Options struct {
	// Limit is the largest body taken, in bytes: Decl.Limit of
	// limits.bodyBytes.
	Limit int64
	// JSON bounds the decoding of a JSON body, and of a multipart field
	// sent as one JSON part (limits.jsonDepth, limits.jsonValues).
	JSON jsonvalue.Limits
	// Idempotent: the operation has an Idempotency-Key, so a body streamed
	// otherwise is read whole, to be fingerprinted.
	Idempotent bool
	// Logger logs an upload that could not be read or kept, naming Route
	// (the module file; in a bundle, with the route).
	Logger *slog.Logger
	Route  string
}

// Take is step 6 for a request whose Content-Type step 5 chose (Choose):
// the body's size against o.Limit, then its parsing, whose issues it sets
// in *issues for step 7 to report with the other parts'. A body d does not
// declare is left to stream to the guest (read whole when o.Idempotent); a
// body d requires and the request lacks is an issue. Any outcome but Read
// is for the host to answer.
func (c *Body) Take(r *http.Request, d *Decl, o Options, issues *[]validation.Issue) Outcome {
	switch {
	case c.bodyType != nil:
		if outcome := c.readDeclaredBody(r, c.bodyType, o, issues); outcome != Read {
			return outcome
		}
	case d == nil && hasBody(r) && o.Idempotent:
		// No body schema: an idempotent request counts by its raw bytes.
		raw, outcome := c.readWhole(r, o.Limit)
		if outcome != Read {
			return outcome
		}
		c.bodyRaw = raw
	case d == nil && hasBody(r):
		if r.ContentLength > o.Limit {
			return TooLarge
		}
		c.bodySrc = &bodyLimit{r: r.Body, left: o.Limit}
	}
	if d != nil && !c.bodyPresent && *issues == nil && d.bodyRequired {
		*issues = []validation.Issue{{Path: []any{}, Message: "a request body is required (" + strings.Join(d.bodySupported, ", ") + ")"}}
	}
	return Read
}
