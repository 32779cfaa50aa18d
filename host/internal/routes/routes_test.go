package routes

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/abi/contract"
	"github.com/wasmendpoints/endpoints/internal/routefile"
	"github.com/wasmendpoints/endpoints/openapi"
)

// compile parses file's route and the contract JSON as the host does,
// then compiles them. A contract marked unchecked is decoded without
// contract.Parse's checks, as a contract Compile must not trust.
func compile(t *testing.T, file, contractJSON string, hook, inBundle bool) (Endpoint, error) {
	t.Helper()
	rf, err := routefile.Parse(file)
	if err != nil {
		t.Fatal(err)
	}
	var c *abi.Contract
	if raw, ok := strings.CutPrefix(contractJSON, unchecked); ok {
		contractJSON = raw
		if err := json.Unmarshal([]byte(raw), &c); err != nil {
			t.Fatal(err)
		}
	} else if c, err = contract.Parse(file, []byte(contractJSON), contract.Options{Method: rf.Method}); err != nil {
		t.Fatalf("contract.Parse: %v", err)
	}
	return Compile(rf, Module{File: file, Contract: c, JSON: []byte(contractJSON), HookExported: hook, InBundle: inBundle})
}

// unchecked before a contract skips contract.Parse.
const unchecked = "unchecked:"

func mustCompile(t *testing.T, file, contractJSON string) Endpoint {
	t.Helper()
	e, err := compile(t, file, contractJSON, false, false)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return e
}

func TestCompileRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, file, contract string
		hook, inBundle       bool
		want                 []string // substrings of the error
	}{
		{name: "an endpoint on a catch-all segment", file: "server/api/files/[...path].get.wasm", contract: `{}`,
			want: []string{"server/api/files/[...path].get.wasm", "catch-all or optional segment", "plain route"}},
		{name: "a module without suffix and no methods", file: "server/api/users.wasm", contract: `{"summary": "users"}`,
			want: []string{"contract: /:", `"methods"`, "server/api/users.get.wasm"}},
		{name: "a bundle's route of every method and no methods", file: "server/api/users.wasm", contract: `{"summary": "users"}`, inBundle: true,
			want: []string{"a route of every method (*)", "GET /api/users"}},
		{name: "a parameter the route does not have", file: "server/api/users/[id].get.wasm",
			contract: `{"request": {"params": {"type": "object", "properties": {"uid": {"type": "string"}}}}}`,
			want:     []string{"/request/params/properties/uid", `no parameter "uid"`, `(it has "id")`}},
		{name: "a parameter on a route with none", file: "server/api/users.get.wasm",
			contract: `{"request": {"params": {"type": "object", "properties": {"id": {"type": "string"}}}}}`,
			want:     []string{`no parameter "id"`, "(it has none)"}},
		{name: "a timeout that is not a duration", file: "server/api/users.get.wasm", contract: unchecked + `{"timeout": "0s"}`,
			want: []string{"contract: /timeout:", `"0s" is not a positive duration such as "30s"`}},
		{name: "a zero idle timeout in methods", file: "server/api/users.wasm", contract: unchecked + `{"methods": {"get": {"idleTimeout": "0ms", "responses": {"200": {"media": ["text/event-stream"]}}}}}`,
			want: []string{"contract: /methods/get/idleTimeout:", `"0ms"`}},
		{name: "onValidationError without the hook", file: "server/api/users.post.wasm", contract: `{"onValidationError": true}`,
			want: []string{"/onValidationError: true", strconv.Quote(abi.ExportOnValidationError)}},
		{name: "onValidationError without a bundle's hook", file: "server/api/users.post.wasm", contract: `{"onValidationError": true}`, inBundle: true,
			want: []string{"/onValidationError: true", strconv.Quote(abi.ExportOnValidationErrorRoute)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := compile(t, tc.file, tc.contract, tc.hook, tc.inBundle)
			if err == nil {
				t.Fatal("Compile accepted it")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestCompileOperations(t *testing.T) {
	for _, tc := range []struct {
		name, file, contract string
		hook                 bool
		methods, allow       []string
		// of the operation of method:
		method                   string
		offers                   []string
		media                    map[int]string
		statuses                 string
		checked, validationError bool
		timeout, idleTimeout     time.Duration
		params, query, headers   bool
	}{
		{name: "a method of the file name", file: "server/api/users/[id].get.wasm",
			contract: `{"request": {"params": {"type": "object", "properties": {"id": {"type": "integer"}}}}, "responses": {"404": {"description": "none"}, "200": {"schema": {"type": "object"}}}}`,
			methods:  []string{"GET"}, allow: []string{"GET", "HEAD", "OPTIONS"}, method: "GET",
			offers: []string{"application/json"}, media: map[int]string{}, statuses: "200, 404", checked: true, validationError: true, params: true},
		{name: "the methods of a module without suffix", file: "server/api/users.wasm",
			contract: `{"methods": {"post": {"timeout": "2m", "idleTimeout": "30s", "responses": {"200": {"media": ["text/event-stream"]}}, "request": {"headers": {"type": "object", "properties": {"x-a": {"type": "string"}}}}}, "delete": {}}}`,
			methods:  []string{"DELETE", "POST"}, allow: []string{"DELETE", "OPTIONS", "POST"}, method: "POST",
			offers: []string{"text/event-stream"}, media: map[int]string{200: "text/event-stream"}, statuses: "200", checked: true, validationError: true, timeout: 2 * time.Minute, idleTimeout: 30 * time.Second, headers: true},
		{name: "media types offered and streamed", file: "server/api/report.get.wasm",
			contract: `{"request": {"query": {"type": "object", "properties": {"q": {"type": "string"}}}}, "responses": {"200": {"media": ["text/csv", "application/pdf"]}, "201": {"contentType": "application/vnd.a+json", "schema": {"type": "object"}}, "500": {"media": ["text/plain"]}}}`,
			methods:  []string{"GET"}, allow: []string{"GET", "HEAD", "OPTIONS"}, method: "GET",
			offers: []string{"text/csv", "application/pdf", "application/vnd.a+json"}, media: map[int]string{200: "text/csv", 500: "text/plain"},
			statuses: "200, 201, 500", checked: true, validationError: true, query: true},
		{name: "inferred responses are not checked", file: "server/api/users.get.wasm",
			contract: `{"responsesInferred": true, "responses": {"200": {"schema": {"type": "object"}}}}`,
			methods:  []string{"GET"}, allow: []string{"GET", "HEAD", "OPTIONS"}, method: "GET",
			offers: []string{"application/json"}, media: map[int]string{}},
		{name: "no request part: no framework 400", file: "server/api/users.get.wasm",
			contract: `{"responses": {"200": {"schema": {"type": "object"}}}}`,
			methods:  []string{"GET"}, allow: []string{"GET", "HEAD", "OPTIONS"}, method: "GET",
			offers: []string{"application/json"}, media: map[int]string{}, statuses: "200", checked: true},
		{name: "onValidationError with the hook", file: "server/api/users.post.wasm", contract: `{"onValidationError": true}`, hook: true,
			methods: []string{"POST"}, allow: []string{"OPTIONS", "POST"}, method: "POST", media: map[int]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := compile(t, tc.file, tc.contract, tc.hook, false)
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			if got := e.Methods(); !slices.Equal(got, tc.methods) {
				t.Errorf("Methods() = %v, want %v", got, tc.methods)
			}
			if got := e.Allow(); !slices.Equal(got, tc.allow) {
				t.Errorf("Allow() = %v, want %v", got, tc.allow)
			}
			op := e[tc.method]
			if op.Method != tc.method {
				t.Errorf("Method = %q, want %q", op.Method, tc.method)
			}
			if !slices.Equal(op.Offers, tc.offers) || op.Negotiates() != (len(tc.offers) > 1) {
				t.Errorf("Offers = %v (negotiates %v), want %v", op.Offers, op.Negotiates(), tc.offers)
			}
			if len(op.Media) != len(tc.media) {
				t.Errorf("Media = %v, want %v", op.Media, tc.media)
			}
			for st, m := range tc.media {
				if op.Media[st] != m {
					t.Errorf("Media[%d] = %q, want %q", st, op.Media[st], m)
				}
			}
			if op.Statuses != tc.statuses || (op.Responses != nil) != tc.checked || (op.ValidationError != nil) != tc.validationError {
				t.Errorf("Statuses %q, checked %v, framework 400 %v; want %q, %v, %v", op.Statuses, op.Responses != nil, op.ValidationError != nil, tc.statuses, tc.checked, tc.validationError)
			}
			if op.Timeout != tc.timeout || op.IdleTimeout != tc.idleTimeout {
				t.Errorf("timeouts %v, %v; want %v, %v", op.Timeout, op.IdleTimeout, tc.timeout, tc.idleTimeout)
			}
			if (op.Params != nil) != tc.params || (op.Query != nil) != tc.query || (op.Headers != nil) != tc.headers {
				t.Errorf("params, query, headers compiled: %v, %v, %v; want %v, %v, %v", op.Params != nil, op.Query != nil, op.Headers != nil, tc.params, tc.query, tc.headers)
			}
		})
	}
}

func TestCheckTimeouts(t *testing.T) {
	for _, tc := range []struct {
		name, file, contract string
		limit                time.Duration
		want                 string // "" for none
	}{
		{name: "within the limit", file: "server/api/a.get.wasm", contract: `{"timeout": "1m", "idleTimeout": "1m", "responses": {"200": {"media": ["text/event-stream"]}}}`, limit: time.Minute},
		{name: "a timeout over it", file: "server/api/a.get.wasm", contract: `{"timeout": "2m"}`, limit: time.Minute,
			want: "bundle.wasm: contract: /timeout: 2m0s is over limits.maxTimeout (1m0s)"},
		{name: "an idle timeout of a method over it", file: "server/api/a.wasm", contract: `{"methods": {"get": {}, "put": {"idleTimeout": "90s", "responses": {"200": {"media": ["text/event-stream"]}}}}}`, limit: time.Minute,
			want: "bundle.wasm: contract: /methods/put/idleTimeout: 1m30s is over limits.maxTimeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := mustCompile(t, tc.file, tc.contract).CheckTimeouts("bundle.wasm", tc.limit)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("CheckTimeouts: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("CheckTimeouts = %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

func TestAddConfigResponses(t *testing.T) {
	const config = `{
		"$defs": {"Problem": {"type": "object", "required": ["title"]}},
		"responses": {"500": {"description": "failure", "schema": {"$ref": "#/$defs/Problem"}}},
		"routes": {"/api/users/:id": {"responses": {"401": {"description": "who"}, "200": {"description": "not the contract's"}}}}
	}`
	rc, err := openapi.ParseRoutesConfig("server/routes.config.json", []byte(config))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, contract, pattern string
		statuses                string
		schema500               bool
	}{
		{name: "added after the contract's", contract: `{"responses": {"200": {"schema": {"type": "object"}}}}`, pattern: "/api/users/:id",
			statuses: "200, 401, 500", schema500: true},
		{name: "only those of the route's pattern", contract: `{"responses": {"200": {"schema": {"type": "object"}}}}`, pattern: "/api/other",
			statuses: "200, 500", schema500: true},
		{name: "answers not checked: nothing added", contract: `{}`, pattern: "/api/users/:id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := mustCompile(t, "server/api/users/[id].get.wasm", tc.contract)
			if err := e.AddConfigResponses("users.wasm", "server/routes.config.json", rc, tc.pattern); err != nil {
				t.Fatalf("AddConfigResponses: %v", err)
			}
			op := e["GET"]
			if op.Statuses != tc.statuses {
				t.Errorf("Statuses = %q, want %q", op.Statuses, tc.statuses)
			}
			if tc.statuses == "" {
				return
			}
			if op.Responses[200].Schema == nil {
				t.Error("the contract's 200 lost its schema to the configuration's")
			}
			if d := op.Responses[500]; (d != nil && d.Schema != nil) != tc.schema500 {
				t.Errorf("500 with a schema: %v, want %v", d != nil && d.Schema != nil, tc.schema500)
			}
		})
	}
}

func TestResponseCheckHeaders(t *testing.T) {
	e := mustCompile(t, "server/api/users.get.wasm", `{"responses": {
		"200": {"contentType": "application/vnd.a+json", "schema": {"type": "object"}, "headers": {"x-count": {"type": "integer", "minimum": 0}}},
		"204": {}
	}}`)
	for _, tc := range []struct {
		name   string
		status int
		header http.Header
		want   []string // the issues' paths and messages, "" for none
	}{
		{name: "the declared type with parameters", status: 200, header: http.Header{"Content-Type": {"application/vnd.a+json; charset=utf-8"}, "X-Count": {"3"}}},
		{name: "no Content-Type", status: 200, header: http.Header{}},
		{name: "another type", status: 200, header: http.Header{"Content-Type": {"application/json"}},
			want: []string{`[headers Content-Type]: is "application/json", but the contract declares application/vnd.a+json for status 200`}},
		{name: "a header its schema refuses", status: 200, header: http.Header{"X-Count": {"-1"}},
			want: []string{"[headers X-Count]"}},
		{name: "a bodiless status sends any type", status: 204, header: http.Header{"Content-Type": {"text/plain"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			issues := e["GET"].Responses[tc.status].CheckHeaders(tc.status, tc.header)
			if len(issues) != len(tc.want) {
				t.Fatalf("issues = %v, want %d: %q", issues, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				got := fmt.Sprintf("%v: %s", issues[i].Path, issues[i].Message)
				if !strings.HasPrefix(got, w) {
					t.Errorf("issue %d = %q, want %q", i, got, w)
				}
			}
		})
	}
}

func TestCheckAnswer(t *testing.T) {
	// With a request part, the framework's 400 passes undeclared.
	withRequest := mustCompile(t, "server/api/users/[id].get.wasm", `{
		"request": {"params": {"type": "object", "properties": {"id": {"type": "integer"}}}},
		"responses": {
			"200": {"schema": {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}}},
			"201": {"contentType": "application/vnd.a+json", "schema": {"type": "object"}},
			"204": {}
		}}`)["GET"]
	withoutRequest := mustCompile(t, "server/api/users.get.wasm", `{"responses": {"200": {"schema": {"type": "object"}}}}`)["GET"]
	framework400 := `{"statusCode":400,"statusMessage":"Validation Error","data":{"params":[{"path":["id"],"message":"must be an integer"}]}}`
	json := http.Header{"Content-Type": {"application/json"}}
	for _, tc := range []struct {
		name   string
		op     *Operation
		status int
		header http.Header
		body   string
		want   []string // the issues' paths and messages (prefixes), none for nil
	}{
		{name: "a declared answer", op: withRequest, status: 200, header: json, body: `{"id": 2}`},
		{name: "a bodiless status", op: withRequest, status: 204, header: http.Header{}},
		{name: "an undeclared status", op: withRequest, status: 418, header: json, body: `{}`,
			want: []string{"[]: status 418 is not declared in the contract (declared: 200, 201, 204): declare it in the operation's responses (Go: Operation.Responses) or, for many routes, in server/routes.config.json"}},
		{name: "a body its schema refuses", op: withRequest, status: 200, header: json, body: `{"id": "two"}`,
			want: []string{"[id]"}},
		{name: "an empty body for a JSON status", op: withRequest, status: 200, header: json,
			want: []string{"[]: the body is empty, but the contract declares a JSON body for status 200"}},
		{name: "a body that is not JSON", op: withRequest, status: 200, header: json, body: `{"id": `,
			want: []string{"[id]: the body is not valid JSON: "}},
		{name: "headers are checked before the body", op: withRequest, status: 201, header: json, body: `not JSON`,
			want: []string{`[headers Content-Type]: is "application/json", but the contract declares application/vnd.a+json for status 201`}},
		{name: "the framework's 400 with a request part", op: withRequest, status: 400, header: json, body: framework400},
		{name: "another 400 body with a request part", op: withRequest, status: 400, header: json, body: `{"error": "no"}`,
			want: []string{"[]: status 400 is not declared"}},
		{name: "an empty 400 with a request part", op: withRequest, status: 400, header: json,
			want: []string{"[]: status 400 is not declared"}},
		{name: "the framework's 400 without a request part", op: withoutRequest, status: 400, header: json, body: framework400,
			want: []string{"[]: status 400 is not declared in the contract (declared: 200)"}},
		// The document lists the host's 500 and 503 on every operation:
		// a guest's answer in their shape is one it lists.
		{name: "the host's 500", op: withoutRequest, status: 500, header: json, body: `{"statusCode":500,"statusMessage":"Internal Server Error"}`},
		{name: "the host's 503 saying why", op: withoutRequest, status: 503, header: http.Header{"Content-Type": {"application/json"}, "Retry-After": {"1"}},
			body: `{"statusCode":503,"statusMessage":"Service Unavailable","data":{"error":"busy"}}`},
		{name: "the host's 503 without Retry-After", op: withoutRequest, status: 503, header: json, body: `{"statusCode":503,"statusMessage":"Service Unavailable"}`,
			want: []string{"[]: status 503 is not declared"}},
		{name: "another 500 body", op: withoutRequest, status: 500, header: json, body: `{"error":"boom"}`,
			want: []string{"[]: status 500 is not declared"}},
		{name: "a 503 in the shape of a 500", op: withoutRequest, status: 503, header: json, body: `{"statusCode":500,"statusMessage":"Internal Server Error"}`,
			want: []string{"[]: status 503 is not declared"}},
		{name: "an empty 503", op: withoutRequest, status: 503, header: http.Header{},
			want: []string{"[]: status 503 is not declared"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			issues := tc.op.CheckAnswer(tc.status, tc.header, []byte(tc.body))
			if len(issues) != len(tc.want) {
				t.Fatalf("issues = %v, want %d: %q", issues, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				got := fmt.Sprintf("%v: %s", issues[i].Path, issues[i].Message)
				if !strings.HasPrefix(got, w) {
					t.Errorf("issue %d = %q, want %q", i, got, w)
				}
			}
		})
	}
}
