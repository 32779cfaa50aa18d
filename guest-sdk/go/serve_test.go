//go:build !wasip1

package endpoints

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
)

// fakeRequest is one request for the native fake host.
type fakeRequest struct {
	envelope string
	headers  map[string]string // raw headers for Header
	body     string            // raw body for RawRequest.Body
	bodyErr  abi.Errno         // body_read's error after body
	files    []string          // what file_read serves, by index
	fail     map[string]abi.Errno
}

// fakeResponse is what the guest answered.
type fakeResponse struct {
	code   int32 // endpoints_handle's result
	status int32
	header Headers
	body   string
	logs   []logLine
	chunks []string // each response_write
}

// serveFake runs one request through handle with the fake host, as the
// endpoints_handle export does in WebAssembly.
func serveFake(req fakeRequest) fakeResponse {
	return callFake(req, 200, handle)
}

// callFake runs export with the fake host set up for req; the answer's
// status starts as status.
func callFake(req fakeRequest, status int32, export func() int32) fakeResponse {
	fake = &fakeHost{
		inRequest: true, envelope: []byte(req.envelope), headers: req.headers,
		body: []byte(req.body), bodyErr: req.bodyErr, fail: req.fail,
		status: status, header: Headers{},
	}
	for _, f := range req.files {
		fake.files = append(fake.files, []byte(f))
	}
	defer func() { fake = &fakeHost{} }()
	code := export()
	return fakeResponse{code, fake.status, fake.header, string(fake.written), fake.logs, fake.chunks}
}

// fresh gives the test an empty registry.
func fresh(t *testing.T) {
	t.Helper()
	Reset()
	t.Cleanup(Reset)
}

type (
	page struct {
		Size int `query:"size"`
	}
	auth struct {
		Token string `header:"Authorization"`
	}
	fullInput struct {
		ID     int64    `path:"id"`
		Slug   string   `path:"slug"`
		Limit  *int     `query:"limit"`
		Tags   []string `query:"tag"`
		Tenant string   `header:"X-Tenant"`
		page
		auth
		Body struct {
			Name string         `json:"name"`
			Meta map[string]any `json:"meta,omitempty"`
		}
	}
)

func TestInputDecoding(t *testing.T) {
	limit := 5
	for _, tc := range []struct {
		name     string
		envelope string
		want     fullInput
	}{
		{
			name: "every part",
			envelope: `{"kind":"endpoint","method":"POST","route":"/x/:id/:slug","path":"/x/7/a-b",` +
				`"params":{"id":7,"slug":"a-b"},"query":{"limit":5,"tag":["a","b"],"size":20},` +
				`"headers":{"x-tenant":"acme","authorization":"Bearer t"},"body":{"name":"Ada","meta":{"k":1}}}`,
			want: func() fullInput {
				var in fullInput
				in.ID, in.Slug, in.Limit, in.Tags, in.Tenant = 7, "a-b", &limit, []string{"a", "b"}, "acme"
				in.Size, in.Token = 20, "Bearer t"
				in.Body.Name, in.Body.Meta = "Ada", map[string]any{"k": 1.0}
				return in
			}(),
		},
		{
			name:     "absent optional parts stay zero",
			envelope: `{"kind":"endpoint","method":"POST","route":"/x/:id/:slug","path":"/x/1/s","params":{"id":1,"slug":"s"}}`,
			want:     fullInput{ID: 1, Slug: "s"},
		},
		{
			name:     "members the input does not declare are ignored",
			envelope: `{"kind":"endpoint","params":{"id":1,"slug":"s","other":true},"query":{"debug":"1"},"future":{}}`,
			want:     fullInput{ID: 1, Slug: "s"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fresh(t)
			var got *fullInput
			Handle(Operation{}, func(in *fullInput) Reply {
				got = in
				return Respond(204, nil)
			})
			resp := serveFake(fakeRequest{envelope: tc.envelope})
			if resp.code != 0 {
				t.Fatalf("handle() = %d, want 0; logs %v", resp.code, resp.logs)
			}
			if !reflect.DeepEqual(*got, tc.want) {
				t.Errorf("input:\n got %+v\nwant %+v", *got, tc.want)
			}
		})
	}
}

func TestInputWithoutFields(t *testing.T) {
	fresh(t)
	called := false
	Handle(Operation{}, func(*struct{}) Reply {
		called = true
		return Respond(200, "ok")
	})
	resp := serveFake(fakeRequest{envelope: `{"kind":"endpoint","method":"GET"}`})
	if resp.code != 0 || !called || resp.body != `"ok"` {
		t.Errorf("got code %d, called %v, body %s; want 0, true, \"ok\"", resp.code, called, resp.body)
	}
}

const envelopeGET = `{"kind":"endpoint","method":"GET","route":"/r","path":"/r"}`

func TestReplyEncoding(t *testing.T) {
	type item struct {
		Name string `json:"name"`
		HTML string `json:"html,omitempty"`
	}
	for _, tc := range []struct {
		name       string
		reply      Reply
		wantStatus int32
		wantHeader Headers
		wantBody   string
	}{
		{"200 with a JSON body", Respond(200, item{Name: "a"}), 200, Headers{}, `{"name":"a"}`},
		{"other status", Respond(404, map[string]string{"message": "gone"}), 404, Headers{}, `{"message":"gone"}`},
		{"nil body sends nothing", Respond(204, nil), 204, Headers{}, ``},
		{"raw JSON body", Respond(200, json.RawMessage(`[1, 2]`)), 200, Headers{}, `[1,2]`},
		{"compact raw JSON body", Respond(200, json.RawMessage(`{"id":2,"tags":["a"]}`)), 200, Headers{}, `{"id":2,"tags":["a"]}`},
		{"HTML characters in raw JSON are escaped", Respond(200, json.RawMessage(`{"a": "<b>&"}`)), 200, Headers{}, `{"a":"\u003cb\u003e\u0026"}`},
		// Regression: the compactor sent these as they were, where
		// encoding/json escapes them.
		{"U+2028 and U+2029 in raw JSON are escaped", Respond(200, json.RawMessage("\"a\u2028b\u2029\"")), 200, Headers{}, `"a\u2028b\u2029"`},
		{"other characters in raw JSON are kept", Respond(200, json.RawMessage(`"€ é"`)), 200, Headers{}, `"€ é"`},
		{"HTML characters are escaped", Respond(200, item{Name: "b", HTML: "<b>"}), 200, Headers{}, `{"name":"b","html":"\u003cb\u003e"}`},
		{
			"headers pass through, repeated names add",
			Respond(201, item{Name: "c"}).WithHeader("Location", "/items/c").
				WithHeader("Set-Cookie", "a=1").WithHeader("Set-Cookie", "b=2"),
			201,
			Headers{"location": {"/items/c"}, "set-cookie": {"a=1", "b=2"}},
			`{"name":"c"}`,
		},
		{
			"explicit Content-Type is kept",
			Respond(400, item{Name: "d"}).WithHeader("Content-Type", "application/problem+json"),
			400,
			Headers{"content-type": {"application/problem+json"}},
			`{"name":"d"}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fresh(t)
			Handle(Operation{}, func(*struct{}) Reply { return tc.reply })
			resp := serveFake(fakeRequest{envelope: envelopeGET})
			if resp.code != 0 {
				t.Fatalf("handle() = %d, want 0; logs %v", resp.code, resp.logs)
			}
			if resp.status != tc.wantStatus {
				t.Errorf("status = %d, want %d", resp.status, tc.wantStatus)
			}
			if !reflect.DeepEqual(resp.header, tc.wantHeader) {
				t.Errorf("headers = %v, want %v", resp.header, tc.wantHeader)
			}
			if resp.body != tc.wantBody {
				t.Errorf("body = %s, want %s", resp.body, tc.wantBody)
			}
		})
	}
}

func TestWithHeaderDoesNotShareHeaders(t *testing.T) {
	base := Respond(200, nil).WithHeader("A", "1")
	one := base.WithHeader("B", "2")
	two := base.WithHeader("C", "3")
	if got, want := one.Header(), (Headers{"a": {"1"}, "b": {"2"}}); !reflect.DeepEqual(got, want) {
		t.Errorf("one.Header() = %v, want %v", got, want)
	}
	if got, want := two.Header(), (Headers{"a": {"1"}, "c": {"3"}}); !reflect.DeepEqual(got, want) {
		t.Errorf("two.Header() = %v, want %v", got, want)
	}
}

func TestHandleFuncAnswers(t *testing.T) {
	type out struct {
		N int `json:"n"`
	}
	boom := errors.New("database on fire")
	for _, tc := range []struct {
		name       string
		status     int
		result     out
		err        error
		wantStatus int32
		wantBody   string
		wantLog    string
	}{
		{"value answers 200", 0, out{1}, nil, 200, `{"n":1}`, ""},
		{"value answers Operation.Status", 201, out{2}, nil, 201, `{"n":2}`, ""},
		{"204 sends no body", 204, out{3}, nil, 204, ``, ""},
		{"Error answers its status and body", 0, out{}, Error(404, map[string]string{"message": "no"}), 404, `{"message":"no"}`, ""},
		{"wrapped Error too", 0, out{}, fmt.Errorf("lookup: %w", Error(409, nil)), 409, ``, ""},
		{"other errors answer 500 and are logged", 0, out{}, boom, 500,
			`{"statusCode":500,"statusMessage":"Internal Server Error"}`, `msg="handler failed" error="database on fire"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fresh(t)
			HandleFunc(Operation{Status: tc.status}, func(*struct{}) (out, error) { return tc.result, tc.err })
			resp := serveFake(fakeRequest{envelope: envelopeGET})
			if resp.code != 0 {
				t.Fatalf("handle() = %d, want 0; logs %v", resp.code, resp.logs)
			}
			if resp.status != tc.wantStatus || resp.body != tc.wantBody {
				t.Errorf("answer = %d %s, want %d %s", resp.status, resp.body, tc.wantStatus, tc.wantBody)
			}
			var wantLogs []logLine
			if tc.wantLog != "" {
				wantLogs = []logLine{{abi.LogError, tc.wantLog}}
			}
			if !slices.Equal(resp.logs, wantLogs) {
				t.Errorf("logs = %v, want %v", resp.logs, wantLogs)
			}
		})
	}
}

func TestMethodDispatch(t *testing.T) {
	fresh(t)
	for _, m := range []string{"GET", "PUT"} {
		Handle(Operation{Method: m}, func(*struct{}) Reply { return Respond(200, m) })
	}
	for _, tc := range []struct {
		method   string
		wantCode int32
		wantBody string
	}{
		{"GET", 0, `"GET"`},
		{"PUT", 0, `"PUT"`},
		{"HEAD", 0, `"GET"`},
		{"POST", 1, ``},
	} {
		t.Run(tc.method, func(t *testing.T) {
			resp := serveFake(fakeRequest{envelope: `{"kind":"endpoint","method":"` + tc.method + `"}`})
			if resp.code != tc.wantCode || resp.body != tc.wantBody {
				t.Errorf("got %d %s, want %d %s; logs %v", resp.code, resp.body, tc.wantCode, tc.wantBody, resp.logs)
			}
		})
	}
}

// TestGuestFailures checks that whatever goes wrong is logged and ends
// endpoints_handle with a nonzero result, so the host answers 500.
func TestGuestFailures(t *testing.T) {
	ok := func(*struct{}) Reply { return Respond(201, "x").WithHeader("X-A", "1") }
	for _, tc := range []struct {
		name    string
		handler func(*struct{}) Reply
		req     fakeRequest
		wantLog string
	}{
		{"request_read fails", ok,
			fakeRequest{envelope: envelopeGET, fail: map[string]abi.Errno{abi.ImportRequestRead: abi.ErrState}},
			"endpoints: host function request_read: not available outside a request (-6)"},
		{"response_set_status fails", ok,
			fakeRequest{envelope: envelopeGET, fail: map[string]abi.Errno{abi.ImportResponseSetStatus: abi.ErrInvalid}},
			"endpoints: status 201: host function response_set_status: invalid argument (-2)"},
		{"response_add_header fails", ok,
			fakeRequest{envelope: envelopeGET, fail: map[string]abi.Errno{abi.ImportResponseAddHeader: abi.ErrInvalid}},
			`endpoints: header "X-A": host function response_add_header: invalid argument (-2)`},
		{"response_write fails", ok,
			fakeRequest{envelope: envelopeGET, fail: map[string]abi.Errno{abi.ImportResponseWrite: abi.ErrIO}},
			"endpoints: host function response_write: i/o error (-5)"},
		{"forbidden header", func(*struct{}) Reply { return Respond(200, nil).WithHeader("Content-Length", "3") },
			fakeRequest{envelope: envelopeGET},
			`endpoints: header "Content-Length": host function response_add_header: invalid argument (-2)`},
		{"status out of range", func(*struct{}) Reply { return Respond(999, nil) },
			fakeRequest{envelope: envelopeGET},
			"endpoints: status 999: host function response_set_status: invalid argument (-2)"},
		{"zero Reply", func(*struct{}) Reply { return Reply{} },
			fakeRequest{envelope: envelopeGET},
			"endpoints: the handler returned the zero Reply: build replies with endpoints.Respond"},
		{"body that cannot be encoded", func(*struct{}) Reply { return Respond(200, func() {}) },
			fakeRequest{envelope: envelopeGET},
			"endpoints: encoding the body of the 200 reply: json: unsupported type: func()"},
		{"handler panics", func(*struct{}) Reply { panic("nil map") },
			fakeRequest{envelope: envelopeGET},
			"endpoints: handler panicked: nil map\ngoroutine"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fresh(t)
			Handle(Operation{}, tc.handler)
			resp := serveFake(tc.req)
			if resp.code == 0 {
				t.Errorf("handle() = 0, want a failure")
			}
			if len(resp.logs) != 1 || resp.logs[0].level != abi.LogError || !strings.HasPrefix(resp.logs[0].msg, tc.wantLog) {
				t.Errorf("logs = %q, want one error starting with %q", resp.logs, tc.wantLog)
			}
		})
	}
}

func TestEnvelopeNotJSON(t *testing.T) {
	fresh(t)
	Handle(Operation{}, func(*struct {
		ID int `path:"id"`
	}) Reply {
		return Respond(200, nil)
	})
	resp := serveFake(fakeRequest{envelope: `{"kind":`})
	want := []logLine{{abi.LogError, "endpoints: decoding the request envelope: unexpected end of JSON input"}}
	if resp.code == 0 || !slices.Equal(resp.logs, want) {
		t.Errorf("got code %d, logs %q; want a failure and %q", resp.code, resp.logs, want)
	}
}

func TestNoHandler(t *testing.T) {
	fresh(t)
	resp := serveFake(fakeRequest{envelope: envelopeGET})
	want := []logLine{{abi.LogError, "endpoints: no handler registered: call endpoints.Handle, HandleFunc or HandleRaw from an init function"}}
	if resp.code == 0 || !slices.Equal(resp.logs, want) {
		t.Errorf("got code %d, logs %v; want a failure and %v", resp.code, resp.logs, want)
	}
}

func TestHeader(t *testing.T) {
	long := strings.Repeat("v", 1000) // beyond the first 256-byte buffer
	for _, tc := range []struct {
		name   string
		header string
		want   string
		wantOK bool
	}{
		{"present, any case", "User-Agent", "curl/8.5", true},
		{"joined values", "accept", "a/b, c/d", true},
		{"longer than the buffer", "x-long", long, true},
		{"absent", "x-none", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fresh(t)
			var got string
			var gotOK bool
			Handle(Operation{}, func(*struct{}) Reply {
				got, gotOK = Header(tc.header)
				return Respond(204, nil)
			})
			serveFake(fakeRequest{envelope: envelopeGET, headers: map[string]string{
				"user-agent": "curl/8.5", "accept": "a/b, c/d", "x-long": long,
			}})
			if got != tc.want || gotOK != tc.wantOK {
				t.Errorf("Header(%q) = %q, %v; want %q, %v", tc.header, got, gotOK, tc.want, tc.wantOK)
			}
		})
	}
	t.Run("outside a request", func(t *testing.T) {
		if got, ok := Header("user-agent"); got != "" || ok {
			t.Errorf(`Header("user-agent") = %q, %v; want "", false`, got, ok)
		}
	})
}

func TestRawRoute(t *testing.T) {
	for _, tc := range []struct {
		name       string
		handler    func(ResponseWriter, *RawRequest)
		req        fakeRequest
		wantCode   int32
		wantStatus int32
		wantHeader Headers
		wantBody   string
	}{
		{
			name: "request fields, streamed body, headers and status",
			handler: func(w ResponseWriter, r *RawRequest) {
				body, err := io.ReadAll(r.Body)
				if err != nil {
					panic(err)
				}
				w.Header().Set("Content-Type", "text/plain")
				w.Header().Add("X-Seen", r.Params["path"])
				w.Header().Add("X-Seen", r.Headers.Get("X-Tenant"))
				w.WriteHeader(207)
				fmt.Fprintf(w, "%s %s %s %s|", r.Method, r.Route, r.Path, r.RawQuery)
				w.Write(body)
			},
			req: fakeRequest{
				envelope: `{"kind":"plain","method":"POST","route":"/files/:path","path":"/files/a/b.txt","rawQuery":"x=1",` +
					`"params":{"path":"a/b.txt"},"headers":{"x-tenant":["acme"]}}`,
				body: strings.Repeat("0123456789", 1000),
			},
			wantStatus: 207,
			wantHeader: Headers{"content-type": {"text/plain"}, "x-seen": {"a/b.txt", "acme"}},
			wantBody:   "POST /files/:path /files/a/b.txt x=1|" + strings.Repeat("0123456789", 1000),
		},
		{
			name:       "nothing written answers 200 with the headers",
			handler:    func(w ResponseWriter, r *RawRequest) { w.Header().Set("X-Empty", "yes") },
			req:        fakeRequest{envelope: `{"kind":"plain","method":"GET","route":"/","path":"/"}`},
			wantStatus: 200,
			wantHeader: Headers{"x-empty": {"yes"}},
		},
		{
			name: "headers changed after the first Write are not sent",
			handler: func(w ResponseWriter, r *RawRequest) {
				w.Write([]byte("a"))
				w.Header().Set("X-Late", "1")
				w.WriteHeader(500)
				w.Write([]byte("b"))
			},
			req:        fakeRequest{envelope: `{"kind":"plain","method":"GET","route":"/","path":"/"}`},
			wantStatus: 200,
			wantHeader: Headers{},
			wantBody:   "ab",
		},
		{
			name: "body too large is an error the handler sees",
			handler: func(w ResponseWriter, r *RawRequest) {
				_, err := io.ReadAll(r.Body)
				if !errors.Is(err, abi.ErrBodyTooLarge) {
					panic(fmt.Sprintf("err = %v, want ErrBodyTooLarge", err))
				}
				w.WriteHeader(413)
			},
			req:        fakeRequest{envelope: `{"kind":"plain","method":"PUT","route":"/","path":"/"}`, body: "abc", bodyErr: abi.ErrBodyTooLarge},
			wantStatus: 413,
			wantHeader: Headers{},
		},
		{
			name:       "a header the host refuses fails the request",
			handler:    func(w ResponseWriter, r *RawRequest) { w.Header().Set("Transfer-Encoding", "chunked") },
			req:        fakeRequest{envelope: `{"kind":"plain","method":"GET","route":"/","path":"/"}`},
			wantCode:   1,
			wantStatus: 200,
			wantHeader: Headers{},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fresh(t)
			HandleRaw(tc.handler)
			resp := serveFake(tc.req)
			if resp.code != tc.wantCode {
				t.Errorf("handle() = %d, want %d; logs %v", resp.code, tc.wantCode, resp.logs)
			}
			if resp.status != tc.wantStatus {
				t.Errorf("status = %d, want %d", resp.status, tc.wantStatus)
			}
			if !reflect.DeepEqual(resp.header, tc.wantHeader) {
				t.Errorf("headers = %v, want %v", resp.header, tc.wantHeader)
			}
			if resp.body != tc.wantBody {
				t.Errorf("body = %.80q, want %.80q", resp.body, tc.wantBody)
			}
		})
	}
}

func TestHeaders(t *testing.T) {
	h := Headers{}
	h.Set("Content-Type", "text/plain")
	h.Add("X-A", "1")
	h.Add("x-a", "2")
	h.Set("X-Gone", "1")
	h.Del("x-GONE")
	want := Headers{"content-type": {"text/plain"}, "x-a": {"1", "2"}}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("headers = %v, want %v", h, want)
	}
	if got := h.Get("CONTENT-TYPE"); got != "text/plain" {
		t.Errorf("Get = %q, want text/plain", got)
	}
	if got := h.Values("X-A"); !slices.Equal(got, []string{"1", "2"}) {
		t.Errorf("Values = %q, want [1 2]", got)
	}
	if got := h.Get("missing"); got != "" {
		t.Errorf("Get(missing) = %q, want empty", got)
	}
}

func TestLogger(t *testing.T) {
	for _, tc := range []struct {
		name string
		log  func(*slog.Logger)
		want logLine
	}{
		{"debug", func(l *slog.Logger) { l.Debug("d") }, logLine{abi.LogDebug, "msg=d"}},
		{"below debug", func(l *slog.Logger) { l.Log(context.Background(), slog.LevelDebug-4, "d") }, logLine{abi.LogDebug, "msg=d"}},
		{"info with attrs", func(l *slog.Logger) { l.Info("user created", "id", 4, "name", "Ada L") },
			logLine{abi.LogInfo, `msg="user created" id=4 name="Ada L"`}},
		{"warn", func(l *slog.Logger) { l.Warn("slow", "ms", 1500) }, logLine{abi.LogWarn, "msg=slow ms=1500"}},
		{"info+2 is info", func(l *slog.Logger) { l.Log(context.Background(), slog.LevelInfo+2, "x") }, logLine{abi.LogInfo, "msg=x"}},
		{"error", func(l *slog.Logger) { l.Error("failed", "err", errors.New("boom")) }, logLine{abi.LogError, "msg=failed err=boom"}},
		{"above error", func(l *slog.Logger) { l.Log(context.Background(), slog.LevelError+4, "x") }, logLine{abi.LogError, "msg=x"}},
		{"With and groups", func(l *slog.Logger) {
			l.With("req", 7).WithGroup("db").Info("query", "rows", 3, slog.Group("t", "ms", 2))
		}, logLine{abi.LogInfo, "msg=query req=7 db.rows=3 db.t.ms=2"}},
		{"empty group and empty attr dropped", func(l *slog.Logger) {
			l.WithGroup("g").Info("x", slog.Group("e"), slog.Attr{})
		}, logLine{abi.LogInfo, "msg=x"}},
		{"inline group", func(l *slog.Logger) { l.Info("x", slog.Group("", "a", 1)) }, logLine{abi.LogInfo, "msg=x a=1"}},
		{"kinds", func(l *slog.Logger) {
			l.Info("x", "u", uint64(3), "f", 1.5, "b", true, "d", 1500*time.Millisecond,
				"t", time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), "bytes", []byte("hi"), "s", []int{1, 2})
		}, logLine{abi.LogInfo, "msg=x u=3 f=1.5 b=true d=1.5s t=2024-01-02T03:04:05.000Z bytes=\"hi\" s=\"[1 2]\""}},
		{"quoting", func(l *slog.Logger) { l.Info("", "k", `a"b`, "e", "", "n", "a\nb", "u", "é") },
			logLine{abi.LogInfo, `msg="" k="a\"b" e="" n="a\nb" u=é`}},
		{"LogValuer resolved", func(l *slog.Logger) { l.Info("x", "v", secret("pw")) }, logLine{abi.LogInfo, "msg=x v=REDACTED"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake = &fakeHost{inRequest: true}
			defer func() { fake = &fakeHost{} }()
			tc.log(Logger())
			if want := []logLine{tc.want}; !slices.Equal(fake.logs, want) {
				t.Errorf("logs = %q, want %q", fake.logs, want)
			}

			// The same line as slog's text handler, without time and level.
			var text bytes.Buffer
			tc.log(slog.New(slog.NewTextHandler(&text, &slog.HandlerOptions{
				Level: slog.LevelDebug - 10,
				ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
					if len(groups) == 0 && (a.Key == slog.TimeKey || a.Key == slog.LevelKey) {
						return slog.Attr{}
					}
					return a
				},
			})))
			if got := strings.TrimSuffix(text.String(), "\n"); got != tc.want.msg {
				t.Errorf("slog.TextHandler writes %q, want %q", got, tc.want.msg)
			}
		})
	}
}

// secret is a LogValuer that hides itself.
type secret string

func (secret) LogValue() slog.Value { return slog.StringValue("REDACTED") }

// TestSchemaPropertiesMatchEncodingJSON checks that derived object schemas
// name exactly the members encoding/json writes.
func TestSchemaPropertiesMatchEncodingJSON(t *testing.T) {
	for _, v := range []any{
		Person{Home: &Address{}}, Derived{Extra: &Extra{}, Shadow: "s"}, Ambiguous{}, Tree{Children: []Tree{{}}},
		struct {
			A string `json:"a"`
			B int    `json:"-"`
			c int
			D string `json:"d,omitempty"`
		}{D: "x"},
	} {
		typ := reflect.TypeOf(v)
		t.Run(typ.String(), func(t *testing.T) {
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			var members map[string]any
			if err := json.Unmarshal(b, &members); err != nil {
				t.Fatal(err)
			}
			var want []string
			for name := range members {
				want = append(want, name)
			}
			var got []string
			for _, f := range jsonFields(typ) {
				got = append(got, f.name)
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("schema properties = %q, encoding/json members = %q", got, want)
			}
		})
	}
}

// TestEnvelopeKeys checks the constant member names of the envelope
// against the json tags of abi.Envelope and the names of abi.Part.
func TestEnvelopeKeys(t *testing.T) {
	for _, k := range []struct{ key, field string }{
		{keyMethod, "Method"}, {keyRoute, "Route"}, {keyPath, "Path"}, {keyRawQuery, "RawQuery"},
		{keyParams, "Params"}, {keyQuery, "Query"}, {keyHeaders, "Headers"}, {keyBody, "Body"},
		{keyMediaType, "MediaType"}, {keyContentType, "ContentType"}, {keyFiles, "Files"},
		{keyRequestID, "RequestID"}, {keyTraceID, "TraceID"}, {keyAuth, "Auth"}, {keyContext, "Context"}, {keyError, "Error"},
	} {
		t.Run(k.field, func(t *testing.T) {
			if want := jsonKey[abi.Envelope](k.field); k.key != want {
				t.Errorf("the member name of abi.Envelope.%s is %q, want %q", k.field, k.key, want)
			}
		})
	}
	for part, key := range map[abi.Part]string{abi.PartParams: keyParams, abi.PartQuery: keyQuery, abi.PartHeaders: keyHeaders, abi.PartBody: keyBody} {
		if want := part.String(); key != want {
			t.Errorf("the member name of part %d is %q, want %q", part, key, want)
		}
	}
}
