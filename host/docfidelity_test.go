package host_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

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
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Content map[string]struct {
					Example json.RawMessage
				}
				Headers map[string]json.RawMessage
			}
		}
	}
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

// lists reports whether the document lists status on the operation.
func (d *answeredDocument) lists(method, path string, status int) bool {
	_, ok := d.doc.Paths[path][strings.ToLower(method)].Responses[fmt.Sprint(status)]
	return ok
}

// check fails t unless the document lists res's status on the
// operation, its JSON body validates against the schema listed, and,
// when exact, the body is the example listed (the same JSON value: the
// document sorts the members of its objects).
func (d *answeredDocument) check(t *testing.T, method, path string, res response, exact bool) {
	t.Helper()
	status := fmt.Sprint(res.status)
	r, ok := d.doc.Paths[path][strings.ToLower(method)].Responses[status]
	if !ok {
		t.Errorf("%s %s answered %s %s, which its document does not list", method, path, status, res.body)
		return
	}
	pointer := fmt.Sprintf("file:///openapi.json#/paths/%s/%s/responses/%s/content/application~1json/schema", strings.ReplaceAll(path, "/", "~1"), strings.ToLower(method), status)
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
			if got := d.lists("GET", tt.path, 503); got != tt.uses {
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
			if _, ok := d.doc.Paths[tt.path]["get"].Responses["503"].Headers["Retry-After"]; !ok {
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
		if got := d.lists("GET", tt.path, 503); got != tt.want {
			t.Errorf("GET %s lists 503: %v, want %v", tt.path, got, tt.want)
		}
	}
}
