// Package openapi_test proves that the OpenAPI document the host serves and
// the validation it does are one contract: an independent validator
// (pb33f/libopenapi-validator) reads the served document and judges every
// request and response of a session against the example app. It lives in a
// module of its own so that its dependencies stay out of the main go.mod.
package openapi_test

import (
	"bytes"
	"context"
	stdjson "encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	vconfig "github.com/pb33f/libopenapi-validator/config"
	verrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/auth"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
	"github.com/wasmendpoints/endpoints/openapi"
)

func buildUsers(t *testing.T) string {
	t.Helper()
	src := filepath.Join("..", "..", "examples", "users")
	dir := t.TempDir()
	for _, f := range []string{config.File, host.RoutesConfigFile, "auth/jwks.json"} {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == config.File {
			// Orders are limited to 7 a minute here, so the session's
			// eighth order meets the rate limit.
			data = bytes.Replace(data, []byte(`"limit": 20`), []byte(`"limit": 7`), 1)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The migrations make the users' tables in the app's database.
	if err := os.CopyFS(filepath.Join(dir, "server", "migrations"), os.DirFS(filepath.Join(src, "server", "migrations"))); err != nil {
		t.Fatal(err)
	}
	if _, err := guestbuild.App(context.Background(), src, dir, nil); err != nil {
		t.Fatal(err)
	}
	return dir
}

// serveUsers serves the example app in development, its document in
// OpenAPI specVersion ("" for the default), and returns the server and
// the document it serves. Both end with the test.
func serveUsers(t *testing.T, specVersion string) (*httptest.Server, []byte) {
	t.Helper()
	h, err := host.New(context.Background(), buildUsers(t), host.Options{
		Mode:     host.Development,
		CacheDir: filepath.Join(os.TempDir(), "endpoints-test-cache"),
		Logger:   slog.New(slog.DiscardHandler),
		OpenAPI:  config.OpenAPI{SpecVersion: specVersion},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	res, err := http.Get(srv.URL + config.DefaultOpenAPIPath)
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("GET %s = %d %s", config.DefaultOpenAPIPath, res.StatusCode, doc)
	}
	return srv, doc
}

// token mints a bearer token for examples/users with its development key.
func token(t *testing.T, sub string, ttl time.Duration, scopes string) string {
	t.Helper()
	key, err := os.ReadFile(filepath.Join("..", "..", "examples", "users", "auth", "dev-signing-key.jwk"))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := auth.MintDevToken(key, map[string]any{"iss": "https://users.example", "aud": "users-api", "sub": sub,
		"iat": time.Now().Add(min(ttl, 0) - time.Minute).Unix(), "exp": time.Now().Add(ttl).Unix(), "scope": scopes})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func describe(errs []*verrors.ValidationError) string {
	var b strings.Builder
	for _, e := range errs {
		b.WriteString("\n  - " + e.Message + ": " + e.Reason)
		for _, s := range e.SchemaValidationErrors {
			b.WriteString("\n      " + s.FieldPath + " (" + s.KeywordLocation + "): " + s.Reason)
		}
	}
	return b.String()
}

// exchange is one request of the session and the status the host must
// answer it with.
type exchange struct {
	name, method, path, body string
	headers                  []string // name, value, name, value...
	wantStatus               int
}

// request makes the exchange's request to the server at base.
func (x exchange) request(t *testing.T, base string) *http.Request {
	t.Helper()
	var body io.Reader
	if x.body != "" {
		body = strings.NewReader(x.body)
	}
	req, err := http.NewRequest(x.method, base+x.path, body)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(x.headers); i += 2 {
		req.Header.Set(x.headers[i], x.headers[i+1])
	}
	return req
}

// refused reports whether an answer with status says the host found the
// request invalid, as a document judges requests: a 400 or 415, and a 401
// to a request with no credential at all (it lacks the security the
// document requires). A 406 is about the answer: its request is valid.
func (x exchange) refused(status int) bool {
	noCredential := !x.has("Authorization") && !x.has("X-API-Key")
	return status == 400 || status == 415 || status == 401 && noCredential
}

// multipart reports whether the request has a multipart body.
func (x exchange) multipart() bool {
	for i := 0; i+1 < len(x.headers); i += 2 {
		if strings.EqualFold(x.headers[i], "Content-Type") && strings.HasPrefix(x.headers[i+1], "multipart/") {
			return true
		}
	}
	return false
}

// has reports whether the request sends header name.
func (x exchange) has(name string) bool {
	for i := 0; i+1 < len(x.headers); i += 2 {
		if strings.EqualFold(x.headers[i], name) {
			return true
		}
	}
	return false
}

// session is the requests both the validator and the validating proxy
// judge: every operation of the example app, with valid and invalid
// requests, framework errors (400, 401, 403, 406, 413, 415, 422, 429),
// Idempotency-Key replays and conflicts, a stream and a plain route. It
// runs in order against a fresh host: the rate limit is met by the eighth
// order.
func session(t *testing.T) []exchange {
	const json = "application/json"
	auth := []string{"Authorization", "Bearer " + token(t, "alice", time.Hour, "users:write orders:write")}
	expired := []string{"Authorization", "Bearer " + token(t, "alice", -time.Hour, "users:write")}
	readOnly := []string{"Authorization", "Bearer " + token(t, "bob", time.Hour, "users:read")}
	const (
		order      = `{"userId":1,"items":[{"sku":"BOOK-42","quantity":2}]}`
		otherOrder = `{"userId":2,"items":[{"sku":"BOOK-42","quantity":2}]}`
	)
	return []exchange{
		{"get a user", "GET", "/api/users/1", "", nil, 200},
		{"a declared 404", "GET", "/api/users/99", "", nil, 404},
		{"an id that is not an integer", "GET", "/api/users/abc", "", nil, 400},
		{"an id below its minimum", "GET", "/api/users/0", "", nil, 400},
		{"search", "GET", "/api/users/search?q=ada", "", nil, 200},
		{"search with a limit", "GET", "/api/users/search?q=a&limit=2", "", nil, 200},
		{"search without q", "GET", "/api/users/search", "", nil, 400},
		{"search with a limit too large", "GET", "/api/users/search?q=a&limit=101", "", nil, 400},
		{"search with a query that does not parse", "GET", "/api/users/search?q=a%zz&limit=2", "", nil, 400},
		{"search with a ';' separator", "GET", "/api/users/search?q=a;limit=500", "", nil, 400},
		{"create a user", "POST", "/api/users", `{"name":"Ada","email":"ada2@example.com"}`, append([]string{"Content-Type", json}, auth...), 201},
		{"create with a bad email", "POST", "/api/users", `{"name":"Ada","email":"nope"}`, append([]string{"Content-Type", json}, auth...), 400},
		{"create with an unknown field", "POST", "/api/users", `{"name":"Ada","email":"a@example.com","admin":true}`, append([]string{"Content-Type", json}, auth...), 400},
		{"create with malformed JSON", "POST", "/api/users", `{"name":`, append([]string{"Content-Type", json}, auth...), 400},
		{"create with a body over limits.bodyBytes", "POST", "/api/users", `{"name":"Ada","email":"a@example.com"}` + strings.Repeat(" ", 2<<20), append([]string{"Content-Type", json}, auth...), 413},
		{"create with text/plain", "POST", "/api/users", `{"name":"Ada","email":"a@example.com"}`, append([]string{"Content-Type", "text/plain"}, auth...), 415},
		{"change a user", "PATCH", "/api/users/2", `{"email":"grace@navy.example"}`, append([]string{"Content-Type", json}, auth...), 200},
		{"change nothing", "PATCH", "/api/users/2", `{}`, append([]string{"Content-Type", json}, auth...), 400},
		{"change a missing user", "PATCH", "/api/users/42", `{"name":"X"}`, append([]string{"Content-Type", json}, auth...), 404},
		{"an avatar as PNG", "GET", "/api/users/1/avatar", "", []string{"Accept", "image/png"}, 200},
		{"an avatar as SVG", "GET", "/api/users/1/avatar", "", []string{"Accept", "image/svg+xml"}, 200},
		{"an avatar nobody can accept", "GET", "/api/users/1/avatar", "", []string{"Accept", "text/html"}, 406},
		{"a missing user's avatar as Problem Details", "GET", "/api/users/9/avatar", "", nil, 404},
		{"the CSV export", "GET", "/api/users/export", "", nil, 200},
		{"the clock's event stream", "GET", "/api/clock?count=2", "", nil, 200},
		{"the clock with too many events", "GET", "/api/clock?count=3001", "", nil, 400},
		{"the plain health route", "GET", "/health", "", nil, 200},
		{"upload a photo", "POST", "/api/users/2/photo", photoBody("image/png", pngBytes), append([]string{"Content-Type", multipartType}, auth...), 201},
		{"upload bytes that are not a PNG", "POST", "/api/users/2/photo", photoBody("image/png", "not a png"), append([]string{"Content-Type", multipartType}, auth...), 422},
		{"upload a photo for a missing user", "POST", "/api/users/9/photo", photoBody("image/png", pngBytes), append([]string{"Content-Type", multipartType}, auth...), 404},
		{"upload without a photo", "POST", "/api/users/2/photo", "--b0undary\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\nhi\r\n--b0undary--\r\n", append([]string{"Content-Type", multipartType}, auth...), 400},
		{"upload as JSON", "POST", "/api/users/2/photo", `{"photo":"me.png"}`, append([]string{"Content-Type", json}, auth...), 415},
		{"create a user with an Idempotency-Key", "POST", "/api/users", `{"name":"Edsger","email":"edsger@example.com"}`, append([]string{"Content-Type", json, "Idempotency-Key", "doc-user-1"}, auth...), 201},
		{"place an order", "POST", "/api/orders", order, append([]string{"Content-Type", json, "Idempotency-Key", "doc-order-1"}, auth...), 201},
		{"a retry replays the order", "POST", "/api/orders", order, append([]string{"Content-Type", json, "Idempotency-Key", "doc-order-1"}, auth...), 201},
		{"the order's key with another body", "POST", "/api/orders", otherOrder, append([]string{"Content-Type", json, "Idempotency-Key", "doc-order-1"}, auth...), 422},
		{"an order without its required key", "POST", "/api/orders", order, append([]string{"Content-Type", json}, auth...), 400},
		{"an order with a malformed key", "POST", "/api/orders", order, append([]string{"Content-Type", json, "Idempotency-Key", "a,b"}, auth...), 400},
		{"an order with a bad body", "POST", "/api/orders", `{"userId":1,"items":[]}`, append([]string{"Content-Type", json, "Idempotency-Key", "doc-order-2"}, auth...), 400},
		{"an order for a missing user", "POST", "/api/orders", `{"userId":99,"items":[{"sku":"MUG-1","quantity":1}]}`, append([]string{"Content-Type", json, "Idempotency-Key", "doc-order-3"}, auth...), 422},
		{"an order over the rate limit", "POST", "/api/orders", order, append([]string{"Content-Type", json, "Idempotency-Key", "doc-order-4"}, auth...), 429},
		{"an order with a partner's API key", "POST", "/api/orders", order, []string{"Content-Type", json, "Idempotency-Key", "doc-order-5", "X-API-Key", "demo-partner-key"}, 201},
		{"an order with an unknown API key", "POST", "/api/orders", order, []string{"Content-Type", json, "Idempotency-Key", "doc-order-6", "X-API-Key", "guess"}, 401},
		{"create without a token", "POST", "/api/users", `{"name":"Eve","email":"eve@example.com"}`, []string{"Content-Type", json}, 401},
		{"create with a token that is no JWT", "POST", "/api/users", `{"name":"Eve","email":"eve@example.com"}`, []string{"Content-Type", json, "Authorization", "Bearer nope"}, 401},
		{"create with an expired token", "POST", "/api/users", `{"name":"Eve","email":"eve@example.com"}`, append([]string{"Content-Type", json}, expired...), 401},
		{"create with a token lacking the scope", "POST", "/api/users", `{"name":"Eve","email":"eve@example.com"}`, append([]string{"Content-Type", json}, readOnly...), 403},
		{"change a user without a token", "PATCH", "/api/users/2", `{"name":"X"}`, []string{"Content-Type", json}, 401},
	}
}

// multipartType and photoBody make the multipart bodies of the upload
// cases: a caption and a photo part.
const multipartType = "multipart/form-data; boundary=b0undary"

const pngBytes = "\x89PNG\r\n\x1a\nnot really pixels"

func photoBody(contentType, content string) string {
	return "--b0undary\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\nAt the beach\r\n" +
		"--b0undary\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"me.png\"\r\nContent-Type: " + contentType + "\r\n\r\n" +
		content + "\r\n--b0undary--\r\n"
}

// TestServedDocumentAgreesWithTheRuntime runs one session of requests
// against the example app and has the validator judge each request and
// answer by the document the host serves: an OpenAPI 3.1 document (the
// default) and a 3.2 one, whose streams are described with itemSchema.
func TestServedDocumentAgreesWithTheRuntime(t *testing.T) {
	for _, version := range []string{openapi.Version31, openapi.Version32} {
		t.Run("OpenAPI "+version, func(t *testing.T) {
			t.Parallel()
			documentAgreesWithTheRuntime(t, version)
		})
	}
}

func documentAgreesWithTheRuntime(t *testing.T, specVersion string) {
	srv, spec := serveUsers(t, specVersion)
	doc, err := libopenapi.NewDocument(spec)
	if err != nil {
		t.Fatal(err)
	}
	// The host asserts "format" (an invalid email is a 400), which JSON
	// Schema 2020-12 leaves to the tool: the validator is told to do the same.
	v, errs := validator.NewValidator(doc, vconfig.WithFormatAssertions())
	if len(errs) > 0 {
		t.Fatalf("the validator cannot read the served document: %v", errs)
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		t.Fatalf("the served document is not valid OpenAPI %s:%s", specVersion, describe(verrs))
	}
	var served struct {
		OpenAPI string `json:"openapi"`
	}
	if err := stdjson.Unmarshal(spec, &served); err != nil || served.OpenAPI != specVersion {
		t.Fatalf("the served document says openapi %q (%v), want %q", served.OpenAPI, err, specVersion)
	}

	model, err := doc.BuildV3Model()
	if err != nil {
		t.Fatalf("libopenapi cannot model the served document: %v", err)
	}

	for _, tt := range session(t) {
		t.Run(tt.name, func(t *testing.T) {
			newReq := func(base string) *http.Request { return tt.request(t, base) }
			res, err := srv.Client().Do(newReq(srv.URL))
			if err != nil {
				t.Fatal(err)
			}
			resBody, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != tt.wantStatus {
				t.Fatalf("host answered %d %s, want %d", res.StatusCode, resBody, tt.wantStatus)
			}
			// The document must judge the request as the host did: invalid
			// exactly when the host refused it with 400 or 415.
			servers := srv.URL // the document's server is "/": wherever the host listens
			reqOK, reqErrs := v.ValidateHttpRequest(newReq(servers))
			refused := tt.refused(res.StatusCode)
			// libopenapi-validator does not decode multipart bodies: it
			// judges their parameters and headers only, so a request the
			// host refused for its multipart body looks valid to it.
			unread := tt.multipart() && res.StatusCode == 400
			if reqOK == refused && !unread {
				t.Errorf("the document says the request is valid=%v, the host answered %d %s%s", reqOK, res.StatusCode, resBody, describe(reqErrs))
			}
			// Every answer, framework errors included, must be one the
			// document describes.
			res.Body = io.NopCloser(bytes.NewReader(resBody))
			if ok, errs := v.ValidateHttpResponse(newReq(servers), res); !ok {
				t.Errorf("the answer %d %s does not match the document:%s", res.StatusCode, resBody, describe(errs))
			}
			// The validator judges a stream's body as a whole; in a 3.2
			// document each event must match the itemSchema too.
			if specVersion == openapi.Version32 && strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
				checkEvents(t, model, tt.path, strings.ToLower(tt.method), res.StatusCode, resBody)
			}
		})
	}
}

// checkEvents checks each Server-Sent Event of body against the itemSchema
// the document gives the answer, and its data against the data member's
// contentSchema (an annotation JSON Schema does not assert by itself).
func checkEvents(t *testing.T, model *libopenapi.DocumentModel[v3.Document], path, method string, status int, body []byte) {
	t.Helper()
	template, _, _ := strings.Cut(path, "?")
	item := model.Model.Paths.PathItems.GetOrZero(template).GetOperations().GetOrZero(method).
		Responses.Codes.GetOrZero(strconv.Itoa(status)).Content.GetOrZero("text/event-stream").ItemSchema
	if item == nil {
		t.Fatalf("the document gives %s %s's %d event stream no itemSchema", method, template, status)
	}
	schema := item.Schema()
	var data *base.Schema
	if p := schema.Properties.GetOrZero("data"); p != nil && p.Schema().ContentSchema != nil {
		data = p.Schema().ContentSchema.Schema()
	}
	sv := schema_validation.NewSchemaValidator()
	events := 0
	for block := range strings.SplitSeq(strings.TrimSpace(string(body)), "\n\n") {
		event := map[string]any{}
		for line := range strings.SplitSeq(block, "\n") {
			name, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch name {
			case "data":
				if prev, ok := event["data"].(string); ok {
					value = prev + "\n" + value
				}
				event["data"] = value
			case "event", "id":
				event[name] = value
			case "retry":
				n, err := strconv.Atoi(value)
				if err != nil {
					t.Fatalf("event %d: retry %q is not a number", events, value)
				}
				event["retry"] = n
			}
		}
		events++
		if ok, errs := sv.ValidateSchemaObject(schema, event); !ok {
			t.Errorf("event %d %v does not match the itemSchema:%s", events, event, describe(errs))
		}
		if data != nil {
			if ok, errs := sv.ValidateSchemaString(data, event["data"].(string)); !ok {
				t.Errorf("event %d's data %s does not match the contentSchema:%s", events, event["data"], describe(errs))
			}
		}
	}
	if events == 0 {
		t.Errorf("the event stream %s has no event", body)
	}
}
