package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/internal/routefile"
)

// notesRoutes are the routes of the notes app: `endpoints new route` adds
// each, and testdata/notes/LANG/NAME (NAME/main.go in Go) replaces the
// handler it scaffolds. NAME is the Go package `endpoints new route` names.
var notesRoutes = []struct{ route, name string }{
	{"GET /api/notes", "get-notes"},
	{"POST /api/notes", "post-notes"},
	{"GET /api/notes/:id", "get-notes-id"},
	{"DELETE /api/notes/:id", "delete-notes-id"},
}

// notesLanguages are the languages of `endpoints new --lang`, with the
// tool each build needs and the extension of its route sources.
var notesLanguages = []struct{ lang, tool, ext string }{
	{"go", "go", "go"},
	{"c", "clang", "c"},
	{"as", "npm", "ts"},
	{"rs", "rustc", "rs"},
}

// notesStep is one request of the shared script and the answer every
// language must give to it.
type notesStep struct {
	name          string
	method, path  string
	token         string // "dev": the token `endpoints token` mints; else sent as it is
	key           string // the Idempotency-Key, if any
	body          string // a body, if any: JSON unless contentType says otherwise
	contentType   string // the body's Content-Type when not application/json
	status        int
	want          string            // the body, byte for byte
	wantHeaders   map[string]string // headers the answer must carry, exactly
	sameJSONValue bool              // compare want as a JSON value (see notesHTMLText)
}

// notesText is a note with a quote, an apostrophe and characters beyond
// ASCII, which every SDK writes as the same bytes.
const notesText = `Ada's "first" note: é, ✓`

// notesHTMLText holds the characters encoding/json escapes and the other
// SDKs do not (<, >, &, U+2028): the Go SDK answers \u003c where the
// others answer <, the same JSON value in other bytes, so answers with it
// are compared as JSON values.
const notesHTMLText = "<b>bold</b> & \u2028"

// notesScript is the request script every language's notes app answers,
// in order: every route, bad input, missing and bad tokens, an idempotent
// create replayed and its key reused with another body, the int64 edge and
// the bounds of limit.
var notesScript = []notesStep{
	{name: "no notes yet", method: "GET", path: "/api/notes", status: 200, want: `{"notes":[]}`,
		wantHeaders: map[string]string{"Content-Type": "application/json"}},
	{name: "limit below its minimum", method: "GET", path: "/api/notes?limit=0", status: 400,
		want: `{"statusCode":400,"statusMessage":"Validation Error","data":{"query":[{"path":["limit"],"message":"must be greater than or equal to 1"}]}}`},
	{name: "limit above its maximum", method: "GET", path: "/api/notes?limit=101", status: 400,
		want: `{"statusCode":400,"statusMessage":"Validation Error","data":{"query":[{"path":["limit"],"message":"must be less than or equal to 100"}]}}`},
	{name: "limit not an integer", method: "GET", path: "/api/notes?limit=x", status: 400,
		want: `{"statusCode":400,"statusMessage":"Validation Error","data":{"query":[{"path":["limit"],"message":"expected integer, received string"}]}}`},
	{name: "create without a token", method: "POST", path: "/api/notes", key: "k0", body: `{"text":"x"}`, status: 401,
		want:        `{"statusCode":401,"statusMessage":"Unauthorized","data":{"schemes":["bearer"]}}`,
		wantHeaders: map[string]string{"Www-Authenticate": `Bearer realm="bearer"`}},
	{name: "create with a bad token", method: "POST", path: "/api/notes", token: "not-a-jwt", key: "k0", body: `{"text":"x"}`, status: 401,
		want: `{"statusCode":401,"statusMessage":"Unauthorized","data":{"error":"the token is not a JWT signed with ES256","schemes":["bearer"]}}`,
		wantHeaders: map[string]string{
			"Www-Authenticate": `Bearer realm="bearer", error="invalid_token", error_description="the token is not a JWT signed with ES256"`}},
	{name: "create without an Idempotency-Key", method: "POST", path: "/api/notes", token: "dev", body: `{"text":"x"}`, status: 400,
		want:        `{"type":"urn:endpoints:problem:idempotency-key-required","title":"Idempotency-Key required","status":400,"detail":"this operation needs an Idempotency-Key header: a unique key per operation the client means once, such as a UUID","code":"IDEMPOTENCY_KEY_REQUIRED"}`,
		wantHeaders: map[string]string{"Content-Type": "application/problem+json"}},
	{name: "create an empty note", method: "POST", path: "/api/notes", token: "dev", key: "k0", body: `{"text":""}`, status: 400,
		want: `{"statusCode":400,"statusMessage":"Validation Error","data":{"body":[{"path":["text"],"message":"must contain at least 1 character"}]}}`},
	{name: "create with an unknown member", method: "POST", path: "/api/notes", token: "dev", key: "k0", body: `{"text":"x","pinned":true}`, status: 400,
		want: `{"statusCode":400,"statusMessage":"Validation Error","data":{"body":[{"path":["pinned"],"message":"is not an allowed property"}]}}`},
	{name: "create with an Idempotency-Key too long", method: "POST", path: "/api/notes", token: "dev", key: strings.Repeat("k", 256), body: `{"text":"x"}`, status: 400,
		want:        `{"type":"urn:endpoints:problem:idempotency-key-invalid","title":"Invalid Idempotency-Key","status":400,"detail":"the key has 256 characters; at most 255 are allowed","code":"IDEMPOTENCY_KEY_INVALID"}`,
		wantHeaders: map[string]string{"Content-Type": "application/problem+json"}},
	{name: "create with a body that is not JSON", method: "POST", path: "/api/notes", token: "dev", key: "k0", body: `{"text":`, status: 400,
		want: `{"statusCode":400,"statusMessage":"Validation Error","data":{"body":[{"path":["text"],"message":"invalid JSON at byte 8: expected a value, found end of input"}]}}`},
	{name: "create with a body of another type", method: "POST", path: "/api/notes", token: "dev", key: "k0", body: "text=x", contentType: "text/plain", status: 415,
		want: `{"statusCode":415,"statusMessage":"Unsupported Media Type","data":{"received":"text/plain","supportedMediaTypes":["application/json"]}}`},
	{name: "a method no route serves", method: "PUT", path: "/api/notes", status: 405,
		want:        `{"statusCode":405,"statusMessage":"Method Not Allowed","data":{"allow":["GET","HEAD","OPTIONS","POST"],"method":"PUT"}}`,
		wantHeaders: map[string]string{"Allow": "GET, HEAD, OPTIONS, POST"}},
	{name: "create", method: "POST", path: "/api/notes", token: "dev", key: "k1", body: mustJSON(map[string]string{"text": notesText}), status: 201,
		want:        mustJSON(map[string]any{"id": 1, "text": notesText}),
		wantHeaders: map[string]string{"Location": "/api/notes/1", "Content-Type": "application/json", "Idempotent-Replayed": ""}},
	{name: "the create replayed", method: "POST", path: "/api/notes", token: "dev", key: "k1", body: mustJSON(map[string]string{"text": notesText}), status: 201,
		want:        mustJSON(map[string]any{"id": 1, "text": notesText}),
		wantHeaders: map[string]string{"Location": "/api/notes/1", "Idempotent-Replayed": "true"}},
	{name: "the key reused with another body", method: "POST", path: "/api/notes", token: "dev", key: "k1", body: `{"text":"another"}`, status: 422,
		want: `{"type":"urn:endpoints:problem:idempotency-key-reused","title":"Idempotency-Key reused","status":422,"detail":"this Idempotency-Key was used for a different request; use a new key for a new request","code":"IDEMPOTENCY_KEY_REUSED"}`},
	{name: "create a note of HTML characters", method: "POST", path: "/api/notes", token: "dev", key: "k2", body: mustJSON(map[string]string{"text": notesHTMLText}), status: 201,
		want: mustJSON(map[string]any{"id": 2, "text": notesHTMLText}), sameJSONValue: true,
		wantHeaders: map[string]string{"Location": "/api/notes/2"}},
	{name: "create a third", method: "POST", path: "/api/notes", token: "dev", key: "k3", body: `{"text":"third"}`, status: 201,
		want: `{"id":3,"text":"third"}`, wantHeaders: map[string]string{"Location": "/api/notes/3"}},
	{name: "get one", method: "GET", path: "/api/notes/1", status: 200, want: mustJSON(map[string]any{"id": 1, "text": notesText})},
	{name: "get the HTML one", method: "GET", path: "/api/notes/2", status: 200,
		want: mustJSON(map[string]any{"id": 2, "text": notesHTMLText}), sameJSONValue: true},
	{name: "delete without a token", method: "DELETE", path: "/api/notes/2", status: 401,
		want: `{"statusCode":401,"statusMessage":"Unauthorized","data":{"schemes":["bearer"]}}`},
	{name: "delete", method: "DELETE", path: "/api/notes/2", token: "dev", status: 204, want: ""},
	{name: "delete again", method: "DELETE", path: "/api/notes/2", token: "dev", status: 404, want: `{"message":"note 2 not found"}`},
	{name: "get the deleted one", method: "GET", path: "/api/notes/2", status: 404, want: `{"message":"note 2 not found"}`},
	{name: "list", method: "GET", path: "/api/notes", status: 200,
		want: mustJSON(map[string]any{"notes": []any{map[string]any{"id": 1, "text": notesText}, map[string]any{"id": 3, "text": "third"}}})},
	{name: "list at the least limit", method: "GET", path: "/api/notes?limit=1", status: 200,
		want: mustJSON(map[string]any{"notes": []any{map[string]any{"id": 1, "text": notesText}}})},
	{name: "list at the greatest limit", method: "GET", path: "/api/notes?limit=100", status: 200,
		want: mustJSON(map[string]any{"notes": []any{map[string]any{"id": 1, "text": notesText}, map[string]any{"id": 3, "text": "third"}}})},
	{name: "id zero", method: "GET", path: "/api/notes/0", status: 400,
		want: `{"statusCode":400,"statusMessage":"Validation Error","data":{"params":[{"path":["id"],"message":"must be greater than or equal to 1"}]}}`},
	{name: "id not an integer", method: "GET", path: "/api/notes/abc", status: 400,
		want: `{"statusCode":400,"statusMessage":"Validation Error","data":{"params":[{"path":["id"],"message":"expected integer, received string"}]}}`},
	{name: "the greatest int64 id", method: "GET", path: "/api/notes/9223372036854775807", status: 404,
		want: `{"message":"note 9223372036854775807 not found"}`},
	{name: "an id beyond int64", method: "GET", path: "/api/notes/9223372036854775808", status: 400,
		want: `{"statusCode":400,"statusMessage":"Validation Error","data":{"params":[{"path":["id"],"message":"must be less than or equal to 9223372036854775807"}]}}`},
	{name: "delete an id beyond int64", method: "DELETE", path: "/api/notes/9223372036854775808", token: "dev", status: 400,
		want: `{"statusCode":400,"statusMessage":"Validation Error","data":{"params":[{"path":["id"],"message":"must be less than or equal to 9223372036854775807"}]}}`},
}

// notesAnswer is what an app answered to a step: compared across languages.
type notesAnswer struct {
	Status  int
	Headers http.Header // without Date and X-Request-Id, which differ by request
	Body    string
}

// TestNotesEveryLanguage is issue 27's proof: for Go, C, AssemblyScript
// and Rust it scaffolds an app with `endpoints new --lang`, adds the four
// routes of a notes API with `endpoints new route`, puts the handlers of
// testdata/notes over the scaffolded ones (notes in the app's SQLite
// database), builds with `endpoints build`, serves the app and runs the
// one request script notesScript against it, every answer checked
// against the route's contract by the host (responseValidation: always).
// Every language must answer each step as the script says, and all four
// the same statuses, headers and bytes.
func TestNotesEveryLanguage(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds a notes app in Go, C, AssemblyScript and Rust (a minute or two: AssemblyScript and Rust compile slowly)")
	}
	t.Parallel()
	var mu sync.Mutex
	answers := map[string][]notesAnswer{}
	t.Run("languages", func(t *testing.T) {
		for _, l := range notesLanguages {
			t.Run(l.lang, func(t *testing.T) {
				t.Parallel()
				needTool(t, l.tool)
				got := notesApp(t, l.lang, l.ext)
				mu.Lock()
				answers[l.lang] = got
				mu.Unlock()
			})
		}
	})
	if t.Failed() || len(answers) < 2 {
		return
	}
	base := notesLanguages[0].lang
	if _, ok := answers[base]; !ok {
		return // skipped: go is missing outside CI
	}
	for _, l := range notesLanguages[1:] {
		got, ok := answers[l.lang]
		if !ok {
			continue // skipped: its tool is missing outside CI
		}
		for i, s := range notesScript {
			a, b := answers[base][i], got[i]
			if s.sameJSONValue {
				a.Body, b.Body = canonicalJSON(a.Body), canonicalJSON(b.Body)
				a.Headers, b.Headers = a.Headers.Clone(), b.Headers.Clone()
				a.Headers.Del("Content-Length")
				b.Headers.Del("Content-Length")
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s: %s answers\n%d %v %s\nwhere %s answers\n%d %v %s", s.name, l.lang, b.Status, b.Headers, b.Body, base, a.Status, a.Headers, a.Body)
			}
		}
	}
}

// notesApp makes, builds and serves the notes app in lang and returns its
// answers to notesScript, having checked each.
func notesApp(t *testing.T, lang, ext string) []notesAnswer {
	app := filepath.Join(t.TempDir(), "notes-"+lang)
	if code, out, errOut := runCLI("new", "--lang", lang, app); code != exitOK {
		t.Fatalf("endpoints new --lang %s = %d\n%s\n%s", lang, code, out, errOut)
	}
	for _, r := range notesRoutes {
		if code, out, errOut := runCLI("new", "route", app, r.route); code != exitOK {
			t.Fatalf("endpoints new route %s = %d\n%s\n%s", r.route, code, out, errOut)
		}
		// The handler goes over the file the scaffold wrote, which must
		// be where the language's sources of that route live.
		src, scaffolded := filepath.Join("testdata", "notes", lang, r.name+"."+ext), ""
		if lang == "go" {
			src = filepath.Join("testdata", "notes", "go", r.name, "main.go")
			scaffolded = filepath.Join(app, handlersDir, r.name, "main.go")
			// The scaffold's test checks the scaffold's answer.
			if err := os.Remove(filepath.Join(app, handlersDir, r.name, "main_test.go")); err != nil {
				t.Fatal(err)
			}
		} else {
			rf, err := routefile.FromRoute(r.route)
			if err != nil {
				t.Fatal(err)
			}
			scaffolded = filepath.Join(app, filepath.FromSlash(strings.TrimSuffix(rf.File, routefile.Extension)+"."+ext))
		}
		copyOver(t, src, scaffolded)
	}
	switch lang {
	case "rs":
		checkCargo(t, app) // the handlers resolve in rust-analyzer, with Cargo.toml's [[example]]s
	case "c":
		checkCompileFlags(t, app) // and in clangd, with compile_flags.txt
	}
	// The notes app has no use for the scaffold's GET /api/hello, which
	// TestNewEveryLanguage serves: without it, AssemblyScript and Rust
	// compile one route less.
	hello := filepath.Join(app, "server", "api", "hello.get."+ext)
	if lang == "go" {
		hello = filepath.Join(app, handlersDir, "hello")
	}
	if err := os.RemoveAll(hello); err != nil {
		t.Fatal(err)
	}
	migration := filepath.Join(app, "server", "migrations", "001-notes.sql")
	if err := os.MkdirAll(filepath.Dir(migration), 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join("testdata", "notes", "001-notes.sql"), migration)

	start := time.Now()
	if code, out, errOut := runCLI("build", app); code != exitOK {
		t.Fatalf("endpoints build = %d\n%s\n%s", code, out, errOut)
	}
	t.Logf("endpoints build of the %s app took %s", lang, time.Since(start).Round(time.Millisecond))
	code, token, errOut := runCLI("token", app, "--sub", "alice")
	if code != exitOK {
		t.Fatalf("endpoints token = %d\n%s", code, errOut)
	}
	token = strings.TrimSpace(token)

	// Every answer is checked against the contract of its language too.
	addr, _, cancel, _, stderr, done := startCLIFlags(t, "serve", app, []string{"--set", "responseValidation=always"})
	answers := make([]notesAnswer, 0, len(notesScript))
	for _, s := range notesScript {
		a := notesCall(t, addr, token, s)
		answers = append(answers, a)
		body := a.Body
		want := s.want
		if s.sameJSONValue {
			body, want = canonicalJSON(body), canonicalJSON(want)
		}
		if a.Status != s.status || body != want {
			t.Errorf("%s: %s %s = %d %s\nwant %d %s", s.name, s.method, s.path, a.Status, a.Body, s.status, s.want)
		}
		for name, v := range s.wantHeaders {
			if got := a.Headers.Get(name); got != v {
				t.Errorf("%s: %s %s: %s = %q, want %q", s.name, s.method, s.path, name, got, v)
			}
		}
	}
	cancel()
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("serve exited %d\n%s", code, stderr.String())
		}
	case <-time.After(stopWithin):
		t.Fatalf("serve did not stop within %s", stopWithin)
	}
	if t.Failed() {
		t.Logf("serve's log:\n%s", stderr.String())
	}
	return answers
}

// notesCall sends one step of the script to the app at addr.
func notesCall(t *testing.T, addr, token string, s notesStep) notesAnswer {
	t.Helper()
	var body io.Reader
	if s.body != "" {
		body = strings.NewReader(s.body)
	}
	req, err := http.NewRequest(s.method, addr+s.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if s.body != "" {
		req.Header.Set("Content-Type", cmp.Or(s.contentType, "application/json"))
	}
	switch s.token {
	case "":
	case "dev":
		req.Header.Set("Authorization", "Bearer "+token)
	default:
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	if s.key != "" {
		req.Header.Set("Idempotency-Key", s.key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", s.name, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s: reading the answer: %v", s.name, err)
	}
	h := res.Header.Clone()
	h.Del("Date")
	h.Del("X-Request-Id")
	return notesAnswer{Status: res.StatusCode, Headers: h, Body: string(b)}
}

// canonicalJSON is text as JSON encoded without HTML escapes, or text
// itself when it is not JSON.
func canonicalJSON(text string) string {
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return text
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("a decoded JSON value does not encode: %v", err))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// copyOver replaces the file dst, which must exist, with src.
func copyOver(t *testing.T, src, dst string) {
	t.Helper()
	if _, err := os.Stat(dst); err != nil {
		t.Fatalf("the scaffold wrote no %s: %v", dst, err)
	}
	copyFile(t, src, dst)
}

// copyFile writes the content of src to dst.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
