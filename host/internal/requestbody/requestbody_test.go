package requestbody_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/requestbody"
	"github.com/wasmendpoints/endpoints/internal/jsonvalue"
	"github.com/wasmendpoints/endpoints/internal/validation"
)

// compile compiles the request body declaration bodyJSON as a contract
// declaring it at /request/body would.
func compile(t *testing.T, bodyJSON string) *requestbody.Decl {
	t.Helper()
	contract := `{"request":{"body":` + bodyJSON + `}}`
	comp, err := validation.NewContract("test.wasm", []byte(contract))
	if err != nil {
		t.Fatal(err)
	}
	var b abi.Body
	if err := json.Unmarshal([]byte(bodyJSON), &b); err != nil {
		t.Fatal(err)
	}
	d, err := requestbody.Compile(comp, "test.wasm", &b, "")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestChoosePicksTheMostSpecificDeclaredType(t *testing.T) {
	d := compile(t, `{"content":{"application/json":{},"text/*":{},"*/*":{},"text/csv":{}}}`)
	tests := []struct {
		name, contentType string
		ok                bool
		want              string // ContentType once chosen
	}{
		{"exact", "text/csv; charset=utf-8", true, "text/csv"},
		{"range", "text/plain", true, "text/plain"},
		{"any", "image/png", true, "image/png"},
		{"JSON in UTF-8", "application/json; charset=UTF-8", true, "application/json"},
		{"JSON in another charset", "application/json; charset=latin1", false, ""},
		{"not a media type", "/;", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b requestbody.Body
			if got := b.Choose(d, tt.contentType); got != tt.ok {
				t.Fatalf("Choose(%q) = %v, want %v", tt.contentType, got, tt.ok)
			}
			if got := b.ContentType(); got != tt.want {
				t.Errorf("ContentType() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCompileErrorsNameThePointer(t *testing.T) {
	comp, err := validation.NewContract("test.wasm", []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		body abi.Body
		want string
	}{
		{"bad media type", abi.Body{Content: map[string]*abi.MediaType{"text/": {}}},
			`test.wasm: contract: /request/body/content/text~1: "text/" is not a media type`},
		{"bad encoding", abi.Body{Content: map[string]*abi.MediaType{"multipart/form-data": {Encoding: map[string]*abi.Encoding{"f": {ContentType: "image/png, nope"}}}}},
			`test.wasm: contract: /request/body/content/multipart~1form-data/encoding/f/contentType: " nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := requestbody.Compile(comp, "test.wasm", &tt.body, "")
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("Compile: %v, want an error starting %q", err, tt.want)
			}
		})
	}
}

func TestLimit(t *testing.T) {
	tests := []struct {
		name string
		d    *requestbody.Decl
		want int64
	}{
		{"no body declared", nil, 100},
		{"no maxBytes", compile(t, `{"schema":{}}`), 100},
		{"maxBytes", compile(t, `{"schema":{},"maxBytes":7}`), 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.d.Limit(100); got != tt.want {
				t.Errorf("Limit(100) = %d, want %d", got, tt.want)
			}
		})
	}
}

func request(contentType, body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	return r
}

const (
	multipartDecl = `{"content":{"multipart/form-data":{"schema":{"type":"object","properties":{"n":{"type":"integer"},"avatar":{"type":"string"}}},"encoding":{"avatar":{"contentType":"image/*"}}}}}`
	multipartType = "multipart/form-data; boundary=XX"
)

// multipartBody is a form of a field n=3 and a file avatar of type
// avatarType.
func multipartBody(avatarType string) string {
	return "--XX\r\nContent-Disposition: form-data; name=\"n\"\r\n\r\n3\r\n" +
		"--XX\r\nContent-Disposition: form-data; name=\"avatar\"; filename=\"a.png\"\r\nContent-Type: " + avatarType + "\r\n\r\nPNG\r\n" +
		"--XX--\r\n"
}

func TestTake(t *testing.T) {
	jsonDecl := `{"content":{"application/json":{"schema":{"type":"object","properties":{"n":{"type":"integer"},"d":{"type":"string","default":"x"}}}},"application/x-www-form-urlencoded":{"schema":{"type":"object","properties":{"n":{"type":"integer"}}}},"application/octet-stream":{}}}`
	tests := []struct {
		name        string
		decl        string // "" declares no body
		contentType string
		body        string
		limit       int64
		idempotent  bool
		want        requestbody.Outcome
		value       string // Value as JSON; "" for nil
		raw         string // Raw; "-" for nil
		streams     bool
		issues      int
	}{
		{name: "JSON canonical", decl: `{"schema":{"type":"object"}}`, contentType: "application/json", body: `{"n":2}`, limit: 100,
			value: `{"n":2}`, raw: `{"n":2}`},
		{name: "JSON with a default", decl: jsonDecl, contentType: "application/json", body: `{"n":2}`, limit: 100,
			value: `{"d":"x","n":2}`, raw: `{"n":2}`},
		{name: "JSON invalid", decl: jsonDecl, contentType: "application/json", body: `{"n":"2"}`, limit: 100,
			value: `{"d":"x","n":"2"}`, raw: `{"n":"2"}`, issues: 1},
		{name: "JSON that does not decode", decl: jsonDecl, contentType: "application/json", body: `{"n":`, limit: 100,
			raw: `{"n":`, issues: 1},
		{name: "form coerced", decl: jsonDecl, contentType: "application/x-www-form-urlencoded", body: `n=3`, limit: 100,
			value: `{"n":3}`, raw: `n=3`},
		{name: "over the limit", decl: jsonDecl, contentType: "application/json", body: `{"n":12345}`, limit: 5,
			want: requestbody.TooLarge, raw: "-"},
		{name: "raw type streams", decl: jsonDecl, contentType: "application/octet-stream", body: `abc`, limit: 100,
			raw: "-", streams: true},
		{name: "raw type of an idempotent operation read whole", decl: jsonDecl, contentType: "application/octet-stream", body: `abc`, limit: 100, idempotent: true,
			raw: "abc"},
		{name: "required body missing", decl: jsonDecl, limit: 100, raw: "-", issues: 1},
		{name: "optional body missing", decl: `{"schema":{},"required":false}`, limit: 100, raw: "-"},
		{name: "multipart: fields coerced, files by name", decl: multipartDecl, contentType: multipartType, body: multipartBody("image/png"), limit: 1 << 10,
			value: `{"avatar":"a.png","n":3}`, raw: "-"},
		{name: "multipart: a part of a type its encoding does not allow", decl: multipartDecl, contentType: multipartType, body: multipartBody("text/plain"), limit: 1 << 10,
			value: `{"avatar":"a.png","n":3}`, raw: "-", issues: 1},
		{name: "multipart over the limit", decl: multipartDecl, contentType: multipartType, body: multipartBody("image/png"), limit: 10, want: requestbody.TooLarge, raw: "-"},
		{name: "undeclared body streams", contentType: "text/plain", body: "abc", limit: 100, raw: "-", streams: true},
		{name: "undeclared body over the limit", contentType: "text/plain", body: "abcdef", limit: 5, want: requestbody.TooLarge, raw: "-"},
		{name: "undeclared body of an idempotent operation read whole", contentType: "text/plain", body: "abc", limit: 100, idempotent: true, raw: "abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d *requestbody.Decl
			if tt.decl != "" {
				d = compile(t, tt.decl)
			}
			var r *http.Request
			if tt.body == "" {
				r = request(tt.contentType, "")
				r.Body, r.ContentLength = http.NoBody, 0
			} else {
				r = request(tt.contentType, tt.body)
			}
			var b requestbody.Body
			if d != nil && tt.body != "" && !b.Choose(d, tt.contentType) {
				t.Fatalf("Choose(%q) = false", tt.contentType)
			}
			var issues []validation.Issue
			o := requestbody.Options{Limit: tt.limit, JSON: jsonvalue.Limits{MaxDepth: 8, MaxValues: 100}, Idempotent: tt.idempotent, Logger: slog.New(slog.DiscardHandler), Route: "test.wasm"}
			if got := b.Take(r, d, o, &issues); got != tt.want {
				t.Fatalf("Take = %v, want %v", got, tt.want)
			}
			value := ""
			if v := b.Value(); v != nil {
				value = string(jsonvalue.AppendValue(nil, v))
			}
			if value != tt.value {
				t.Errorf("Value() = %s, want %s", value, tt.value)
			}
			raw := "-"
			if b.Raw() != nil {
				raw = string(b.Raw())
			}
			if raw != tt.raw {
				t.Errorf("Raw() = %q, want %q", raw, tt.raw)
			}
			if b.Streams() != tt.streams {
				t.Errorf("Streams() = %v, want %v", b.Streams(), tt.streams)
			}
			if len(issues) != tt.issues {
				t.Errorf("issues = %v, want %d of them", issues, tt.issues)
			}
			if err := b.Release(); err != nil {
				t.Errorf("Release: %v", err)
			}
		})
	}
}

func TestReadBodyStreamsWithinTheLimit(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		limit int64
		want  string
		errno abi.Errno
	}{
		{"under the limit", "abc", 5, "abc", 0},
		{"at the limit", "abcde", 5, "abcde", 0},
		{"past the limit", "abcdef", 5, "", abi.ErrBodyTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b requestbody.Body
			b.Stream(strings.NewReader(tt.body), tt.limit)
			dst := make([]byte, 16)
			n, errno := b.ReadBody(dst)
			if errno != tt.errno || string(dst[:n]) != tt.want {
				t.Errorf("ReadBody = %q, %v; want %q, %v", dst[:n], errno, tt.want, tt.errno)
			}
			if over := tt.errno != 0; b.OverLimit() != over {
				t.Errorf("OverLimit() = %v, want %v", b.OverLimit(), over)
			}
		})
	}
}

func TestDrainReportsABodyPastItsLimit(t *testing.T) {
	tests := []struct {
		body string
		want error
	}{
		{"abc", nil},
		{"abcdef", requestbody.ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			var b requestbody.Body
			b.Stream(strings.NewReader(tt.body), 5)
			if err := b.Drain(); !errors.Is(err, tt.want) {
				t.Errorf("Drain() = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestReadBodyFromTheBytesRead(t *testing.T) {
	d := compile(t, `{"schema":{}}`)
	var b requestbody.Body
	r := request("application/json", `[1,2,3]`)
	if !b.Choose(d, "application/json") {
		t.Fatal("Choose = false")
	}
	var issues []validation.Issue
	if got := b.Take(r, d, requestbody.Options{Limit: 100, JSON: jsonvalue.Limits{MaxDepth: 8, MaxValues: 100}}, &issues); got != requestbody.Read || issues != nil {
		t.Fatalf("Take = %v, %v", got, issues)
	}
	var got bytes.Buffer
	dst := make([]byte, 3)
	for {
		n, errno := b.ReadBody(dst)
		if errno != 0 {
			t.Fatalf("ReadBody: errno %v", errno)
		}
		if n == 0 {
			break
		}
		got.Write(dst[:n])
	}
	if got.String() != `[1,2,3]` {
		t.Errorf("read %q, want [1,2,3]", got.String())
	}
}

func TestDiscard(t *testing.T) {
	tests := []struct {
		name      string
		body      string
		length    int64
		expect    string
		wantLeft  int  // bytes left unread
		wantClose bool // Connection: close
	}{
		{"reads what is left", "abcdef", 6, "", 0, false},
		{"a 100-continue body never asked for is not read", "abcdef", 6, "100-continue", 6, false},
		{"too large to read: the connection closes", "abc", 17 << 20, "", 3, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := strings.NewReader(tt.body)
			r := httptest.NewRequest(http.MethodPost, "/", io.NopCloser(body))
			r.ContentLength = tt.length
			if tt.expect != "" {
				r.Header.Set("Expect", tt.expect)
			}
			w := httptest.NewRecorder()
			var b requestbody.Body
			b.Discard(w, r, 0)
			if body.Len() != tt.wantLeft {
				t.Errorf("left %d bytes unread, want %d", body.Len(), tt.wantLeft)
			}
			if got := w.Header().Get("Connection") == "close"; got != tt.wantClose {
				t.Errorf("Connection: close = %v, want %v", got, tt.wantClose)
			}
			// Discarded once: a second call reads nothing more.
			b.Discard(w, r, 0)
			if body.Len() != tt.wantLeft {
				t.Errorf("a second Discard read %d more bytes", tt.wantLeft-body.Len())
			}
		})
	}
}

func TestReadFile(t *testing.T) {
	d := compile(t, multipartDecl)
	var b requestbody.Body
	defer b.Release()
	if !b.Choose(d, multipartType) {
		t.Fatal("Choose = false")
	}
	var issues []validation.Issue
	o := requestbody.Options{Limit: 1 << 10, JSON: jsonvalue.Limits{MaxDepth: 8, MaxValues: 100}, Logger: slog.New(slog.DiscardHandler), Route: "test.wasm"}
	if got := b.Take(request(multipartType, multipartBody("image/png")), d, o, &issues); got != requestbody.Read || issues != nil {
		t.Fatalf("Take = %v, %v", got, issues)
	}
	tests := []struct {
		name  string
		index int32
		want  string
		errno abi.Errno
	}{
		{"the file", 0, "PNG", 0},
		{"read to its end", 0, "", 0},
		{"no such file", 1, "", abi.ErrNotFound},
		{"a negative index", -1, "", abi.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := make([]byte, 16)
			n, errno := b.ReadFile(tt.index, dst, slog.New(slog.DiscardHandler), "test.wasm")
			if errno != tt.errno || string(dst[:n]) != tt.want {
				t.Errorf("ReadFile(%d) = %q, %v; want %q, %v", tt.index, dst[:n], errno, tt.want, tt.errno)
			}
		})
	}
}
