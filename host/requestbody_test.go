package host_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/textproto"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/host"
)

// bodiesContract accepts one body in five ways.
const bodiesContract = `{
 "request": {"body": {"content": {
  "application/json": {"schema": {"$ref": "#/$defs/Item"}},
  "application/x-www-form-urlencoded": {"schema": {"$ref": "#/$defs/Item"}},
  "multipart/form-data": {
    "schema": {"type": "object", "properties": {
      "name": {"type": "string", "minLength": 1},
      "qty": {"type": "integer"},
      "photo": {"type": "string", "contentMediaType": "image/png"}
    }, "required": ["name", "photo"]},
    "encoding": {"photo": {"contentType": "image/png, image/jpeg"}}
  },
  "text/*": {},
  "application/octet-stream": {}
 }, "maxBytes": 4096}},
 "$defs": {"Item": {"type": "object", "properties": {
   "name": {"type": "string", "minLength": 1},
   "qty": {"type": "integer", "default": 1},
   "tags": {"type": "array", "items": {"type": "string"}}
 }, "required": ["name"], "additionalProperties": false}}
}`

// echoAll answers the envelope, the raw body and the contents of file 0,
// separated by the ASCII record separator 0x1e.
const echoAll = `(local.set $n (call $request_read (i32.const 65536) (i32.const 65536)))
    (drop (call $write (i32.const 65536) (local.get $n)))
    (drop (call $write (i32.const 2048) (i32.const 1)))
    (block $done (loop $more
      (local.set $n (call $body_read (i32.const 131072) (i32.const 1000)))
      (br_if $done (i32.le_s (local.get $n) (i32.const 0)))
      (drop (call $write (i32.const 131072) (local.get $n)))
      (br $more)))
    (drop (call $write (i32.const 2048) (i32.const 1)))
    (block $done2 (loop $more2
      (local.set $n (call $file_read (i32.const 0) (i32.const 131072) (i32.const 1000)))
      (br_if $done2 (i32.le_s (local.get $n) (i32.const 0)))
      (drop (call $write (i32.const 131072) (local.get $n)))
      (br $more2)))
    (i32.const 0)`

const separator = `  (data (i32.const 2048) "\1e")` + "\n"

// part is one part of a multipart test body.
type part struct {
	name, filename, contentType, content string
}

// multipartBody encodes parts with boundary "b0undary".
func multipartBody(t testing.TB, parts ...part) string {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if err := w.SetBoundary("b0undary"); err != nil {
		t.Fatal(err)
	}
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		cd := `form-data; name="` + p.name + `"`
		if p.filename != "-" && (p.filename != "" || p.contentType != "") {
			cd += `; filename="` + p.filename + `"`
		}
		h.Set("Content-Disposition", cd)
		if p.contentType != "" {
			h.Set("Content-Type", p.contentType)
		}
		pw, err := w.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		pw.Write([]byte(p.content))
	}
	w.Close()
	return buf.String()
}

func TestRequestMediaTypes(t *testing.T) {
	srv, _ := newApp(t).
		wat("server/api/items.post.wasm", watModule{contract: bodiesContract, handle: echoAll, extra: separator}).
		serve(host.Options{})
	const mp = "multipart/form-data; boundary=b0undary"
	png := "\x89PNG\r\n\x1a\nfake image bytes"
	tests := []struct {
		name        string
		contentType string
		body        string
		wantStatus  int
		// wantEnvelope is compared by value, after the kind, method,
		// route and path members are dropped; for a refusal it is the
		// whole answer.
		wantEnvelope string
		wantRaw      string // the bytes body_read gave
		wantFile     string // the bytes of file 0
	}{
		{
			name: "JSON is parsed and validated", contentType: "application/json", body: `{"name":"pen"}`,
			wantStatus: 200, wantEnvelope: `{"params":{},"query":{},"headers":{},"contentType":"application/json","body":{"name":"pen","qty":1}}`,
			wantRaw: `{"name":"pen"}`,
		},
		{
			name: "a form is decoded, coerced like a query and defaulted", contentType: "application/x-www-form-urlencoded",
			body:       "name=pen+case&tags=a&tags=b%2Fc",
			wantStatus: 200, wantEnvelope: `{"params":{},"query":{},"headers":{},"contentType":"application/x-www-form-urlencoded","body":{"name":"pen case","qty":1,"tags":["a","b/c"]}}`,
			wantRaw: "name=pen+case&tags=a&tags=b%2Fc",
		},
		{
			name: "a form value of the wrong type names its field", contentType: "application/x-www-form-urlencoded", body: "name=pen&qty=many",
			wantStatus:   400,
			wantEnvelope: `{"statusCode":400,"statusMessage":"Validation Error","data":{"body":[{"path":["qty"],"message":"expected integer, received string"}]}}`,
		},
		{
			name: "a malformed form says so", contentType: "application/x-www-form-urlencoded", body: "name=%zz",
			wantStatus:   400,
			wantEnvelope: `{"statusCode":400,"statusMessage":"Validation Error","data":{"body":[{"path":[],"message":"the form body is malformed: invalid URL escape \"%zz\""}]}}`,
		},
		{
			name: "multipart fields are validated and files listed", contentType: mp,
			body:       multipartBody(t, part{name: "name", content: "Ada"}, part{name: "qty", content: "2"}, part{name: "photo", filename: "me.png", contentType: "image/png", content: png}),
			wantStatus: 200,
			wantEnvelope: `{"params":{},"query":{},"headers":{},"contentType":"multipart/form-data","body":{"name":"Ada","qty":2,"photo":"me.png"},
				"files":[{"name":"photo","filename":"me.png","contentType":"image/png","size":24}]}`,
			wantFile: png,
		},
		{
			name: "a file part of a type the encoding does not list is refused", contentType: mp,
			body:         multipartBody(t, part{name: "name", content: "Ada"}, part{name: "photo", filename: "notes.txt", contentType: "text/plain", content: "hi"}),
			wantStatus:   400,
			wantEnvelope: `{"statusCode":400,"statusMessage":"Validation Error","data":{"body":[{"path":["photo"],"message":"part 1 of field \"photo\" is text/plain; want image/png or image/jpeg"}]}}`,
		},
		{
			name: "a file input left empty counts as absent", contentType: mp,
			body:         multipartBody(t, part{name: "name", content: "Ada"}, part{name: "photo", filename: "", contentType: "application/octet-stream"}),
			wantStatus:   400,
			wantEnvelope: `{"statusCode":400,"statusMessage":"Validation Error","data":{"body":[{"path":["photo"],"message":"is required"}]}}`,
		},
		{
			name: "multipart without a boundary", contentType: "multipart/form-data", body: "--x--",
			wantStatus:   400,
			wantEnvelope: `{"statusCode":400,"statusMessage":"Validation Error","data":{"body":[{"path":[],"message":"the Content-Type \"multipart/form-data\" has no boundary parameter (RFC 7578 §4.1)"}]}}`,
		},
		{
			name: "a multipart body cut short", contentType: mp, body: "--b0undary\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nAda",
			wantStatus:   400,
			wantEnvelope: `{"statusCode":400,"statusMessage":"Validation Error","data":{"body":[{"path":[],"message":"the multipart body ends before its closing boundary"}]}}`,
		},
		{
			name: "text matches text/* and streams raw", contentType: "text/csv; charset=utf-8", body: "id,name\n1,Ada\n",
			wantStatus: 200, wantEnvelope: `{"params":{},"query":{},"headers":{},"contentType":"text/csv"}`,
			wantRaw: "id,name\n1,Ada\n",
		},
		{
			name: "octet-stream streams raw", contentType: "application/octet-stream", body: "\x00\x01\x02",
			wantStatus: 200, wantEnvelope: `{"params":{},"query":{},"headers":{},"contentType":"application/octet-stream"}`,
			wantRaw: "\x00\x01\x02",
		},
		{
			name: "an undeclared type is 415 with the supported list", contentType: "image/gif", body: "GIF89a",
			wantStatus: 415,
			wantEnvelope: `{"statusCode":415,"statusMessage":"Unsupported Media Type","data":{"received":"image/gif",
				"supportedMediaTypes":["application/json","application/octet-stream","application/x-www-form-urlencoded","multipart/form-data","text/*"]}}`,
		},
		{
			name: "JSON with charset=UTF-8 is read", contentType: "application/json; charset=UTF-8", body: `{"name":"pen"}`,
			wantStatus: 200, wantEnvelope: `{"params":{},"query":{},"headers":{},"contentType":"application/json","body":{"name":"pen","qty":1}}`,
			wantRaw: `{"name":"pen"}`,
		},
		{
			name: "JSON in UTF-16 is 415", contentType: "application/json; charset=utf-16", body: "{\x00}\x00",
			wantStatus: 415,
			wantEnvelope: `{"statusCode":415,"statusMessage":"Unsupported Media Type","data":{"received":"application/json; charset=utf-16",
				"supportedMediaTypes":["application/json","application/octet-stream","application/x-www-form-urlencoded","multipart/form-data","text/*"]}}`,
		},
		{
			name: "JSON in another charset is 415", contentType: "application/json; charset=latin1", body: `{"name":"pen"}`,
			wantStatus: 415,
			wantEnvelope: `{"statusCode":415,"statusMessage":"Unsupported Media Type","data":{"received":"application/json; charset=latin1",
				"supportedMediaTypes":["application/json","application/octet-stream","application/x-www-form-urlencoded","multipart/form-data","text/*"]}}`,
		},
		{
			name: "no body lists what is accepted", wantStatus: 400,
			wantEnvelope: `{"statusCode":400,"statusMessage":"Validation Error","data":{"body":[{"path":[],
				"message":"a request body is required (application/json, application/octet-stream, application/x-www-form-urlencoded, multipart/form-data, text/*)"}]}}`,
		},
		{
			name: "maxBytes bounds a multipart body", contentType: mp,
			body:         multipartBody(t, part{name: "name", content: "Ada"}, part{name: "photo", filename: "big.png", contentType: "image/png", content: strings.Repeat("x", 5000)}),
			wantStatus:   413,
			wantEnvelope: `{"statusCode":413,"statusMessage":"Request Entity Too Large","data":{"limit":4096}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var headers []string
			if tt.contentType != "" {
				headers = []string{"Content-Type", tt.contentType}
			}
			res := do(t, srv, "POST", "/api/items", tt.body, headers...)
			if res.status != tt.wantStatus {
				t.Fatalf("status = %d, want %d; body %s", res.status, tt.wantStatus, res.body)
			}
			if res.status != 200 {
				if !jsonEqual(t, res.body, tt.wantEnvelope) {
					t.Errorf("body = %s\nwant %s", res.body, tt.wantEnvelope)
				}
				return
			}
			fields := strings.Split(res.body, "\x1e")
			if len(fields) != 3 {
				t.Fatalf("answer %q: want envelope, body and file separated by 0x1e", res.body)
			}
			envelope, raw, file := fields[0], fields[1], fields[2]
			var env map[string]any
			if err := json.Unmarshal([]byte(envelope), &env); err != nil {
				t.Fatalf("envelope %q: %v", envelope, err)
			}
			if id, _ := env["requestId"].(string); !generatedRequestID.MatchString(id) {
				t.Errorf("requestId = %q, want 24 hexadecimal digits the host made", id)
			}
			for _, k := range []string{"kind", "method", "route", "path", "requestId"} {
				delete(env, k)
			}
			b, _ := json.Marshal(env)
			if got := string(b); !jsonEqual(t, got, tt.wantEnvelope) {
				t.Errorf("envelope = %s\nwant       %s", got, tt.wantEnvelope)
			}
			if raw != tt.wantRaw {
				t.Errorf("body_read gave %q, want %q", raw, tt.wantRaw)
			}
			if file != tt.wantFile {
				t.Errorf("file_read(0) gave %q, want %q", file, tt.wantFile)
			}
		})
	}
}

// TestUploadLargerThanMemoryIsServedFromDisk: a file past the in-memory
// budget is kept in a temporary file and still reads back whole.
func TestUploadLargerThanMemoryIsServedFromDisk(t *testing.T) {
	const contract = `{"request": {"body": {"content": {"multipart/form-data": {}}, "maxBytes": 4000000}}}`
	srv, _ := newApp(t).
		wat("server/api/upload.post.wasm", watModule{contract: contract, handle: echoAll, extra: separator}).
		serve(host.Options{})
	spill := t.TempDir()
	t.Setenv("TMPDIR", spill)
	big := strings.Repeat("0123456789abcdef", 3<<16) // 3 MiB
	res := do(t, srv, "POST", "/api/upload", multipartBody(t, part{name: "f", filename: "big.bin", content: big}), "Content-Type", "multipart/form-data; boundary=b0undary")
	if res.status != 200 {
		t.Fatalf("status = %d: %s", res.status, res.body)
	}
	fields := strings.Split(res.body, "\x1e")
	if got := fields[len(fields)-1]; got != big {
		t.Errorf("file_read gave %d bytes, want the %d sent", len(got), len(big))
	}
	if !strings.Contains(res.body, `"files":[{"name":"f","filename":"big.bin","contentType":"application/octet-stream","size":3145728}]`) {
		t.Errorf("envelope does not list the file: %.300s", res.body)
	}
	// The temporary file goes when the call ends, just after the answer.
	var left []os.DirEntry
	if !waitFor(t, 10*time.Second, func() bool { left, _ = os.ReadDir(spill); return len(left) == 0 }) {
		t.Errorf("temporary files left after the call: %v", left)
	}
}

func TestRequestMediaTypeLoadErrors(t *testing.T) {
	tests := []struct{ name, contract, want string }{
		{"encoding on a form", `{"request":{"body":{"content":{"application/x-www-form-urlencoded":{"encoding":{"a":{"contentType":"text/plain"}}}}}}}`,
			`encoding applies to the parts of a multipart/form-data body`},
		{"bad encoding type", `{"request":{"body":{"content":{"multipart/form-data":{"encoding":{"a":{"contentType":"image"}}}}}}}`,
			`/request/body/content/multipart~1form-data/encoding/a/contentType`},
		{"maxBytes zero", `{"request":{"body":{"schema":{},"maxBytes":0}}}`, `/request/body/maxBytes`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newApp(t).wat("server/api/x.post.wasm", watModule{contract: tt.contract, handle: plainOK, extra: okData})
			_, err := host.New(context.Background(), a.dir, host.Options{CacheDir: testCacheDir(t)})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// hook is an onValidationError export in WAT.
func hook(body string) string {
	return `  (func (export "endpoints_on_validation_error") (result i32) (local $n i32) ` + body + ")\n" +
		`  (data (i32.const 3000) "x-hook")` + "\n" +
		`  (data (i32.const 3010) "endpoint")` + "\n"
}

// Hook bodies: answer with the envelope under a status, decline, trap.
func hookAnswers(status int) string {
	return `(drop (call $set_status (i32.const ` + itoa(status) + `)))
    (drop (call $set_header (i32.const 3000) (i32.const 6) (i32.const 3010) (i32.const 8)))
    (local.set $n (call $request_read (i32.const 65536) (i32.const 65536)))
    (drop (call $write (i32.const 65536) (local.get $n)))
    (i32.const 0)`
}

const (
	hookDeclines = `(i32.const 1)`
	hookTraps    = `(unreachable)`
)

// runtimeWithHook is a runtime declaration module declaring the app-wide
// hook, which answers 400 with the envelope and x-hook: app.
func runtimeWithHook() string {
	var b strings.Builder
	b.WriteString("(module\n" + watImports + "  (memory (export \"memory\") 4)\n")
	b.WriteString("  (func (export \"endpoints_abi_version\") (result i32) (i32.const 1))\n")
	decl := `{"onValidationError":true}`
	fmt.Fprintf(&b, "  (data (i32.const 1024) \"%s\")\n", watString(decl))
	fmt.Fprintf(&b, "  (func (export \"endpoints_runtime\") (result i64) (i64.const %d))\n", int64(1024)<<32|int64(len(decl)))
	b.WriteString(`  (data (i32.const 3000) "x-hook")
  (data (i32.const 3010) "app")
  (func (export "endpoints_on_validation_error") (result i32) (local $n i32)
    (drop (call $set_header (i32.const 3000) (i32.const 6) (i32.const 3010) (i32.const 3)))
    (local.set $n (call $request_read (i32.const 65536) (i32.const 65536)))
    (drop (call $write (i32.const 65536) (local.get $n)))
    (i32.const 0))
`)
	b.WriteString(")\n")
	return b.String()
}

// hookContract validates a query parameter, accepts JSON bodies and
// offers two media types, so each kind of failure can be provoked.
func hookContract(flag bool, extraResponses string) string {
	return `{
 "request": {"query": {"type":"object","properties":{"limit":{"type":"integer","maximum":10}}},
             "body": {"schema": {"type":"object"}, "required": false}},
 "responses": {"200": {"media": ["text/plain", "text/csv"]}` + extraResponses + `},
 "onValidationError": ` + fmt.Sprint(flag) + `}`
}

func TestOnValidationError(t *testing.T) {
	const declared = `, "400": {"schema": {"type":"object"}}, "406": {"schema": {"type":"object"}}, "415": {"schema": {"type":"object"}}, "422": {"schema": {"type":"object"}}`
	a := newApp(t).
		wat("server/api/answers.post.wasm", watModule{contract: hookContract(true, declared), handle: plainOK, extra: okData + hook(hookAnswers(422))}).
		wat("server/api/undeclared.post.wasm", watModule{contract: hookContract(true, ""), handle: plainOK, extra: okData + hook(hookAnswers(418))}).
		wat("server/api/declines.post.wasm", watModule{contract: hookContract(true, declared), handle: plainOK, extra: okData + hook(hookDeclines)}).
		wat("server/api/traps.post.wasm", watModule{contract: hookContract(true, declared), handle: plainOK, extra: okData + hook(hookTraps)}).
		wat("server/api/none.post.wasm", watModule{contract: hookContract(false, declared), handle: plainOK, extra: okData})
	withApp := *a
	srv, logs := a.serve(host.Options{Mode: host.Development})

	tests := []struct {
		name       string
		path       string
		headers    []string
		body       string
		wantStatus int
		wantHook   string // the x-hook header: who answered
		wantError  string // the envelope's error member, compared by value; or the whole body for the default
	}{
		{
			name: "schema failure replaced by the endpoint", path: "/api/answers?limit=99", wantStatus: 422, wantHook: "endpoint",
			wantError: `{"kind":"schema","status":400,"part":"query","issues":{"query":[{"path":["limit"],"message":"must be less than or equal to 10"}]},
				"default":{"statusCode":400,"statusMessage":"Validation Error","data":{"query":[{"path":["limit"],"message":"must be less than or equal to 10"}]}}}`,
		},
		{
			name: "media type failure replaced by the endpoint", path: "/api/answers", headers: []string{"Content-Type", "text/xml"}, body: "<a/>",
			wantStatus: 422, wantHook: "endpoint",
			wantError: `{"kind":"media-type","status":415,"part":"body","received":"text/xml","supportedMediaTypes":["application/json"],
				"default":{"statusCode":415,"statusMessage":"Unsupported Media Type","data":{"received":"text/xml","supportedMediaTypes":["application/json"]}}}`,
		},
		{
			name: "accept failure replaced by the endpoint", path: "/api/answers", headers: []string{"Accept", "image/png"},
			wantStatus: 422, wantHook: "endpoint",
			wantError: `{"kind":"accept","status":406,"part":"headers","received":"image/png","supportedMediaTypes":["text/plain","text/csv"],
				"default":{"statusCode":406,"statusMessage":"Not Acceptable","data":{"received":"image/png","supportedMediaTypes":["text/plain","text/csv"]}}}`,
		},
		{
			name: "an undeclared replacement status is a contract error in development", path: "/api/undeclared?limit=99", wantStatus: 500,
			wantError: `{"statusCode":500,"statusMessage":"Response Contract Error","data":{"status":418,"issues":[{"path":[],"message":"status 418 is not declared in the contract (declared: 200): declare it in the operation's responses (Go: Operation.Responses) or, for many routes, in server/routes.config.json"}]}}`,
		},
		{
			name: "a declining hook leaves the default", path: "/api/declines?limit=99", wantStatus: 400,
			wantError: `{"statusCode":400,"statusMessage":"Validation Error","data":{"query":[{"path":["limit"],"message":"must be less than or equal to 10"}]}}`,
		},
		{
			name: "a trapping hook leaves the default", path: "/api/traps?limit=99", wantStatus: 400,
			wantError: `{"statusCode":400,"statusMessage":"Validation Error","data":{"query":[{"path":["limit"],"message":"must be less than or equal to 10"}]}}`,
		},
		{
			name: "valid requests never reach the hook", path: "/api/answers?limit=5", wantStatus: 200,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := do(t, srv, "POST", tt.path, tt.body, tt.headers...)
			if res.status != tt.wantStatus {
				t.Fatalf("status = %d, want %d: %s", res.status, tt.wantStatus, res.body)
			}
			if got := res.header.Get("X-Hook"); got != tt.wantHook {
				t.Errorf("x-hook = %q, want %q", got, tt.wantHook)
			}
			if tt.wantHook == "" {
				if tt.wantError != "" && !jsonEqual(t, res.body, tt.wantError) {
					t.Errorf("body = %s\nwant %s", res.body, tt.wantError)
				}
				return
			}
			var env struct {
				Kind   string          `json:"kind"`
				Route  string          `json:"route"`
				Params json.RawMessage `json:"params"`
				Error  json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal([]byte(res.body), &env); err != nil {
				t.Fatalf("hook answer %q: %v", res.body, err)
			}
			if env.Params != nil {
				t.Errorf("the hook's envelope has params %s; parts that failed must be absent", env.Params)
			}
			if !jsonEqual(t, string(env.Error), tt.wantError) {
				t.Errorf("error = %s\nwant    %s", env.Error, tt.wantError)
			}
		})
	}
	if !strings.Contains(logs.String(), "onValidationError failed") {
		t.Errorf("the trapping hook was not logged:\n%s", logs.String())
	}

	t.Run("the app's hook answers after the endpoint declines", func(t *testing.T) {
		srv, _ := withApp.watSource("server/endpoints/runtime.wasm", runtimeWithHook()).serve(host.Options{Mode: host.Development})
		for path, want := range map[string]string{
			"/api/answers?limit=99":  "endpoint",
			"/api/declines?limit=99": "app",
			"/api/traps?limit=99":    "app",
			"/api/none?limit=99":     "app",
		} {
			res := do(t, srv, "POST", path, "")
			if got := res.header.Get("X-Hook"); got != want {
				t.Errorf("POST %s: answered by %q, want %q (status %d, %s)", path, got, want, res.status, res.body)
			}
		}
	})
}

func TestOnValidationErrorLoadErrors(t *testing.T) {
	t.Run("endpoint flag without export", func(t *testing.T) {
		a := newApp(t).wat("server/api/x.post.wasm", watModule{contract: hookContract(true, ""), handle: plainOK, extra: okData})
		_, err := host.New(context.Background(), a.dir, host.Options{CacheDir: testCacheDir(t)})
		if want := `server/api/x.post.wasm: contract: /onValidationError: true, but the module does not export "endpoints_on_validation_error"`; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("New error = %v, want it to contain %q", err, want)
		}
	})
	t.Run("runtime flag without export", func(t *testing.T) {
		a := newApp(t).wat("server/api/hello.get.wasm", helloModule).
			watSource("server/endpoints/runtime.wasm", runtimeWAT(`{"onValidationError":true}`, ""))
		_, err := host.New(context.Background(), a.dir, host.Options{CacheDir: testCacheDir(t)})
		if want := `server/endpoints/runtime.wasm: the declaration says onValidationError, but the module does not export "endpoints_on_validation_error"`; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("New error = %v, want it to contain %q", err, want)
		}
	})
}

// generatedRequestID is the form of a request id the host makes.
var generatedRequestID = regexp.MustCompile(`^[0-9a-f]{24}$`)
