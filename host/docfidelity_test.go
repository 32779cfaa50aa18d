package host_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/database/databasetest"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/apikeys"
)

// answeredDocument is the document a host serves, read to judge the
// answers it gives: each must validate against the schema the document
// lists for its operation and status.
type answeredDocument struct {
	raw      []byte
	compiler *jsonschema.Compiler
	doc      struct {
		Paths      map[string]map[string]struct{ Responses map[string]listedResponse }
		Components struct{ Responses map[string]listedResponse }
	}
}

// listedResponse is what the document says of a response: its own, or a
// reference to one of components/responses (the host's shared 500 and
// 503).
type listedResponse struct {
	Ref     string `json:"$ref"`
	Content map[string]struct {
		Example json.RawMessage
	}
	Headers map[string]json.RawMessage
}

// response returns the response the document lists for status on the
// operation, a shared one followed, and the JSON pointer of its
// definition.
func (d *answeredDocument) response(method, path string, status int) (listedResponse, string, bool) {
	r, ok := d.doc.Paths[path][strings.ToLower(method)].Responses[fmt.Sprint(status)]
	if !ok {
		return r, "", false
	}
	if name, shared := strings.CutPrefix(r.Ref, "#/components/responses/"); shared {
		r, ok = d.doc.Components.Responses[name]
		return r, "/components/responses/" + name, ok
	}
	return r, fmt.Sprintf("/paths/%s/%s/responses/%d", strings.ReplaceAll(path, "/", "~1"), strings.ToLower(method), status), true
}

func readAnsweredDocument(t *testing.T, doc []byte) *answeredDocument {
	t.Helper()
	d := &answeredDocument{raw: doc, compiler: jsonschema.NewCompiler()}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	d.compiler.DefaultDraft(jsonschema.Draft2020)
	if err := d.compiler.AddResource("file:///openapi.json", v); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(doc, &d.doc); err != nil {
		t.Fatal(err)
	}
	return d
}

// listsDatabase503 reports whether the document lists the 503 of a
// database on the operation: every operation lists the host's 503 (no
// instance in time, shutting down); one that can use a database says
// so, in the 503's description and its Retry-After's.
func (d *answeredDocument) listsDatabase503(method, path string) bool {
	r, _, ok := d.response(method, path, 503)
	return ok && bytes.Contains(r.Headers["Retry-After"], []byte("the database"))
}

// check fails t unless the document lists res's status on the
// operation, its JSON body validates against the schema listed, it
// carries every header listed as required, and,
// when exact, the body is the example listed (the same JSON value: the
// document sorts the members of its objects).
func (d *answeredDocument) check(t *testing.T, method, path string, res response, exact bool) {
	t.Helper()
	status := fmt.Sprint(res.status)
	r, at, ok := d.response(method, path, res.status)
	if !ok {
		t.Errorf("%s %s answered %s %s, which its document does not list", method, path, status, res.body)
		return
	}
	pointer := "file:///openapi.json#" + at + "/content/application~1json/schema"
	s, err := d.compiler.Compile(pointer)
	if err != nil {
		t.Fatalf("compiling the %s's schema: %v", status, err)
	}
	body, err := jsonschema.UnmarshalJSON(strings.NewReader(res.body))
	if err != nil {
		t.Fatalf("%s %s: the %s's body is not JSON: %v\n%s", method, path, status, err, res.body)
	}
	if err := s.Validate(body); err != nil {
		t.Errorf("%s %s: the %s the host sent does not validate against the document's: %v\n%s", method, path, status, err, res.body)
	}
	for name, h := range r.Headers {
		var header struct{ Required bool }
		if err := json.Unmarshal(h, &header); err != nil {
			t.Fatalf("the %s's header %s: %v", status, name, err)
		}
		if header.Required && res.header.Get(name) == "" {
			t.Errorf("%s %s: the document's %s requires the header %s; the answer has none\n%s", method, path, status, name, res.body)
		}
	}
	if !exact {
		return
	}
	// The document writes every object's members sorted: the example is
	// the answer when their canonical forms (RFC 8785) are the same bytes.
	example := jsontext.Value(bytes.Clone(r.Content["application/json"].Example))
	sent := jsontext.Value(res.body)
	if len(example) == 0 || example.Canonicalize() != nil || sent.Canonicalize() != nil {
		t.Errorf("%s %s: the document's %s has no example (%s); the host answered %s", method, path, status, example, res.body)
		return
	}
	if !bytes.Equal(example, sent) {
		t.Errorf("%s %s: the document's %s example is\n%s\nthe host answered\n%s", method, path, status, example, sent)
	}
}

// TestDocumentExamplesAreTheHostsAnswers: the examples the document
// gives of the answers the host makes itself for an operation (its 403,
// 406, 415, 413 and the 429s of a rate limit and of the failed
// credentials' budget) are the bytes the host sends for that operation:
// its scopes, the media types it takes and offers, its own body limit,
// the wait its rate limit makes. Each real answer validates against
// the document's schema for its status.
func TestDocumentExamplesAreTheHostsAnswers(t *testing.T) {
	t.Parallel()
	keys := map[string][]string{"full": {"orders:read", "orders:write"}, "some": {"orders:read"}, "none": nil}
	var listed []string
	for k, scopes := range keys {
		b, _ := json.Marshal(scopes)
		if scopes == nil {
			b = []byte("[]")
		}
		listed = append(listed, fmt.Sprintf(`{"sha256":%q,"subject":%q,"scopes":%s}`, apikeys.Sum(k), k, b))
	}
	ok := watModule{handle: `(drop (call $write (i32.const 3000) (i32.const 2))) (i32.const 0)`, extra: "  (data (i32.const 3000) \"{}\")\n"}
	orders := ok
	orders.contract = `{"security":[{"partners":["orders:read","orders:write"]}],
		"request":{"body":{"maxBytes":64,"content":{"application/json":{"schema":{"type":"object"}},"text/csv":{}}}},
		"responses":{"200":{"media":["application/json","text/csv"]}}}`
	limited := ok
	limited.contract = `{"responses":{"200":{"schema":{"type":"object"}}}}`
	h, logs := newApp(t).wat("server/api/orders.post.wasm", orders).
		wat("server/api/limited.get.wasm", limited).
		file("endpoints.json", []byte(`{"security":{"partners":{"apiKey":{"keys":[`+strings.Join(listed, ",")+`]}}},
			"authFailures":{"perAddress":3,"window":"100s"},
			"rateLimits":{"few":{"routes":["/api/limited"],"limit":3,"window":"100s"}}}`)).
		host(host.Options{OpenAPI: config.OpenAPI{Document: []byte(`{"components":{"securitySchemes":{
			"partners":{"type":"apiKey","in":"header","name":"X-API-Key"}}}}`)}})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	d := readAnsweredDocument(t, h.Document())

	const json = "application/json"
	for _, tt := range []struct {
		name    string
		key     string
		headers []string
		body    string
		status  int
		exact   bool
	}{
		{"a credential with none of the scopes", "none", []string{"Content-Type", json}, "{}", 403, true},
		{"a credential with some of the scopes", "some", []string{"Content-Type", json}, "{}", 403, false},
		{"an answer it cannot make", "full", []string{"Content-Type", json, "Accept", "text/html"}, "{}", 406, true},
		{"a body of a type it does not take", "full", []string{"Content-Type", "text/plain"}, "hi", 415, true},
		{"a body over its maxBytes", "full", []string{"Content-Type", json}, `{"pad":"` + strings.Repeat("x", 100) + `"}`, 413, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := do(t, srv, "POST", "/api/orders", tt.body, append([]string{"X-API-Key", tt.key}, tt.headers...)...)
			if res.status != tt.status {
				t.Fatalf("POST /api/orders = %d %s, want %d\n%s", res.status, res.body, tt.status, logs)
			}
			d.check(t, "POST", "/api/orders", res, tt.exact)
			if ch := res.header.Values("WWW-Authenticate"); res.status == 403 && len(ch) > 0 {
				// RFC 6750's insufficient_scope challenge is a bearer
				// scheme's; an API key has none to send.
				t.Errorf("the 403 of an API key carries WWW-Authenticate %q, want none", ch)
			}
		})
	}

	t.Run("a rate limit", func(t *testing.T) {
		var res response
		for range 4 {
			if res = do(t, srv, "GET", "/api/limited", ""); res.status != 200 {
				break
			}
		}
		if res.status != 429 {
			t.Fatalf("the fourth request of a limit of 3 = %d %s, want 429", res.status, res.body)
		}
		d.check(t, "GET", "/api/limited", res, true)
	})
	t.Run("the failed credentials' budget", func(t *testing.T) {
		var res response
		for range 4 {
			if res = do(t, srv, "POST", "/api/orders", "{}", "X-API-Key", "wrong", "Content-Type", json); res.status != 401 {
				break
			}
		}
		if res.status != 429 {
			t.Fatalf("the fourth wrong key of a budget of 3 = %d %s, want 429", res.status, res.body)
		}
		d.check(t, "POST", "/api/orders", res, true)
	})
}

// TestDocumentListsDatabase503: the document lists the 503 the host
// answers while a database waits (PostgreSQL down at the start, its
// migrations not applied) on exactly the operations whose module, or a
// middleware that wraps them, imports the host's database functions,
// with Retry-After; the real answers validate against it and, in
// production, are its example byte for byte.
func TestDocumentListsDatabase503(t *testing.T) {
	t.Parallel()
	url, stop, _ := databasetest.StartPostgres(t)
	stop()
	db := dbGuest
	db.contract = `{"responses":{"200":{"schema":{"type":"string"}}}}`
	plain := versionModule(1, false)
	mw := versionModule(2, false)
	a := newApp(t).wat("server/api/db.get.wasm", db).
		wat("server/api/v.get.wasm", plain).
		wat("server/api/mw.get.wasm", mw).
		middleware("10-db", dbMiddleware).
		file("server/migrations/001-notes.sql", []byte("CREATE TABLE notes (body text);\n"))
	// In development the body says why too: it still validates.
	hd, _ := a.host(host.Options{Mode: host.Development, ConfigOverrides: onPostgres(url)})
	dev := httptest.NewServer(hd)
	t.Cleanup(dev.Close)
	h, logs := a.host(host.Options{ConfigOverrides: onPostgres(url)})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	d := readAnsweredDocument(t, h.Document())

	for _, tt := range []struct {
		path    string
		headers []string
		uses    bool // the database: the document lists 503
	}{
		{"/api/db", []string{"x-db", "main", "x-ops", "q", "x-sql", "SELECT 1"}, true},
		{"/api/mw", nil, true},
		{"/api/v", nil, false},
	} {
		t.Run(tt.path, func(t *testing.T) {
			if got := d.listsDatabase503("GET", tt.path); got != tt.uses {
				t.Fatalf("GET %s lists 503: %v, want %v\n%s", tt.path, got, tt.uses, d.raw)
			}
			res := do(t, srv, "GET", tt.path, "", tt.headers...)
			if !tt.uses {
				if res.status != 200 {
					t.Errorf("GET %s, which uses no database = %d %s, want 200", tt.path, res.status, res.body)
				}
				return
			}
			if res.status != 503 || res.header.Get("Retry-After") == "" {
				t.Fatalf("GET %s while its database waits = %d %s (Retry-After %q), want 503 with Retry-After\n%s", tt.path, res.status, res.body, res.header.Get("Retry-After"), logs)
			}
			d.check(t, "GET", tt.path, res, true)
			if res := do(t, dev, "GET", tt.path, "", tt.headers...); res.status != 503 || !strings.Contains(res.body, `"error"`) {
				t.Errorf("GET %s in development = %d %s, want 503 saying why", tt.path, res.status, res.body)
			} else {
				d.check(t, "GET", tt.path, res, false)
			}
			if r, _, _ := d.response("GET", tt.path, 503); r.Headers["Retry-After"] == nil {
				t.Errorf("GET %s: its 503 lists no Retry-After", tt.path)
			}
		})
	}
}

// TestDocumentBundleDatabase503: a bundle's routes share one module, so
// every endpoint of a bundle that imports a db_ function lists the 503
// of its database, and none of a bundle that imports none does.
func TestDocumentBundleDatabase503(t *testing.T) {
	t.Parallel()
	decl := func(prefix string) string {
		return `{"routes": [{"route": "GET /api/` + prefix + `/a", "contract": {}}, {"route": "GET /api/` + prefix + `/b", "contract": {}}]}`
	}
	withDB := strings.Replace(bundleWAT(decl("db"), false), watImports,
		watImports+`  (import "endpoints" "db_query" (func $db_query (param i32 i32 i32 i32 i32 i32) (result i32)))`+"\n", 1)
	h, _ := newApp(t).watSource("server/bundles/db.wasm", withDB).
		watSource("server/bundles/none.wasm", bundleWAT(decl("none"), false)).
		host(host.Options{})
	d := readAnsweredDocument(t, h.Document())
	for _, tt := range []struct {
		path string
		want bool
	}{{"/api/db/a", true}, {"/api/db/b", true}, {"/api/none/a", false}, {"/api/none/b", false}} {
		if got := d.listsDatabase503("GET", tt.path); got != tt.want {
			t.Errorf("GET %s lists 503: %v, want %v", tt.path, got, tt.want)
		}
	}
}

// TestDocumentListsTheHostsFailures: the answers the host gives itself
// when an operation's guest cannot answer are listed on the operation by
// its document, each body valid against the listed schema and, in
// production where it carries no data, the listed example: a trap and a
// deadline (500), an answer that breaks its contract where answers are
// checked (500 Response Contract Error), every instance busy until the
// deadline (503), a request that arrives during a shutdown and one whose
// guest the shutdown stops (503). Every 503 carries Retry-After. In
// development the 500s say why, and still validate.
func TestDocumentListsTheHostsFailures(t *testing.T) {
	t.Parallel()
	const object = `"responses":{"200":{"schema":{"type":"object"}}}`
	sleeps := func(contract string) watModule {
		return watModule{contract: contract, imports: wasiPoll, extra: sleepFn, handle: `(call $sleep (i64.const 30000000000)) (i32.const 0)`}
	}
	a := newApp(t).
		wat("server/api/trap.get.wasm", watModule{contract: `{` + object + `}`, handle: `(unreachable)`}).
		wat("server/api/slow.get.wasm", sleeps(`{"timeout":"100ms",`+object+`}`)).
		wat("server/api/undeclared.get.wasm", watModule{contract: `{` + object + `}`, handle: `(drop (call $set_status (i32.const 201))) (i32.const 0)`}).
		// GET holds the module's one instance; POST waits for it 200ms.
		wat("server/api/busy.wasm", sleeps(`{"methods":{"get":{"timeout":"1m",`+object+`},"post":{"timeout":"200ms",`+object+`}}}`))
	h, logs := a.host(host.Options{Limits: config.Limits{Instances: 1}, ResponseValidation: config.ValidateAlways})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	d := readAnsweredDocument(t, h.Document())
	dev, _ := a.host(host.Options{Mode: host.Development})
	devSrv := httptest.NewServer(dev)
	t.Cleanup(devSrv.Close)
	devDoc := readAnsweredDocument(t, dev.Document())

	for _, tt := range []struct {
		name, path string
		status     int
		exact      bool   // production: no data, the example
		devSays    string // what the development answer says
	}{
		{"a trap", "/api/trap", 500, true, "unreachable"},
		{"the deadline", "/api/slow", 500, true, "deadline"},
		{"an undeclared status", "/api/undeclared", 500, false, "status 201 is not declared"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := do(t, srv, "GET", tt.path, "")
			if res.status != tt.status {
				t.Fatalf("GET %s = %d %s, want %d\n%s", tt.path, res.status, res.body, tt.status, logs)
			}
			d.check(t, "GET", tt.path, res, tt.exact)
			res = do(t, devSrv, "GET", tt.path, "")
			if res.status != tt.status || !strings.Contains(res.body, tt.devSays) {
				t.Fatalf("GET %s in development = %d %s, want %d saying %q", tt.path, res.status, res.body, tt.status, tt.devSays)
			}
			devDoc.check(t, "GET", tt.path, res, false)
		})
	}

	retries := func(t *testing.T, what string, res response) {
		t.Helper()
		if res.status != 503 || res.header.Get("Retry-After") != "1" {
			t.Errorf("%s = %d %s (Retry-After %q), want 503 with Retry-After: 1\n%s", what, res.status, res.body, res.header.Get("Retry-After"), logs)
		}
		if r, _, _ := d.response("GET", "/api/busy", 503); r.Headers["Retry-After"] == nil {
			t.Errorf("the document's 503 lists no Retry-After")
		}
	}
	held := make(chan response, 1)
	go func() { held <- do(t, srv, "GET", "/api/busy", "") }()
	if !waitFor(t, 10*time.Second, func() bool {
		for _, p := range h.Pools() {
			if p.Module == "server/api/busy.wasm" && p.InUse == 1 {
				return true
			}
		}
		return false
	}) {
		t.Fatalf("the GET never took the instance: %+v", h.Pools())
	}
	res := do(t, srv, "POST", "/api/busy", "")
	retries(t, "POST /api/busy while GET holds its one instance", res)
	d.check(t, "POST", "/api/busy", res, true)

	stop, cancel := context.WithCancel(context.Background())
	shut := make(chan error, 1)
	go func() { shut <- h.Shutdown(stop) }()
	if !waitFor(t, 10*time.Second, func() bool { res = do(t, srv, "GET", "/api/trap", ""); return res.status == 503 }) {
		t.Fatalf("requests after Shutdown began were still served: %d %s", res.status, res.body)
	}
	retries(t, "GET /api/trap during a shutdown", res)
	d.check(t, "GET", "/api/trap", res, false)
	// The shutdown's context ends: the guest still running is stopped.
	cancel()
	res = <-held
	retries(t, "GET /api/busy stopped by the shutdown", res)
	d.check(t, "GET", "/api/busy", res, true)
	if err := <-shut; !errors.Is(err, context.Canceled) {
		t.Errorf("Shutdown = %v, want context.Canceled", err)
	}
}

// TestDocumentListsTheBodysFailures: the answers the host gives itself
// when a request body does not arrive whole, over real TCP, are listed
// on the operation and validate against the document: a body that
// breaks off before its Content-Length, a chunked body cut before its
// last chunk (400, the validation body with the body's issue), and one
// slower than server.readTimeout (408).
func TestDocumentListsTheBodysFailures(t *testing.T) {
	t.Parallel()
	const short = 300 * time.Millisecond
	h, logs := clientTestApp(t).host(host.Options{
		Server: config.Server{ReadTimeout: config.Duration(short)}})
	addr := serveTCP(t, h)
	d := readAnsweredDocument(t, h.Document())
	const head = "POST /api/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
	for _, tt := range []struct {
		name    string
		request string
		cut     bool // the client closes its side after the request
		status  int
	}{
		{"a body shorter than its Content-Length", head + "Content-Length: 500\r\n\r\n{\"a\":\"xxxx", true, 400},
		{"a chunked body cut before its last chunk", head + "Transfer-Encoding: chunked\r\n\r\n8\r\n{\"a\":\"xx\r\n", true, 400},
		{"a body slower than server.readTimeout", head + "Content-Length: 500\r\n\r\n{\"a\":\"xxxx", false, 408},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := dial(t, addr)
			if _, err := io.WriteString(c, tt.request); err != nil {
				t.Fatal(err)
			}
			if tt.cut {
				if err := c.Conn.(*net.TCPConn).CloseWrite(); err != nil {
					t.Fatal(err)
				}
			}
			res, body, err := c.response("POST")
			if err != nil || res.StatusCode != tt.status {
				t.Fatalf("got %v %v %s, want %d\n%s", err, res, body, tt.status, logs)
			}
			d.check(t, "POST", "/api/echo", response{status: res.StatusCode, header: res.Header, body: body}, false)
		})
	}
}

// TestDocumentHostHeadersBesideTheApps: where the app declares a status
// the host answers too (a 401 beside the security's, a 429 beside a rate
// limit's), the app's own answer need not carry the headers of the
// host's (WWW-Authenticate, Retry-After): the document does not require
// them, and the guest's real answer validates against it.
func TestDocumentHostHeadersBesideTheApps(t *testing.T) {
	t.Parallel()
	answers := func(status int, security string) watModule {
		return watModule{contract: fmt.Sprintf(`{%s"responses":{"200":{},"%d":{"description":"Ours","schema":{"type":"object"}}}}`, security, status),
			handle: fmt.Sprintf(`(drop (call $set_status (i32.const %d))) (drop (call $write (i32.const 3000) (i32.const 2))) (i32.const 0)`, status),
			extra:  "  (data (i32.const 3000) \"{}\")\n"}
	}
	h, logs := newApp(t).wat("server/api/locked.get.wasm", answers(401, `"security":[{"partners":[]}],`)).
		wat("server/api/limited.get.wasm", answers(429, "")).
		file("endpoints.json", []byte(`{"security":{"partners":{"apiKey":{"keys":[{"sha256":"`+apikeys.Sum("good")+`","subject":"p"}]}}},
			"rateLimits":{"few":{"routes":["/api/limited"],"limit":100,"window":"100s"}}}`)).
		host(host.Options{OpenAPI: config.OpenAPI{Document: []byte(`{"components":{"securitySchemes":{
			"partners":{"type":"apiKey","in":"header","name":"X-API-Key"}}}}`)}})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	d := readAnsweredDocument(t, h.Document())
	for _, tt := range []struct {
		path    string
		headers []string
		status  int
	}{
		{"/api/locked", []string{"X-API-Key", "good"}, 401},
		{"/api/limited", nil, 429},
	} {
		res := do(t, srv, "GET", tt.path, "", tt.headers...)
		if res.status != tt.status {
			t.Fatalf("GET %s = %d %s, want the guest's %d\n%s", tt.path, res.status, res.body, tt.status, logs)
		}
		d.check(t, "GET", tt.path, res, false)
	}
}
