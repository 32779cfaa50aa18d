package clientgen

import (
	"strings"
)

// The generated file's fixed code: the client, its errors, and the readers
// and writers of event streams and multipart bodies, each written only
// when an operation needs it. The tests compile it for the example app and
// for a model with every kind of body and answer.

// clientCode declares Client, New and the request sender.
func (g *goGen) clientCode() string {
	for _, imp := range []string{"context", "io", "net/http", "net/url", "strings"} {
		g.imports[imp] = true
	}
	title := g.m.Title
	if title == "" {
		title = "the app"
	}
	return strings.ReplaceAll(goClientSource, "TITLE", title)
}

const goClientSource = `
// Client calls the operations of TITLE. It is safe for concurrent use.
type Client struct {
	// BaseURL is where the app is served, such as "http://127.0.0.1:3000";
	// each operation's path is appended to it.
	BaseURL string
	// HTTPClient sends the requests. Defaults to http.DefaultClient.
	HTTPClient *http.Client
	// Header holds header fields sent with every request, such as
	// Authorization. An operation's own header fields replace them.
	Header http.Header
}

// New returns a Client for the app at baseURL.
//
//	c := New("http://127.0.0.1:3000")
//	c.Header = http.Header{"Authorization": {"Bearer " + token}}
func New(baseURL string) *Client {
	return &Client{BaseURL: baseURL, HTTPClient: http.DefaultClient}
}

// do sends one request.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, header http.Header, body io.Reader) (*http.Response, error) {
	u := strings.TrimSuffix(c.BaseURL, "/") + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, err
	}
	for k, vs := range c.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	hc := c.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	return hc.Do(req)
}
`

// runtimeCode declares the helpers the operations use.
func (g *goGen) runtimeCode() string {
	var b strings.Builder
	add := func(src string, imports ...string) {
		b.WriteString(src)
		for _, imp := range imports {
			g.imports[imp] = true
		}
	}
	add(goErrorsSource, "errors", "fmt", "io", "net/http")
	if g.uses["json"] {
		add(goDecodeJSONSource, "encoding/json", "fmt", "io", "net/http")
	}
	if g.uses["discard"] {
		add(goDiscardSource, "io", "net/http")
	}
	if g.uses["media"] {
		add(goMediaTypeSource, "net/http", "strings")
	}
	if g.uses["idempotency"] {
		add(goIdempotencySource, "crypto/rand", "fmt")
	}
	if g.uses["events"] {
		add(goEventsSource, "bufio", "bytes", "encoding/json", "fmt", "io", "iter", "strconv", "time")
	}
	if g.uses["union"] {
		add(goUnionSource, "bytes", "encoding/json", "errors", "fmt", "maps", "math", "slices", "strconv", "strings")
	}
	if g.uses["multipart"] {
		add(goMultipartSource, "bytes", "fmt", "io", "mime", "mime/multipart", "net/http", "net/textproto")
	}
	return b.String()
}

const goErrorsSource = `
// ErrUndeclaredStatus is the Err of a ResponseError for an answer whose
// status the operation does not declare.
var ErrUndeclaredStatus = errors.New("undeclared status")

// ErrUndeclaredMediaType is the Err of a ResponseError for an answer whose
// Content-Type its status does not declare.
var ErrUndeclaredMediaType = errors.New("undeclared media type")

// ResponseError is the error of an answer the client cannot read as the
// operation declares it: an undeclared status or media type, or a body
// that does not decode.
type ResponseError struct {
	// Operation is the method and path, such as "GET /api/users/:id".
	Operation string
	Status    int
	Header    http.Header
	// Body is the answer's body, its first 64 KiB when it is longer.
	Body []byte
	// Err says what is wrong: ErrUndeclaredStatus, ErrUndeclaredMediaType,
	// or the error decoding the body.
	Err error
}

// maxErrorBody is how much of a body a ResponseError keeps.
const maxErrorBody = 64 << 10

func (e *ResponseError) Error() string {
	body, more := e.Body, ""
	if len(body) > 512 {
		body, more = body[:512], "..."
	}
	return fmt.Sprintf("%s: status %d, Content-Type %q: %v: body %q%s",
		e.Operation, e.Status, e.Header.Get("Content-Type"), e.Err, body, more)
}

func (e *ResponseError) Unwrap() error { return e.Err }

// undeclared reads the start of an answer the operation does not declare,
// closes it and returns its error.
func undeclared(op string, res *http.Response, reason error) error {
	body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	res.Body.Close()
	return &ResponseError{Operation: op, Status: res.StatusCode, Header: res.Header, Body: body, Err: reason}
}
`

const goDecodeJSONSource = `
// decodeJSON reads a JSON answer into v and closes it.
func decodeJSON(op string, res *http.Response, v any) error {
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return fmt.Errorf("%s: reading the %d answer: %w", op, res.StatusCode, err)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return &ResponseError{Operation: op, Status: res.StatusCode, Header: res.Header, Body: body[:min(len(body), maxErrorBody)], Err: err}
	}
	return nil
}
`

const goDiscardSource = `
// discard reads an answer without a declared body to its end and closes
// it.
func discard(res *http.Response) error {
	_, err := io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return err
}
`

const goMediaTypeSource = `
// mediaType returns the media type of an answer's Content-Type: lower
// case, without parameters.
func mediaType(res *http.Response) string {
	mt, _, _ := strings.Cut(res.Header.Get("Content-Type"), ";")
	return strings.ToLower(strings.TrimSpace(mt))
}
`

const goIdempotencySource = `
// newIdempotencyKey returns a random UUID (version 4, RFC 9562 section
// 5.4) to send as an Idempotency-Key.
func newIdempotencyKey() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("making an Idempotency-Key: %w", err)
	}
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // variant 10
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}
`

const goEventsSource = `
// Event is one Server-Sent Event.
type Event[T any] struct {
	// Type is the event's type (its event field), "message" when it has
	// none.
	Type string
	// ID is the last event ID the stream set (its id fields), carried over
	// from earlier events.
	ID string
	// Retry is the reconnection time the stream asked for last, 0 when it
	// asked for none.
	Retry time.Duration
	// Data is the event's data, decoded from JSON (a string when the
	// operation declares no schema for it).
	Data T
}

// maxEventLine is the longest line of an event stream the client reads.
const maxEventLine = 16 << 20

// EventStream reads the Server-Sent Events of an answer as they arrive
// (HTML Living Standard, section 9.2.6). Close it when done; it is not
// safe for concurrent use.
type EventStream[T any] struct {
	body    io.ReadCloser
	lines   *bufio.Scanner
	decode  func([]byte, *T) error
	lastID  string
	retry   time.Duration
	started bool
}

func newEventStream[T any](body io.ReadCloser, decode func([]byte, *T) error) *EventStream[T] {
	lines := bufio.NewScanner(body)
	lines.Buffer(make([]byte, 0, 4096), maxEventLine)
	lines.Split(scanEventLine)
	return &EventStream[T]{body: body, lines: lines, decode: decode}
}

// Next returns the next event, or io.EOF after the last. An error
// decoding an event's data comes with the event, its Data unset; the
// stream can go on.
func (s *EventStream[T]) Next() (Event[T], error) {
	var (
		typ     string
		data    []byte
		hasData bool
	)
	for s.lines.Scan() {
		line := s.lines.Bytes()
		if !s.started {
			s.started = true
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		if len(line) == 0 {
			if !hasData {
				typ = ""
				continue
			}
			ev := Event[T]{Type: typ, ID: s.lastID, Retry: s.retry}
			if ev.Type == "" {
				ev.Type = "message"
			}
			if err := s.decode(data, &ev.Data); err != nil {
				return ev, fmt.Errorf("event %q: data %q: %w", ev.Type, data, err)
			}
			return ev, nil
		}
		if line[0] == ':' {
			continue // a comment
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			typ = string(value)
		case "data":
			if hasData {
				data = append(data, '\n')
			}
			data, hasData = append(data, value...), true
		case "id":
			if !bytes.ContainsRune(value, 0) {
				s.lastID = string(value)
			}
		case "retry":
			if ms, err := strconv.ParseUint(string(value), 10, 31); err == nil {
				s.retry = time.Duration(ms) * time.Millisecond
			}
		}
	}
	if err := s.lines.Err(); err != nil {
		return Event[T]{}, err
	}
	return Event[T]{}, io.EOF // an event not ended by a blank line is dropped
}

// All iterates over the events to the end of the stream. It stops after
// yielding an error.
func (s *EventStream[T]) All() iter.Seq2[Event[T], error] {
	return func(yield func(Event[T], error) bool) {
		for {
			ev, err := s.Next()
			if err == io.EOF || !yield(ev, err) || err != nil {
				return
			}
		}
	}
}

// Close closes the stream.
func (s *EventStream[T]) Close() error { return s.body.Close() }

// scanEventLine splits an event stream into lines ended by CRLF, LF or CR.
func scanEventLine(data []byte, atEOF bool) (advance int, token []byte, err error) {
	for i, c := range data {
		switch c {
		case '\n':
			return i + 1, data[:i], nil
		case '\r':
			switch {
			case i+1 < len(data) && data[i+1] == '\n':
				return i + 2, data[:i], nil
			case i+1 < len(data) || atEOF:
				return i + 1, data[:i], nil
			}
			return 0, nil, nil // a LF may follow
		}
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// decodeEventJSON decodes an event's data as JSON.
func decodeEventJSON[T any](data []byte, v *T) error { return json.Unmarshal(data, v) }

// decodeEventText keeps an event's data as it came.
func decodeEventText(data []byte, v *string) error {
	*v = string(data)
	return nil
}
`

const goMultipartSource = `
// File is a file sent as a part of a multipart/form-data body.
type File struct {
	// Name is the file name sent with it. Defaults to the field's name.
	Name string
	// ContentType is the part's media type. Defaults to the type
	// http.DetectContentType finds in its first 512 bytes.
	ContentType string
	// Content is read to its end when the request is made.
	Content io.Reader
}

// multipartBody builds a multipart/form-data body in memory, keeping the
// first error.
type multipartBody struct {
	buf bytes.Buffer
	w   *multipart.Writer
	err error
}

func newMultipartBody() *multipartBody {
	m := &multipartBody{}
	m.w = multipart.NewWriter(&m.buf)
	return m
}

// field adds a text field.
func (m *multipartBody) field(name, value string) {
	if m.err == nil {
		m.err = m.w.WriteField(name, value)
	}
}

// file adds a file part.
func (m *multipartBody) file(name string, f File) {
	if m.err != nil {
		return
	}
	if f.Content == nil {
		m.err = fmt.Errorf("the file of field %s has no Content", name)
		return
	}
	head := make([]byte, 512)
	n, err := io.ReadFull(f.Content, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		m.err = fmt.Errorf("reading the file of field %s: %w", name, err)
		return
	}
	head = head[:n]
	if f.ContentType == "" {
		f.ContentType = http.DetectContentType(head)
	}
	if f.Name == "" {
		f.Name = name
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", mime.FormatMediaType("form-data", map[string]string{"name": name, "filename": f.Name}))
	h.Set("Content-Type", f.ContentType)
	part, err := m.w.CreatePart(h)
	if err == nil {
		_, err = part.Write(head)
	}
	if err == nil {
		_, err = io.Copy(part, f.Content)
	}
	if err != nil {
		m.err = fmt.Errorf("the file of field %s: %w", name, err)
	}
}

// finish returns the body and its Content-Type.
func (m *multipartBody) finish() (io.Reader, string, error) {
	if m.err == nil {
		m.err = m.w.Close()
	}
	return &m.buf, m.w.FormDataContentType(), m.err
}
`

const goUnionSource = `
// ErrNotVariant is wrapped by the error of a union's As method when the
// JSON is not that variant: of another JSON type, without a property the
// variant requires, with a property it does not declare (a closed
// schema), or with a value its const or enum does not allow.
var ErrNotVariant = errors.New("not this variant")

// variantShape is what a union's As method checks of the JSON before it
// decodes it.
type variantShape struct {
	kinds    []string            // the JSON types the variant allows; none: any
	required []string            // the properties it requires
	closed   []string            // its properties, when it allows no other; nil: open
	values   map[string][]string // a property's allowed values (compact JSON)
}

// matchVariant returns why raw, the JSON of where, is not the variant
// name of shape s, as an error wrapping ErrNotVariant; nil when nothing
// says so.
func matchVariant(raw json.RawMessage, where, name string, s variantShape) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s: the JSON is not %s: %s: %w", where, name, fmt.Sprintf(format, args...), ErrNotVariant)
	}
	kind := jsonKind(raw)
	if len(s.kinds) > 0 && !slices.Contains(s.kinds, kind) && !(kind == "integer" && slices.Contains(s.kinds, "number")) {
		return fail("it is a JSON %s, where %s is a JSON %s", kind, name, strings.Join(s.kinds, " or "))
	}
	if kind != "object" {
		return nil
	}
	var props map[string]json.RawMessage
	if err := json.Unmarshal(raw, &props); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	for _, p := range s.required {
		if _, ok := props[p]; !ok {
			return fail("it lacks the required property %q", p)
		}
	}
	if s.closed != nil {
		for _, p := range slices.Sorted(maps.Keys(props)) {
			if !slices.Contains(s.closed, p) {
				return fail("it has the property %q, which %s does not declare", p, name)
			}
		}
	}
	for _, p := range slices.Sorted(maps.Keys(s.values)) {
		v, ok := props[p]
		if !ok {
			continue
		}
		var got any
		if json.Unmarshal(v, &got) != nil {
			continue
		}
		if !slices.ContainsFunc(s.values[p], func(allowed string) bool { return sameScalar(allowed, got) }) {
			var b bytes.Buffer
			json.Compact(&b, v)
			return fail("its property %q is %s, where %s allows %s", p, b.String(), name, strings.Join(s.values[p], ", "))
		}
	}
	return nil
}

// sameScalar reports whether the JSON scalar allowed (a const or enum
// value) is the value got: compared as values, not as text, for JSON has
// more than one text for a value ("\u00e9" and "é", 1 and 1.0).
func sameScalar(allowed string, got any) bool {
	var want any
	if json.Unmarshal([]byte(allowed), &want) != nil {
		return false
	}
	switch want.(type) {
	case nil, bool, float64, string:
		return want == got // got of another type (an object) is not equal
	}
	return false
}

// jsonKind names the JSON type of raw as JSON Schema does: null, boolean,
// string, array, object, integer (a number without a fraction) or number.
func jsonKind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "null"
	}
	switch raw[0] {
	case 'n':
		return "null"
	case 't', 'f':
		return "boolean"
	case '"':
		return "string"
	case '[':
		return "array"
	case '{':
		return "object"
	}
	if f, err := strconv.ParseFloat(string(raw), 64); err == nil && f == math.Trunc(f) {
		return "integer"
	}
	return "number"
}
`
