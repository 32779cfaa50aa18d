package host

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/formdata"
	"github.com/wasmendpoints/endpoints/internal/jsonvalue"
	"github.com/wasmendpoints/endpoints/internal/mediatype"
	"github.com/wasmendpoints/endpoints/internal/validation"
	"github.com/wasmendpoints/endpoints/openapi"
)

// bodyKind says how the host reads a request body of one declared type.
type bodyKind uint8

const (
	bodyJSON      bodyKind = iota // parsed and validated
	bodyForm                      // application/x-www-form-urlencoded: decoded, coerced, validated
	bodyMultipart                 // multipart/form-data: fields validated, files listed
	bodyRaw                       // anything else: streamed to the guest as is
)

// bodyType is one entry of a contract's request body "content" (or the
// single JSON type of "schema").
type bodyType struct {
	declared string // as the contract writes it
	typ, sub string // lower case; "*" in a range
	kind     bodyKind
	schema   *validation.Schema // nil when none is declared, and for raw types
	defaults bool               // applying defaults may change the value
	// encoding maps a multipart field to the media types its parts may
	// have.
	encoding map[string][]string
}

// specificity ranks a declared type for a request type: 3 exact, 2 type/*,
// 1 */*, 0 no match.
func (bt *bodyType) specificity(typ, sub string) int {
	switch {
	case bt.typ == typ && bt.sub == sub:
		return 3
	case bt.typ == typ && bt.sub == "*":
		return 2
	case bt.typ == "*":
		return 1
	}
	return 0
}

// compileBody compiles the request body declaration of an operation of
// the module file.
func (op *operation) compileBody(comp *validation.Contract, file string, b *abi.Body, base string) error {
	op.body, op.bodyRequired, op.bodyLimit = b, b.IsRequired(), b.MaxBytes
	if b.Schema != nil {
		s, err := comp.Compile(base + "/request/body/schema")
		if err != nil {
			return err
		}
		op.bodyTypes = []*bodyType{{declared: "application/json", typ: "application", sub: "json", kind: bodyJSON, schema: s, defaults: s.HasDefaults()}}
		op.bodySupported = []string{"application/json"}
		return nil
	}
	for _, declared := range slices.Sorted(maps.Keys(b.Content)) {
		mt, _, err := mime.ParseMediaType(declared)
		if err != nil {
			return fmt.Errorf("%s: contract: %s/request/body/content/%s: %q is not a media type: %v", file, base, openapi.EscapeToken(declared), declared, err)
		}
		typ, sub, _ := strings.Cut(mt, "/")
		bt := &bodyType{declared: declared, typ: typ, sub: sub}
		switch {
		case mediatype.IsJSON(mt):
			bt.kind = bodyJSON
		case mt == "application/x-www-form-urlencoded":
			bt.kind = bodyForm
		case mt == "multipart/form-data":
			bt.kind = bodyMultipart
		default:
			bt.kind = bodyRaw
		}
		m := b.Content[declared]
		if bt.kind != bodyRaw && m != nil && m.Schema != nil {
			if bt.schema, err = comp.Compile(base + "/request/body/content/" + openapi.EscapeToken(declared) + "/schema"); err != nil {
				return err
			}
			bt.defaults = bt.schema.HasDefaults()
		}
		if m != nil && len(m.Encoding) > 0 {
			bt.encoding = map[string][]string{}
			for field, e := range m.Encoding {
				if e == nil || e.ContentType == "" {
					continue
				}
				for _, t := range strings.Split(e.ContentType, ",") {
					canon, _, err := mediatype.Parse(strings.TrimSpace(t))
					if err != nil {
						return fmt.Errorf("%s: contract: %s/request/body/content/%s/encoding/%s/contentType: %q: %v", file, base, openapi.EscapeToken(declared), openapi.EscapeToken(field), t, err)
					}
					bt.encoding[field] = append(bt.encoding[field], canon)
				}
			}
		}
		op.bodyTypes = append(op.bodyTypes, bt)
		op.bodySupported = append(op.bodySupported, declared)
	}
	return nil
}

// bodyTypeFor picks the declared type a request's Content-Type matches,
// the most specific first; it also returns the request's media type in
// lower case without parameters. A JSON type only matches a body in UTF-8.
func (op *operation) bodyTypeFor(contentType string) (*bodyType, string) {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return nil, ""
	}
	typ, sub, _ := strings.Cut(mt, "/")
	var best *bodyType
	rank := 0
	for _, bt := range op.bodyTypes {
		if r := bt.specificity(typ, sub); r > rank {
			best, rank = bt, r
		}
	}
	if best != nil && best.kind == bodyJSON {
		if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
			return nil, mt
		}
	}
	return best, mt
}

// bodyOutcome is what reading a declared body ended in, besides issues.
type bodyOutcome uint8

const (
	bodyRead     bodyOutcome = iota // read (or streamed), maybe with issues
	bodyTooLarge                    // over the limit: 413
	bodyTimedOut                    // not all there by server.readTimeout: 408
	bodyFailed                      // the client's body could not be read: 400
	bodyUnstored                    // the host could not keep an uploaded file: 500
)

// readDeclaredBody reads, decodes and validates a request body of type bt
// into c, adding any problems to issues.
func (h requestSide) readDeclaredBody(w http.ResponseWriter, r *http.Request, c *call, bt *bodyType, limit int64, issues *ValidationData) bodyOutcome {
	if bt.kind == bodyRaw && c.op.contract.Idempotency == nil {
		c.bodySrc = &bodyLimit{r: r.Body, left: limit}
		c.bodyPresent = true
		return bodyRead
	}
	if bt.kind == bodyMultipart {
		return h.readMultipart(w, r, c, bt, limit, issues)
	}
	raw, outcome := c.readWhole(r, limit)
	if outcome != bodyRead {
		return outcome
	}
	if len(raw) == 0 {
		return bodyRead
	}
	c.bodyRaw, c.bodyPresent = raw, true
	if bt.kind == bodyRaw {
		// An idempotent operation: read whole, to be fingerprinted.
		return bodyRead
	}
	if bt.kind == bodyForm {
		form, err := formdata.ParseForm(raw)
		if err != nil {
			issues.Body = []validation.Issue{{Path: []any{}, Message: err.Error()}}
			return bodyRead
		}
		obj := make(map[string]any, len(form))
		for k, vs := range form {
			if b := notUTF8Values(k, vs); b != nil {
				issues.Body = append(issues.Body, *b)
				continue
			}
			obj[k] = bt.schema.CoerceStrings(k, vs)
		}
		if issues.Body == nil {
			issues.Body = c.takeObject(bt, obj)
		}
		return bodyRead
	}
	v, canonical, err := jsonvalue.Decode(raw, jsonvalue.Limits{MaxDepth: c.set.opts.Limits.JSONDepth, MaxValues: c.set.opts.Limits.JSONValues})
	if err != nil {
		issues.Body = []validation.Issue{jsonIssue(err)}
		return bodyRead
	}
	// The guest gets what was validated: the bytes as received only when
	// they are canonical already (2, not 2.0) and no default was added.
	c.body, c.bodyJSON = v, canonical
	if bt.defaults && bt.schema.ApplyDefaults(v) {
		c.bodyJSON = false
	}
	if bt.schema != nil {
		issues.Body = bt.schema.Validate(v)
	}
	return bodyRead
}

// jsonIssue is the validation issue of a JSON body that did not decode.
func jsonIssue(err error) validation.Issue {
	var je *jsonvalue.Error
	if errors.As(err, &je) {
		return validation.Issue{Path: je.Path, Message: je.Message}
	}
	return validation.Issue{Path: []any{}, Message: err.Error()}
}

// takeObject keeps a decoded form as the request body, with defaults, and
// returns its issues.
func (c *requestPart) takeObject(bt *bodyType, obj map[string]any) []validation.Issue {
	c.body = obj
	if bt.schema == nil {
		return nil
	}
	bt.schema.ApplyDefaults(obj)
	return bt.schema.Validate(obj)
}

// readMultipart decodes a multipart/form-data body: fields and file names
// are validated as one object, files are kept for file_read.
func (h requestSide) readMultipart(w http.ResponseWriter, r *http.Request, c *call, bt *bodyType, limit int64, issues *ValidationData) bodyOutcome {
	if r.ContentLength > limit {
		return bodyTooLarge
	}
	boundary, err := formdata.Boundary(r.Header.Get("Content-Type"))
	if err != nil {
		issues.Body = []validation.Issue{{Path: []any{}, Message: err.Error()}}
		return bodyRead
	}
	c.bodyTouched = true // the Content-Length was within the limit
	m, err := formdata.ReadMultipart(&bodyLimit{r: r.Body, left: limit}, boundary, formdata.DefaultLimits)
	var fe *formdata.Error
	switch {
	case errors.Is(err, errBodyTooLarge):
		return bodyTooLarge
	case errors.As(err, &fe):
		c.bodyRead = true
		issues.Body = []validation.Issue{{Path: []any{}, Message: fe.Error()}}
		return bodyRead
	case errors.Is(err, formdata.ErrStorage):
		c.bodyRead = true
		h.logger.Error("keeping an uploaded file failed; check the temporary directory", "route", c.route.file, "error", err)
		return bodyUnstored
	case err != nil:
		c.bodyRead = true
		h.logger.Debug("reading a multipart request body failed", "route", c.route.file, "error", err)
		return readFailure(err)
	}
	c.bodyRead = true
	c.multipart, c.bodyPresent = m, true
	values := url.Values{}
	var typeIssues []validation.Issue
	check := func(name, ct string, index int) {
		allowed, ok := bt.encoding[name]
		if !ok || slices.ContainsFunc(allowed, func(a string) bool { return mediaMatches(a, ct) }) {
			return
		}
		typeIssues = append(typeIssues, validation.Issue{Path: []any{name}, Message: fmt.Sprintf("part %d of field %q is %s; want %s", index+1, name, ct, strings.Join(allowed, " or "))})
	}
	counts := map[string]int{}
	fieldTypes := map[string]string{}
	for _, f := range m.Fields {
		check(f.Name, f.ContentType, counts[f.Name])
		counts[f.Name]++
		values[f.Name] = append(values[f.Name], f.Value)
		fieldTypes[f.Name] = f.ContentType
	}
	for _, f := range m.Files {
		check(f.Name, f.ContentType, counts[f.Name])
		counts[f.Name]++
		values[f.Name] = append(values[f.Name], f.Filename)
	}
	obj := make(map[string]any, len(values))
	var bad []validation.Issue
	for k, vs := range values {
		if b := notUTF8Values(k, vs); b != nil {
			bad = append(bad, *b)
			continue
		}
		if ct, field := fieldTypes[k]; field && counts[k] == 1 && bt.schema.JSONPart(k, mediatype.IsJSON(ct) || ct == "text/plain") {
			// An object or array field sent as one JSON part (OpenAPI's
			// default encoding for an object property).
			v, _, err := jsonvalue.Decode([]byte(vs[0]), jsonvalue.Limits{MaxDepth: c.set.opts.Limits.JSONDepth, MaxValues: c.set.opts.Limits.JSONValues})
			if err != nil {
				is := jsonIssue(err)
				is.Path = append([]any{k}, is.Path...)
				is.Message = "part " + strconv.Quote(k) + " is not JSON: " + is.Message
				bad = append(bad, is)
				continue
			}
			obj[k] = v
			continue
		}
		obj[k] = bt.schema.CoerceStrings(k, vs)
	}
	if bad != nil {
		issues.Body = append(bad, typeIssues...)
		return bodyRead
	}
	issues.Body = append(c.takeObject(bt, obj), typeIssues...)
	return bodyRead
}

// mediaMatches reports whether media type ct (lower case, no parameters)
// is in the range or type allowed (canonical, as mediatype.Parse gives).
func mediaMatches(allowed, ct string) bool {
	if allowed == "*/*" {
		return true
	}
	a, _, _ := strings.Cut(allowed, ";")
	if typ, ok := strings.CutSuffix(a, "/*"); ok {
		return strings.HasPrefix(ct, typ+"/")
	}
	return a == ct
}

// readFile serves file_read: the next bytes of one uploaded file.
func (c *call) readFile(index int32, dst []byte) (int, abi.Errno) {
	if c.multipart == nil || index < 0 || int(index) >= len(c.multipart.Files) {
		return 0, abi.ErrNotFound
	}
	n, err := io.ReadFull(c.multipart.Files[index], dst)
	switch {
	case err == nil, errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return n, 0
	default:
		c.logger.Error("reading an uploaded file failed", "route", c.route.file, "error", err)
		return 0, abi.ErrIO
	}
}

// stepContentType is step 5: the media type of a body against those the
// operation declares (415).
func stepContentType(h requestSide, w http.ResponseWriter, r *http.Request, c *call) bool {
	op := c.op
	if op.body == nil || !hasBody(r) {
		return true
	}
	ct := r.Header.Get("Content-Type")
	bt, mt := op.bodyTypeFor(ct)
	if bt == nil {
		h.refuse(w, r, c, c.table, &abi.ValidationFailure{Kind: abi.FailureMediaType, Status: http.StatusUnsupportedMediaType, Part: abi.PartBody.String(), Received: ct, SupportedMediaTypes: op.bodySupported})
		return false
	}
	c.bodyType, c.contentType = bt, mt
	return true
}

// stepBody is step 6: the body's size (413), then its parsing, whose
// issues step 7 reports with the other parts'.
func stepBody(h requestSide, w http.ResponseWriter, r *http.Request, c *call) bool {
	op := c.op
	limit := c.set.limits.BodyBytes
	if op.bodyLimit > 0 {
		limit = op.bodyLimit
	}
	switch {
	case c.bodyType != nil:
		if h.answerBody(w, r, c, h.readDeclaredBody(w, r, c, c.bodyType, limit, &c.issues), limit) {
			return false
		}
	case op.body == nil && hasBody(r) && op.contract.Idempotency != nil:
		// No body schema: an idempotent request counts by its raw bytes.
		raw, outcome := c.readWhole(r, limit)
		if h.answerBody(w, r, c, outcome, limit) {
			return false
		}
		c.bodyRaw = raw
	case op.body == nil && hasBody(r):
		if r.ContentLength > limit {
			h.answerBody(w, r, c, bodyTooLarge, limit)
			return false
		}
		c.bodySrc = &bodyLimit{r: r.Body, left: limit}
	}
	if op.body != nil && !c.bodyPresent && c.issues.Body == nil && op.bodyRequired {
		c.issues.Body = []validation.Issue{{Path: []any{}, Message: "a request body is required (" + strings.Join(op.bodySupported, ", ") + ")"}}
	}
	return true
}

// hasBody reports whether the request carries a body.
func hasBody(r *http.Request) bool {
	return r.ContentLength > 0 || (r.ContentLength < 0 && r.Body != nil && r.Body != http.NoBody)
}

// readWhole reads the whole request body up to limit. It records that
// reading began (bodyTouched) and, unless the limit stopped it, that the
// body is done with (bodyRead).
func (c *requestPart) readWhole(r *http.Request, limit int64) ([]byte, bodyOutcome) {
	if r.ContentLength > limit {
		return nil, bodyTooLarge
	}
	var buf bytes.Buffer
	if r.ContentLength > 0 {
		buf.Grow(int(r.ContentLength))
	}
	c.bodyTouched = true
	n, err := buf.ReadFrom(io.LimitReader(r.Body, limit+1))
	switch {
	case err != nil:
		c.bodyRead = true
		return nil, readFailure(err)
	case n > limit:
		return nil, bodyTooLarge
	}
	c.bodyRead = true
	return buf.Bytes(), bodyRead
}

// readFailure tells a client too slow to send its body (the read deadline
// of server.readTimeout passed) from one whose body broke off.
func readFailure(err error) bodyOutcome {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return bodyTimedOut
	}
	return bodyFailed
}

// answerBody answers a request whose body the host could not take and
// reports whether it did: 413 over the limit, 408 too slow, 400 broken off,
// 500 when an upload could not be stored.
func (h requestSide) answerBody(w http.ResponseWriter, r *http.Request, c *call, outcome bodyOutcome, limit int64) bool {
	if outcome != bodyRead {
		c.writeDeadline(w)
	}
	switch outcome {
	case bodyTooLarge:
		h.discardBody(w, r, c)
		writeError(w, r, http.StatusRequestEntityTooLarge, "", map[string]int64{"limit": limit})
	case bodyTimedOut:
		w.Header().Set("Connection", "close")
		writeError(w, r, http.StatusRequestTimeout, "", map[string]string{"error": fmt.Sprintf("the request body did not arrive within %s (server.readTimeout)", time.Duration(c.set.server.ReadTimeout))})
	case bodyFailed:
		writeError(w, r, http.StatusBadRequest, "", map[string]string{"error": "the request body could not be read"})
	case bodyUnstored:
		writeError(w, r, http.StatusInternalServerError, "", nil)
	default:
		return false
	}
	return true
}

// errBodyTooLarge is the error of a bodyLimit read past its limit.
var errBodyTooLarge = errors.New("the request body is larger than the limit")

// bodyLimit reads a request body up to left bytes, then fails with
// errBodyTooLarge. Unlike http.MaxBytesReader it does not make the server
// close the connection at once, so the host can discard the rest and the
// client can read the 413.
type bodyLimit struct {
	r    io.Reader
	left int64
	hit  bool
}

func (b *bodyLimit) Read(p []byte) (int, error) {
	if b.hit {
		return 0, errBodyTooLarge
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1] // one byte more tells a body at the limit from a longer one
	}
	n, err := b.r.Read(p)
	if int64(n) > b.left {
		n, b.left, b.hit = int(b.left), 0, true
		return n, errBodyTooLarge
	}
	b.left -= int64(n)
	return n, err
}

// maxDiscardBytes bounds how much of a refused request body the host reads
// and throws away before answering.
const maxDiscardBytes = 16 << 20

// discardBody reads what is left of a request body the host refuses, so a
// client that sends its whole body before it reads the answer (most do,
// without Expect: 100-continue) gets the answer instead of a connection
// reset: closing a connection with unread bytes resets it. It reads at most
// maxDiscardBytes, within server.readTimeout; past that the connection is
// closed after the answer. A client that asked for 100-continue and was
// not told to send has sent nothing, and nothing is read.
func (h requestSide) discardBody(w http.ResponseWriter, r *http.Request, c *call) {
	if !hasBody(r) || c.bodyRead {
		return
	}
	c.bodyRead = true
	if r.ContentLength > maxDiscardBytes {
		w.Header().Set("Connection", "close")
		return
	}
	if !c.bodyTouched && strings.EqualFold(r.Header.Get("Expect"), "100-continue") {
		return
	}
	setReadDeadline(w, time.Now().Add(min(time.Duration(c.set.server.ReadTimeout), 5*time.Second)))
	n, err := io.Copy(io.Discard, io.LimitReader(r.Body, maxDiscardBytes))
	if err != nil || n == maxDiscardBytes {
		w.Header().Set("Connection", "close")
	}
}

// readBody serves body_read: from the bytes already read for validation,
// or from the request as the guest asks.
func (c *requestPart) readBody(dst []byte) (int, abi.Errno) {
	if c.bodyRaw != nil {
		n := copy(dst, c.bodyRaw[c.bodyPos:])
		c.bodyPos += n
		return n, 0
	}
	if c.bodySrc == nil || len(dst) == 0 {
		return 0, 0
	}
	c.bodyTouched = true
	n, err := io.ReadFull(c.bodySrc, dst)
	switch {
	case err == nil, errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return n, 0
	case errors.Is(err, errBodyTooLarge):
		return 0, abi.ErrBodyTooLarge
	default:
		return 0, abi.ErrIO
	}
}
