package host_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
)

const echoContract = `{
 "summary": "echo",
 "request": {
  "params": {"type": "object", "properties": {"id": {"type": "integer", "minimum": 1}}, "required": ["id"]},
  "query": {"type": "object", "properties": {
    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
    "tags": {"type": "array", "items": {"type": "string"}},
    "ids": {"type": "array", "items": {"type": "integer"}},
    "active": {"type": "boolean"},
    "ratio": {"type": "number"},
    "sort": {"enum": ["asc", "desc"]}
  }},
  "headers": {"type": "object", "properties": {"x-tenant": {"type": "string", "minLength": 2}, "x-count": {"type": "integer"}}, "required": ["x-tenant"]},
  "body": {"schema": {"$ref": "#/$defs/Item"}}
 },
 "$defs": {"Item": {"type": "object", "properties": {"name": {"type": "string"}, "qty": {"type": "integer", "default": 1}, "tags": {"type": "array", "items": {"type": "string"}}}, "required": ["name"], "additionalProperties": false}}
}`

// jsonEqual compares two JSON documents by value.
func jsonEqual(t *testing.T, got, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Errorf("got invalid JSON %q: %v", got, err)
		return false
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want is invalid JSON %q: %v", want, err)
	}
	return reflect.DeepEqual(g, w)
}

func TestRequestPipeline(t *testing.T) {
	srv, _ := newApp(t).
		wat("server/api/items/[id].post.wasm", watModule{contract: echoContract, handle: echoEnvelope}).
		serve(host.Options{Limits: config.Limits{BodyBytes: 256}})
	const ct = "application/json"
	tests := []struct {
		name       string
		path, body string
		headers    []string
		wantStatus int
		wantBody   string // JSON compared by value
	}{
		{
			name: "validated and coerced values reach the guest, defaults applied",
			path: "/api/items/7?tags=a&tags=b&ids=1&ids=2&active=true&ratio=0.5&sort=asc&other=x",
			body: `{"name":"pen"}`, headers: []string{"Content-Type", ct, "X-Tenant", "acme", "X-Count", "3", "X-Ignored", "1", "X-Request-Id", "order-7:retry-2"},
			wantStatus: 200,
			wantBody: `{"kind":"endpoint","method":"POST","route":"/api/items/:id","path":"/api/items/7",
				"rawQuery":"tags=a&tags=b&ids=1&ids=2&active=true&ratio=0.5&sort=asc&other=x",
				"requestId":"order-7:retry-2",
				"params":{"id":7},
				"query":{"limit":10,"tags":["a","b"],"ids":[1,2],"active":true,"ratio":0.5,"sort":"asc","other":"x"},
				"headers":{"x-tenant":"acme","x-count":3},
				"contentType":"application/json","body":{"name":"pen","qty":1}}`,
		},
		{
			name: "a single value of an array parameter is an array",
			path: "/api/items/7?tags=solo", body: `{"name":"pen","qty":2}`, headers: []string{"Content-Type", ct, "X-Tenant", "acme", "X-Request-Id", "a"},
			wantStatus: 200,
			wantBody: `{"kind":"endpoint","method":"POST","route":"/api/items/:id","path":"/api/items/7","rawQuery":"tags=solo","requestId":"a",
				"params":{"id":7},"query":{"limit":10,"tags":["solo"]},"headers":{"x-tenant":"acme"},"contentType":"application/json","body":{"name":"pen","qty":2}}`,
		},
		{
			name: "wrong types in path and query name the fields",
			path: "/api/items/abc?limit=many", body: `{"name":"pen"}`, headers: []string{"Content-Type", ct, "X-Tenant", "acme"},
			wantStatus: 400,
			wantBody: `{"statusCode":400,"statusMessage":"Validation Error","data":{
				"params":[{"path":["id"],"message":"expected integer, received string"}],
				"query":[{"path":["limit"],"message":"expected integer, received string"}]}}`,
		},
		{
			name: "every failing part is reported at once",
			path: "/api/items/0?limit=500&ids=1&ids=x&sort=up&active=maybe", body: `{"qty":"two","extra":true}`,
			headers:    []string{"Content-Type", ct, "X-Tenant", "a", "X-Count", "1.5"},
			wantStatus: 400,
			wantBody: `{"statusCode":400,"statusMessage":"Validation Error","data":{
				"params":[{"path":["id"],"message":"must be greater than or equal to 1"}],
				"query":[
					{"path":["active"],"message":"expected boolean, received string"},
					{"path":["ids",1],"message":"expected integer, received string"},
					{"path":["limit"],"message":"must be less than or equal to 100"},
					{"path":["sort"],"message":"must be one of \"asc\", \"desc\""}],
				"headers":[
					{"path":["x-count"],"message":"expected integer, received number"},
					{"path":["x-tenant"],"message":"must contain at least 2 characters"}],
				"body":[
					{"path":["extra"],"message":"is not an allowed property"},
					{"path":["name"],"message":"is required"},
					{"path":["qty"],"message":"expected integer, received string"}]}}`,
		},
		{
			name: "a missing required header",
			path: "/api/items/1", body: `{"name":"pen"}`, headers: []string{"Content-Type", ct},
			wantStatus: 400,
			wantBody:   `{"statusCode":400,"statusMessage":"Validation Error","data":{"headers":[{"path":["x-tenant"],"message":"is required"}]}}`,
		},
		{
			name: "malformed JSON is a validation failure of the body",
			path: "/api/items/1", body: `{"name":`, headers: []string{"Content-Type", ct, "X-Tenant", "acme"},
			wantStatus: 400,
			wantBody:   `{"statusCode":400,"statusMessage":"Validation Error","data":{"body":[{"path":["name"],"message":"invalid JSON at byte 8: expected a value, found end of input"}]}}`,
		},
		{
			name: "a missing body",
			path: "/api/items/1", headers: []string{"X-Tenant", "acme"},
			wantStatus: 400,
			wantBody:   `{"statusCode":400,"statusMessage":"Validation Error","data":{"body":[{"path":[],"message":"a request body is required (application/json)"}]}}`,
		},
		{
			name: "a JSON body sent as text/plain is 415 listing application/json",
			path: "/api/items/1", body: `{"name":"pen"}`, headers: []string{"Content-Type", "text/plain", "X-Tenant", "acme"},
			wantStatus: 415,
			wantBody:   `{"statusCode":415,"statusMessage":"Unsupported Media Type","data":{"received":"text/plain","supportedMediaTypes":["application/json"]}}`,
		},
		{
			name: "415 comes before validation of the other parts",
			path: "/api/items/abc", body: `{"name":"pen"}`, headers: []string{"Content-Type", "application/xml"},
			wantStatus: 415,
			wantBody:   `{"statusCode":415,"statusMessage":"Unsupported Media Type","data":{"received":"application/xml","supportedMediaTypes":["application/json"]}}`,
		},
		{
			name: "a body over the limit is 413",
			path: "/api/items/1", body: `{"name":"` + strings.Repeat("x", 300) + `"}`, headers: []string{"Content-Type", ct, "X-Tenant", "acme"},
			wantStatus: 413,
			wantBody:   `{"statusCode":413,"statusMessage":"Request Entity Too Large","data":{"limit":256}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := do(t, srv, "POST", tt.path, tt.body, tt.headers...)
			if res.status != tt.wantStatus || !jsonEqual(t, res.body, tt.wantBody) {
				t.Errorf("got %d %s\nwant %d %s", res.status, res.body, tt.wantStatus, tt.wantBody)
			}
			if ct := res.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q, want application/json", ct)
			}
		})
	}
}

func TestRoutingAnswers(t *testing.T) {
	srv, _ := newApp(t).
		wat("server/api/items/[id].get.wasm", watModule{contract: `{"summary":"get"}`, handle: echoEnvelope}).
		wat("server/api/items/[id].patch.wasm", watModule{contract: `{"summary":"patch"}`, handle: echoEnvelope}).
		wat("server/api/fixed.get.wasm", watModule{contract: `{"summary":"fixed"}`, handle: goodWrite + ` (i32.const 0)`, extra: goodBodyData}).
		serve(host.Options{})
	tests := []struct {
		name, method, path string
		wantStatus         int
		wantAllow          string
		wantBody           string
	}{
		{"unknown path is 404", "GET", "/api/nothing", 404, "", `{"statusCode":404,"statusMessage":"Not Found","data":{"path":"/api/nothing"}}`},
		{"wrong method is 405 with Allow", "DELETE", "/api/items/1", 405, "GET, HEAD, OPTIONS, PATCH",
			`{"statusCode":405,"statusMessage":"Method Not Allowed","data":{"allow":["GET","HEAD","OPTIONS","PATCH"],"method":"DELETE"}}`},
		{"OPTIONS is 204 with Allow", "OPTIONS", "/api/items/1", 204, "GET, HEAD, OPTIONS, PATCH", ""},
		{"HEAD is GET without a body", "HEAD", "/api/items/1", 200, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := do(t, srv, tt.method, tt.path, "")
			if res.status != tt.wantStatus {
				t.Fatalf("got %d %s, want %d", res.status, res.body, tt.wantStatus)
			}
			if got := res.header.Get("Allow"); got != tt.wantAllow {
				t.Errorf("Allow = %q, want %q", got, tt.wantAllow)
			}
			if tt.wantBody == "" && res.body != "" || tt.wantBody != "" && !jsonEqual(t, res.body, tt.wantBody) {
				t.Errorf("body = %q, want %q", res.body, tt.wantBody)
			}
		})
	}
	t.Run("HEAD keeps the Content-Length of GET", func(t *testing.T) {
		get, head := do(t, srv, "GET", "/api/fixed", ""), do(t, srv, "HEAD", "/api/fixed", "")
		if head.header.Get("Content-Length") != get.header.Get("Content-Length") || get.header.Get("Content-Length") == "" {
			t.Errorf("HEAD Content-Length %q, GET %q", head.header.Get("Content-Length"), get.header.Get("Content-Length"))
		}
	})
}

// Answers the response checks look at.
var (
	badBodyData, badBodyWrite = watWrite(4096, `{"id":"seven"}`)
	goodBodyData, goodWrite   = watWrite(4096, `{"id":7}`)
)

// A guest's 400 in the framework's shape, as the Go SDK answers a value
// its input cannot hold, and one in another shape.
const (
	queryRequest      = `"request":{"query":{"type":"object","properties":{"limit":{"type":"integer"}}}}`
	validation400Body = `{"statusCode":400,"statusMessage":"Validation Error","data":{"query":[{"path":["limit"],"message":"expected integer, received number"}]}}`
	ownBadRequest     = `"responses":{"200":{"description":"ok"},"400":{"description":"Bad input","schema":{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}}}`
)

var (
	validation400Data, validation400Write = watWrite(4096, validation400Body)
	other400Data, other400Write           = watWrite(4096, `{"error":"no"}`)
	refuse400                             = `(drop (call $set_status (i32.const 400))) ` + validation400Write + ` (i32.const 0)`
	refuseOther                           = `(drop (call $set_status (i32.const 400))) ` + other400Write + ` (i32.const 0)`
)

const userResponses = `"responses":{"200":{"description":"ok","schema":{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}},"404":{"description":"none"}}`

func TestResponseContract(t *testing.T) {
	a := newApp(t).
		wat("server/api/bad.get.wasm", watModule{contract: `{` + userResponses + `}`, handle: badBodyWrite + ` (i32.const 0)`, extra: badBodyData}).
		wat("server/api/teapot.get.wasm", watModule{contract: `{` + userResponses + `}`, handle: `(drop (call $set_status (i32.const 418))) (i32.const 0)`}).
		wat("server/api/empty.get.wasm", watModule{contract: `{` + userResponses + `}`, handle: `(i32.const 0)`}).
		wat("server/api/good.get.wasm", watModule{contract: `{` + userResponses + `}`, handle: goodWrite + ` (i32.const 0)`, extra: goodBodyData}).
		wat("server/api/inferred.get.wasm", watModule{contract: `{"responsesInferred":true,` + userResponses + `}`, handle: badBodyWrite + ` (i32.const 0)`, extra: badBodyData}).
		wat("server/api/refuse.get.wasm", watModule{contract: `{` + queryRequest + `,` + userResponses + `}`, handle: refuse400, extra: validation400Data}).
		wat("server/api/refuse-own.get.wasm", watModule{contract: `{` + queryRequest + `,` + ownBadRequest + `}`, handle: refuse400, extra: validation400Data}).
		wat("server/api/refuse-other.get.wasm", watModule{contract: `{` + queryRequest + `,` + userResponses + `}`, handle: refuseOther, extra: other400Data}).
		wat("server/api/refuse-no-input.get.wasm", watModule{contract: `{` + userResponses + `}`, handle: refuse400, extra: validation400Data})
	contractError := func(status int, issues string) string {
		return `{"statusCode":500,"statusMessage":"Response Contract Error","data":{"status":` + itoa(status) + `,"issues":` + issues + `}}`
	}
	tests := []struct {
		name       string
		opts       host.Options
		path       string
		wantStatus int
		wantBody   string
	}{
		{"development: a body that breaks its schema is a 500 naming the field", host.Options{Mode: host.Development}, "/api/bad", 500,
			contractError(200, `[{"path":["id"],"message":"expected integer, received string"}]`)},
		{"development: an undeclared status", host.Options{Mode: host.Development}, "/api/teapot", 500,
			contractError(418, `[{"path":[],"message":"status 418 is not declared in the contract (declared: 200, 404): declare it in the operation's responses (Go: Operation.Responses) or, for many routes, in server/routes.config.json"}]`)},
		{"development: an empty body where JSON is declared", host.Options{Mode: host.Development}, "/api/empty", 500,
			contractError(200, `[{"path":[],"message":"the body is empty, but the contract declares a JSON body for status 200"}]`)},
		{"development: a good answer passes", host.Options{Mode: host.Development}, "/api/good", 200, `{"id":7}`},
		{"development: inferred responses are not checked", host.Options{Mode: host.Development}, "/api/inferred", 200, `{"id":"seven"}`},
		{"development: the framework's 400 passes for an operation with a request part", host.Options{Mode: host.Development}, "/api/refuse", 400,
			validation400Body},
		{"development: the framework's 400 passes beside a declared 400", host.Options{Mode: host.Development}, "/api/refuse-own", 400,
			validation400Body},
		{"development: another 400 is not declared", host.Options{Mode: host.Development}, "/api/refuse-other", 500,
			contractError(400, `[{"path":[],"message":"status 400 is not declared in the contract (declared: 200, 404): declare it in the operation's responses (Go: Operation.Responses) or, for many routes, in server/routes.config.json"}]`)},
		{"development: no framework 400 without a request part", host.Options{Mode: host.Development}, "/api/refuse-no-input", 500,
			contractError(400, `[{"path":[],"message":"status 400 is not declared in the contract (declared: 200, 404): declare it in the operation's responses (Go: Operation.Responses) or, for many routes, in server/routes.config.json"}]`)},
		{"production: not checked by default", host.Options{Mode: host.Production}, "/api/bad", 200, `{"id":"seven"}`},
		{"production with policy always", host.Options{Mode: host.Production, ResponseValidation: config.ValidateAlways}, "/api/bad", 500,
			contractError(200, `[{"path":["id"],"message":"expected integer, received string"}]`)},
		{"development with policy never", host.Options{Mode: host.Development, ResponseValidation: config.ValidateNever}, "/api/teapot", 418, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, _ := a.host(tt.opts)
			rec := newRecorder()
			h.ServeHTTP(rec, mustRequest(t, "GET", tt.path))
			body := rec.Body.String()
			if rec.Code != tt.wantStatus || (tt.wantBody == "" && body != "") || (tt.wantBody != "" && !jsonEqual(t, body, tt.wantBody)) {
				t.Errorf("got %d %s\nwant %d %s", rec.Code, body, tt.wantStatus, tt.wantBody)
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestPlainRoutes(t *testing.T) {
	headerData := `  (data (i32.const 3000) "x-guest") (data (i32.const 3010) "yes") (data (i32.const 3020) "Content-Length") (data (i32.const 3040) "rejected")` + "\n"
	srv, _ := newApp(t).
		wat("server/routes/files/[...path].wasm", watModule{handle: echoEnvelope}).
		wat("server/routes/echo.post.wasm", watModule{handle: `
			(block $done (loop $more
				(local.set $n (call $body_read (i32.const 65536) (i32.const 1000)))
				(br_if $done (i32.le_s (local.get $n) (i32.const 0)))
				(drop (call $write (i32.const 65536) (local.get $n)))
				(br $more)))
			(i32.const 0)`}).
		wat("server/routes/headers.get.wasm", watModule{extra: headerData, handle: `
			(drop (call $set_status (i32.const 201)))
			(drop (call $set_header (i32.const 3000) (i32.const 7) (i32.const 3010) (i32.const 3)))
			(if (i32.eq (call $set_header (i32.const 3020) (i32.const 14) (i32.const 3010) (i32.const 3)) (i32.const -2))
				(then (drop (call $write (i32.const 3040) (i32.const 8)))))
			(i32.const 0)`}).
		serve(host.Options{})

	t.Run("catch-all params and raw headers in the envelope", func(t *testing.T) {
		res := do(t, srv, "PUT", "/files/a/b%20c.txt?x=1", "", "X-Thing", "one", "X-Thing", "two")
		var env struct {
			Kind    string              `json:"kind"`
			Method  string              `json:"method"`
			Route   string              `json:"route"`
			Params  map[string]string   `json:"params"`
			Headers map[string][]string `json:"headers"`
			Raw     string              `json:"rawQuery"`
		}
		if err := json.Unmarshal([]byte(res.body), &env); err != nil {
			t.Fatalf("%v: %s", err, res.body)
		}
		if env.Kind != "plain" || env.Method != "PUT" || env.Route != "/files/**:path" || env.Params["path"] != "a/b c.txt" || env.Raw != "x=1" {
			t.Errorf("envelope = %+v", env)
		}
		if got := env.Headers["x-thing"]; !reflect.DeepEqual(got, []string{"one", "two"}) {
			t.Errorf("headers[x-thing] = %q, want [one two]", got)
		}
	})
	t.Run("body streamed to the guest in chunks", func(t *testing.T) {
		body := strings.Repeat("0123456789", 10_000)
		if res := do(t, srv, "POST", "/echo", body); res.status != 200 || res.body != body {
			t.Errorf("echo of %d bytes: got %d with %d bytes", len(body), res.status, len(res.body))
		}
	})
	t.Run("status and headers set by the guest; host-owned headers refused", func(t *testing.T) {
		res := do(t, srv, "GET", "/headers", "")
		if res.status != 201 || res.header.Get("X-Guest") != "yes" || res.body != "rejected" {
			t.Errorf("got %d x-guest=%q body=%q, want 201 yes rejected", res.status, res.header.Get("X-Guest"), res.body)
		}
	})
}

// TestMultiMethodModule: a module without a method suffix declares one
// operation per method; others get 405 with Allow, HEAD follows GET, and
// each method is validated against its own contract and documented as
// its own operation.
func TestMultiMethodModule(t *testing.T) {
	contract := `{"summary":"things","methods":{
		"get": {"summary":"Read a thing","request":{"query":{"type":"object","properties":{"full":{"type":"boolean"}}}}},
		"put": {"summary":"Replace a thing","request":{"body":{"schema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}}}}`
	srv, _ := newApp(t).
		wat("server/api/things/[id].wasm", watModule{contract: contract, handle: echoEnvelope}).
		serve(host.Options{Mode: host.Development})
	tests := []struct {
		name, method, path, body string
		headers                  []string
		wantStatus               int
		wantIn, wantAllow        string
	}{
		{"GET validated by its own contract", "GET", "/api/things/1?full=true", "", nil, 200, `"query":{"full":true}`, ""},
		{"GET refuses what GET's contract refuses", "GET", "/api/things/1?full=maybe", "", nil, 400, `"path":["full"]`, ""},
		{"PUT validated by its own contract", "PUT", "/api/things/1", `{"name":"x"}`, []string{"Content-Type", "application/json"}, 200, `"body":{"name":"x"}`, ""},
		{"PUT refuses a body without name", "PUT", "/api/things/1", `{}`, []string{"Content-Type", "application/json"}, 400, `"path":["name"]`, ""},
		{"HEAD follows GET", "HEAD", "/api/things/1", "", nil, 200, "", ""},
		{"an undeclared method is 405", "DELETE", "/api/things/1", "", nil, 405, `"allow":["GET","HEAD","OPTIONS","PUT"]`, "GET, HEAD, OPTIONS, PUT"},
		{"OPTIONS lists the methods", "OPTIONS", "/api/things/1", "", nil, 204, "", "GET, HEAD, OPTIONS, PUT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := do(t, srv, tt.method, tt.path, tt.body, tt.headers...)
			if res.status != tt.wantStatus || !strings.Contains(res.body, tt.wantIn) || res.header.Get("Allow") != tt.wantAllow {
				t.Errorf("got %d Allow=%q %s; want %d Allow=%q containing %s", res.status, res.header.Get("Allow"), res.body, tt.wantStatus, tt.wantAllow, tt.wantIn)
			}
		})
	}
	doc := do(t, srv, "GET", "/_endpoints/schema", "").body
	for _, want := range []string{`"operationId": "getApiThingsById"`, `"operationId": "putApiThingsById"`, `"summary": "Read a thing"`, `"summary": "Replace a thing"`} {
		if !strings.Contains(doc, want) {
			t.Errorf("the document lacks %s", want)
		}
	}
}

// TestPlainRouteWithoutSuffixServesTheOtherMethods: a plain module without
// a method suffix serves the methods no module with a suffix claims at its
// path, and the one with a suffix serves its own (Nitro's rule).
func TestPlainRouteWithoutSuffixServesTheOtherMethods(t *testing.T) {
	srv, _ := newApp(t).
		wat("server/routes/dup.wasm", watModule{handle: echoEnvelope}).
		wat("server/routes/dup.get.wasm", echoWithMarker).
		serve(host.Options{Mode: host.Development})
	if res := do(t, srv, "GET", "/dup", ""); res.status != 200 || res.header.Get("X-Handler") != "ran" {
		t.Errorf("GET = %d %v %s, want dup.get.wasm's answer", res.status, res.header, res.body)
	}
	if res := do(t, srv, "POST", "/dup", ""); res.status != 200 || res.header.Get("X-Handler") != "" || !strings.Contains(res.body, `"method":"POST"`) {
		t.Errorf("POST = %d %v %s, want dup.wasm's echo", res.status, res.header, res.body)
	}
}

// TestHostHeaderIsReadable: net/http moves Host out of the header map, but
// a guest reads it like any other header: with request_header, in a plain
// route's envelope, and as a header its contract declares.
func TestHostHeaderIsReadable(t *testing.T) {
	readHost := `(local.set $n (call $request_header (i32.const 3000) (i32.const 4) (i32.const 65536) (i32.const 1024)))
    (if (i32.lt_s (local.get $n) (i32.const 0)) (then (return (i32.const 1))))
    (drop (call $write (i32.const 65536) (local.get $n)))
    (i32.const 0)`
	srv, _ := newApp(t).
		wat("server/routes/host.get.wasm", watModule{handle: readHost, extra: `  (data (i32.const 3000) "host")` + "\n"}).
		wat("server/routes/envelope.get.wasm", watModule{handle: echoEnvelope}).
		wat("server/api/declared.get.wasm", watModule{contract: `{"request":{"headers":{"type":"object","properties":{"host":{"type":"string","pattern":"^example\\.test(:[0-9]+)?$"}},"required":["host"]}}}`, handle: echoEnvelope}).
		serve(host.Options{Mode: host.Development})
	if res := do(t, srv, "GET", "/host", "", "Host", "example.test:8080"); res.status != 200 || res.body != "example.test:8080" {
		t.Errorf("request_header(host) = %d %q, want example.test:8080", res.status, res.body)
	}
	if res := do(t, srv, "GET", "/envelope", "", "Host", "example.test"); !strings.Contains(res.body, `"host":["example.test"]`) {
		t.Errorf("the plain envelope lacks the host header: %s", res.body)
	}
	if res := do(t, srv, "GET", "/api/declared", "", "Host", "example.test"); res.status != 200 || !strings.Contains(res.body, `"headers":{"host":"example.test"}`) {
		t.Errorf("a declared host header = %d %s, want it validated and passed", res.status, res.body)
	}
	if res := do(t, srv, "GET", "/api/declared", "", "Host", "other.test"); res.status != 400 || !strings.Contains(res.body, `"host"`) {
		t.Errorf("a host the contract refuses = %d %s, want 400 naming host", res.status, res.body)
	}
}
