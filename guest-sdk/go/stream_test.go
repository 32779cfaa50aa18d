//go:build !wasip1

package endpoints

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
)

// accessorCase is a request for an accessor of the envelope (MediaType,
// ContentType): what it answers, and whether filling the input already
// found it.
type accessorCase struct {
	name        string
	fields      bool // the input has fields: fill scans the envelope
	envelope    string
	want        string
	wantScanned bool // known before the accessor is called
}

// testAccessor runs the cases of one envelope accessor through a handler.
func testAccessor(t *testing.T, name string, get func() string, cases []accessorCase) {
	type withQuery struct {
		Size int `query:"size"`
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fresh(t)
			var got string
			var scanned bool
			answer := func() Reply {
				scanned = request.scanned
				got = get()
				return Respond(204, nil)
			}
			if tc.fields {
				Handle(Operation{}, func(*withQuery) Reply { return answer() })
			} else {
				Handle(Operation{}, func(*struct{}) Reply { return answer() })
			}
			if resp := serveFake(fakeRequest{envelope: tc.envelope}); resp.code != 0 {
				t.Fatalf("handle() = %d, want 0; logs %v", resp.code, resp.logs)
			}
			if got != tc.want {
				t.Errorf("%s() = %q, want %q", name, got, tc.want)
			}
			if scanned != tc.wantScanned {
				t.Errorf("known before the call = %v, want %v", scanned, tc.wantScanned)
			}
			if after := get(); after != "" {
				t.Errorf("%s() after the request = %q, want \"\"", name, after)
			}
		})
	}
}

func TestMediaType(t *testing.T) {
	testAccessor(t, "MediaType", MediaType, []accessorCase{
		{"negotiated, read while filling the input", true,
			`{"kind":"endpoint","method":"GET","query":{"size":1},"mediaType":"image/png","body":{}}`, "image/png", true},
		{"negotiated, input without fields", false,
			`{"kind":"endpoint","method":"GET","mediaType":"image/png"}`, "image/png", false},
		{"not negotiated, input with fields", true,
			`{"kind":"endpoint","method":"GET","query":{"size":1}}`, "", true},
		{"not negotiated, input without fields", false,
			`{"kind":"endpoint","method":"GET"}`, "", false},
		{"escaped", false,
			`{"kind":"endpoint","method":"GET","mediaType":"image\/svg+xml"}`, "image/svg+xml", false},
	})
}

// recordWriter keeps each Write.
type recordWriter struct{ writes []string }

func (w *recordWriter) Write(p []byte) (int, error) {
	w.writes = append(w.writes, string(p))
	return len(p), nil
}

func TestStreamAndBytesReplies(t *testing.T) {
	const envelopeHEAD = `{"kind":"endpoint","method":"HEAD","route":"/r","path":"/r"}`
	writeAll := func(chunks ...string) func(io.Writer) error {
		return func(w io.Writer) error {
			for _, c := range chunks {
				if _, err := io.WriteString(w, c); err != nil {
					return err
				}
			}
			return nil
		}
	}
	for _, tc := range []struct {
		name       string
		reply      Reply
		req        fakeRequest
		wantCode   int32
		wantStatus int32
		wantHeader Headers
		wantChunks []string
		wantLog    string // the start of the one error logged
	}{
		{
			name:       "Stream sets status, Content-Type and headers; one host write per Write",
			reply:      Stream(206, "text/csv", writeAll("a,b\n", "c,d\n")).WithHeader("X-Rows", "2"),
			wantStatus: 206,
			wantHeader: Headers{"content-type": {"text/csv"}, "x-rows": {"2"}},
			wantChunks: []string{"a,b\n", "c,d\n"},
		},
		{
			name:       "an empty content type leaves it to the host",
			reply:      Stream(200, "", writeAll("x")),
			wantStatus: 200,
			wantHeader: Headers{},
			wantChunks: []string{"x"},
		},
		{
			name:       "empty writes send nothing",
			reply:      Stream(200, "text/plain", writeAll("", "a", "")),
			wantStatus: 200,
			wantHeader: Headers{"content-type": {"text/plain"}},
			wantChunks: []string{"a"},
		},
		{
			name:       "WithHeader replaces the SDK's Content-Type",
			reply:      Stream(200, "text/plain", writeAll("a")).WithHeader("content-type", "text/plain; charset=utf-8"),
			wantStatus: 200,
			wantHeader: Headers{"content-type": {"text/plain; charset=utf-8"}},
			wantChunks: []string{"a"},
		},
		{
			name:       "HEAD does not run the function",
			reply:      Stream(200, "text/plain", func(io.Writer) error { panic("ran") }),
			req:        fakeRequest{envelope: envelopeHEAD},
			wantStatus: 200,
			wantHeader: Headers{"content-type": {"text/plain"}},
		},
		{
			name:       "an error before any byte fails the call",
			reply:      Stream(200, "text/plain", func(io.Writer) error { return errors.New("no data") }),
			wantCode:   1,
			wantStatus: 200,
			wantHeader: Headers{"content-type": {"text/plain"}},
			wantLog:    "endpoints: the 200 stream failed before any byte was sent: no data",
		},
		{
			name: "an error after bytes fails the call",
			reply: Stream(200, "text/plain", func(w io.Writer) error {
				io.WriteString(w, "abc")
				return errors.New("disk gone")
			}),
			wantCode:   1,
			wantStatus: 200,
			wantHeader: Headers{"content-type": {"text/plain"}},
			wantChunks: []string{"abc"},
			wantLog:    "endpoints: the 200 stream failed after 3 bytes were sent (the client sees the response cut short): disk gone",
		},
		{
			name: "a write failure the function ignored fails the call",
			reply: Stream(200, "text/plain", func(w io.Writer) error {
				io.WriteString(w, "abc")
				return nil
			}),
			req:        fakeRequest{envelope: envelopeGET, fail: map[string]abi.Errno{abi.ImportResponseWrite: abi.ErrIO}},
			wantCode:   1,
			wantStatus: 200,
			wantHeader: Headers{"content-type": {"text/plain"}},
			wantLog:    "endpoints: the 200 stream failed before any byte was sent: endpoints: host function response_write: i/o error (-5)",
		},
		{
			name:       "a nil function fails the call before the status",
			reply:      Stream(201, "text/plain", nil),
			wantCode:   1,
			wantStatus: 200,
			wantHeader: Headers{},
			wantLog:    "endpoints: the 201 reply: the Stream or EventStream function is nil",
		},
		{
			name:       "a panic in the function fails the call",
			reply:      Stream(200, "", func(io.Writer) error { panic("out of range") }),
			wantCode:   1,
			wantStatus: 200,
			wantHeader: Headers{},
			wantLog:    "endpoints: handler panicked: out of range",
		},
		{
			name:       "Bytes sends the body in one write",
			reply:      Bytes(201, "image/png", []byte("\x89PNG\r\n")),
			wantStatus: 201,
			wantHeader: Headers{"content-type": {"image/png"}},
			wantChunks: []string{"\x89PNG\r\n"},
		},
		{
			name:       "Bytes without body or type",
			reply:      Bytes(200, "", nil),
			wantStatus: 200,
			wantHeader: Headers{},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fresh(t)
			Handle(Operation{}, func(*struct{}) Reply { return tc.reply })
			if tc.req.envelope == "" {
				tc.req.envelope = envelopeGET
			}
			resp := serveFake(tc.req)
			if resp.code != tc.wantCode {
				t.Errorf("handle() = %d, want %d; logs %q", resp.code, tc.wantCode, resp.logs)
			}
			if resp.status != tc.wantStatus {
				t.Errorf("status = %d, want %d", resp.status, tc.wantStatus)
			}
			if !reflect.DeepEqual(resp.header, tc.wantHeader) {
				t.Errorf("headers = %v, want %v", resp.header, tc.wantHeader)
			}
			if !slices.Equal(resp.chunks, tc.wantChunks) {
				t.Errorf("writes = %q, want %q", resp.chunks, tc.wantChunks)
			}
			switch {
			case tc.wantLog == "" && len(resp.logs) > 0:
				t.Errorf("logs = %q, want none", resp.logs)
			case tc.wantLog != "" && (len(resp.logs) != 1 || resp.logs[0].level != abi.LogError || !strings.HasPrefix(resp.logs[0].msg, tc.wantLog)):
				t.Errorf("logs = %q, want one error starting with %q", resp.logs, tc.wantLog)
			}
		})
	}
}

func TestStreamWriterAfterReturn(t *testing.T) {
	fresh(t)
	var kept io.Writer
	var keptSend func(Event) error
	Handle(Operation{Method: "GET"}, func(*struct{}) Reply {
		return Stream(200, "", func(w io.Writer) error { kept = w; return nil })
	})
	Handle(Operation{Method: "POST"}, func(*struct{}) Reply {
		return EventStream(func(send func(Event) error) error { keptSend = send; return nil })
	})
	serveFake(fakeRequest{envelope: envelopeGET})
	serveFake(fakeRequest{envelope: `{"kind":"endpoint","method":"POST"}`})
	if _, err := kept.Write([]byte("late")); !errors.Is(err, errStreamEnded) {
		t.Errorf("Write after return: error %v, want %v", err, errStreamEnded)
	}
	if err := keptSend(Event{Data: "late"}); !errors.Is(err, errStreamEnded) {
		t.Errorf("send after return: error %v, want %v", err, errStreamEnded)
	}
}

// price is the data of events in the tests.
type price struct {
	Symbol string `json:"symbol"`
	Cents  int    `json:"cents"`
}

func TestEventFrames(t *testing.T) {
	for _, tc := range []struct {
		name  string
		event Event
		want  string
	}{
		{"string data", Event{Data: "hello"}, "data: hello\n\n"},
		{"every field", Event{ID: "42", Event: "price", Retry: 1500, Data: price{"ACME", 1234}},
			"id: 42\nevent: price\nretry: 1500\ndata: {\"symbol\":\"ACME\",\"cents\":1234}\n\n"},
		{"LF, CRLF and CR end lines", Event{Data: "a\nb\r\nc\rd"}, "data: a\ndata: b\ndata: c\ndata: d\n\n"},
		{"a final line end is an empty line", Event{Data: "a\n"}, "data: a\ndata:\n\n"},
		{"empty string data is an event", Event{Data: ""}, "data:\n\n"},
		{"a leading space survives", Event{Data: " x"}, "data:  x\n\n"},
		{"bytes as they are", Event{Data: []byte("raw\nbytes")}, "data: raw\ndata: bytes\n\n"},
		{"json.RawMessage is compacted", Event{Data: json.RawMessage(`{"a": [1, 2]}`)}, "data: {\"a\":[1,2]}\n\n"},
		{"a number", Event{Data: 42}, "data: 42\n\n"},
		{"HTML characters escaped as by Respond", Event{Data: map[string]string{"h": "<b>"}}, "data: {\"h\":\"\\u003cb\\u003e\"}\n\n"},
		{"an ID without data", Event{ID: "7"}, "id: 7\n\n"},
		{"a retry without data", Event{Retry: 10}, "retry: 10\n\n"},
		{"the zero Event is a keep-alive comment", Event{}, ":\n\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fresh(t)
			Handle(Operation{}, func(*struct{}) Reply {
				return EventStream(func(send func(Event) error) error { return send(tc.event) })
			})
			resp := serveFake(fakeRequest{envelope: envelopeGET})
			if resp.code != 0 {
				t.Fatalf("handle() = %d, want 0; logs %q", resp.code, resp.logs)
			}
			if want := []string{tc.want}; !slices.Equal(resp.chunks, want) {
				t.Errorf("writes = %q, want %q", resp.chunks, want)
			}
			wantHeader := Headers{"content-type": {"text/event-stream"}, "cache-control": {"no-cache"}}
			if resp.status != 200 || !reflect.DeepEqual(resp.header, wantHeader) {
				t.Errorf("answer %d %v, want 200 %v", resp.status, resp.header, wantHeader)
			}
		})
	}
}

func TestEventErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		event Event
		want  string
	}{
		{"LF in ID", Event{ID: "a\nb", Data: "x"}, `endpoints: Event.ID "a\nb" holds CR, LF or NUL`},
		{"NUL in ID", Event{ID: "a\x00", Data: "x"}, `endpoints: Event.ID "a\x00" holds CR, LF or NUL`},
		{"CR in Event", Event{Event: "a\rb", Data: "x"}, `endpoints: Event.Event "a\rb" holds CR or LF`},
		{"negative Retry", Event{Retry: -1}, `endpoints: Event.Retry -1 is negative`},
		{"data encoding/json refuses", Event{Data: func() {}}, `endpoints: Event.Data: json: unsupported type: func()`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fresh(t)
			var sendErr error
			Handle(Operation{}, func(*struct{}) Reply {
				return EventStream(func(send func(Event) error) error {
					sendErr = send(tc.event)
					return send(Event{Data: "next"})
				})
			})
			resp := serveFake(fakeRequest{envelope: envelopeGET})
			if sendErr == nil || sendErr.Error() != tc.want {
				t.Errorf("send: error %v, want %s", sendErr, tc.want)
			}
			if want := []string{"data: next\n\n"}; resp.code != 0 || !slices.Equal(resp.chunks, want) {
				t.Errorf("handle() = %d, writes %q; want 0 and only the next event %q", resp.code, resp.chunks, want)
			}
		})
	}
}

// parsedEvent is an event as an EventSource dispatches it.
type parsedEvent struct{ typ, data, lastID string }

// parseEventStream interprets a text/event-stream as the HTML Living
// Standard's "Interpreting an event stream" says (§9.2.6), to check what
// a browser makes of the frames.
func parseEventStream(stream string) (events []parsedEvent, retry string) {
	var data, typ, idBuf, lastID strings.Builder
	hasData := false
	for len(stream) > 0 {
		i := strings.IndexAny(stream, "\r\n")
		if i < 0 {
			break // an incomplete line at the end is discarded
		}
		line := stream[:i]
		if stream[i] == '\r' && i+1 < len(stream) && stream[i+1] == '\n' {
			i++
		}
		stream = stream[i+1:]
		if line == "" {
			lastID.Reset()
			lastID.WriteString(idBuf.String())
			if hasData {
				d := strings.TrimSuffix(data.String(), "\n")
				t := typ.String()
				if t == "" {
					t = "message"
				}
				events = append(events, parsedEvent{t, d, lastID.String()})
			}
			data.Reset()
			typ.Reset()
			hasData = false
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			typ.Reset()
			typ.WriteString(value)
		case "data":
			data.WriteString(value + "\n")
			hasData = true
		case "id":
			if !strings.Contains(value, "\x00") {
				idBuf.Reset()
				idBuf.WriteString(value)
			}
		case "retry":
			retry = value
		}
	}
	return events, retry
}

// FuzzEventRoundTrip checks that what send writes is read back by an
// EventSource as it was sent, line ends normalised to LF.
func FuzzEventRoundTrip(f *testing.F) {
	f.Add("42", "price", "hello")
	f.Add("", "", "a\nb\r\nc\rd")
	f.Add("x", "", "")
	f.Add(" id", " ev", " data\n")
	f.Add("a\nb", "e", "d")
	f.Fuzz(func(t *testing.T, id, event, data string) {
		e := Event{ID: id, Event: event, Data: data}
		var jbuf bytes.Buffer
		frame, err := e.appendTo(nil, &jbuf, json.NewEncoder(&jbuf))
		if err != nil {
			if !strings.ContainsAny(id, "\r\n\x00") && !strings.ContainsAny(event, "\r\n") {
				t.Fatalf("appendTo(%+v): unexpected error %v", e, err)
			}
			return
		}
		// A second event after it shows the first one ended cleanly.
		events, _ := parseEventStream(string(frame) + "data: next\n\n")
		typ := event
		if typ == "" {
			typ = "message"
		}
		norm := strings.ReplaceAll(strings.ReplaceAll(data, "\r\n", "\n"), "\r", "\n")
		want := []parsedEvent{{typ, norm, id}, {"message", "next", id}}
		if !slices.Equal(events, want) {
			t.Errorf("frame %q is read as %q, want %q", frame, events, want)
		}
	})
}

func TestReplyBodies(t *testing.T) {
	ticks := func(send func(Event) error) error {
		for _, d := range []string{"a", "b"} {
			if err := send(Event{Data: d}); err != nil {
				return err
			}
		}
		return nil
	}
	for _, tc := range []struct {
		name       string
		reply      Reply
		wantBody   any
		wantHeader Headers
		wantWrites []string
		wantErr    error
	}{
		{"Respond", Respond(200, map[string]int{"n": 1}), map[string]int{"n": 1}, Headers{}, []string{`{"n":1}`}, nil},
		{"Respond without body", Respond(204, nil), nil, Headers{}, nil, nil},
		{"Respond escapes HTML as the SDK does", Respond(200, "<b>"), "<b>", Headers{}, []string{`"\u003cb\u003e"`}, nil},
		{"Bytes", Bytes(200, "image/png", []byte("png")), []byte("png"), Headers{"content-type": {"image/png"}}, []string{"png"}, nil},
		{"Stream", Stream(200, "text/plain", func(w io.Writer) error {
			io.WriteString(w, "a")
			io.WriteString(w, "b")
			return nil
		}), nil, Headers{"content-type": {"text/plain"}}, []string{"a", "b"}, nil},
		{"EventStream", EventStream(ticks), nil,
			Headers{"content-type": {"text/event-stream"}, "cache-control": {"no-cache"}},
			[]string{"data: a\n\n", "data: b\n\n"}, nil},
		{"EventStream with a replaced header", EventStream(ticks).WithHeader("Cache-Control", "no-store"), nil,
			Headers{"content-type": {"text/event-stream"}, "cache-control": {"no-store"}},
			[]string{"data: a\n\n", "data: b\n\n"}, nil},
		{"nil EventStream function", EventStream(nil), nil, Headers{}, nil, errNilStream},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.reply.Body(); !reflect.DeepEqual(got, tc.wantBody) {
				t.Errorf("Body() = %#v, want %#v", got, tc.wantBody)
			}
			if got := tc.reply.Header(); !reflect.DeepEqual(got, tc.wantHeader) {
				t.Errorf("Header() = %v, want %v", got, tc.wantHeader)
			}
			var w recordWriter
			n, err := tc.reply.WriteTo(&w)
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("WriteTo: error %v, want %v", err, tc.wantErr)
			}
			if !slices.Equal(w.writes, tc.wantWrites) {
				t.Errorf("WriteTo wrote %q, want %q", w.writes, tc.wantWrites)
			}
			if want := int64(len(strings.Join(tc.wantWrites, ""))); n != want {
				t.Errorf("WriteTo = %d, want %d", n, want)
			}
		})
	}
}
