package envelope_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/envelope"
	"github.com/wasmendpoints/endpoints/host/internal/requestbody"
	"github.com/wasmendpoints/endpoints/internal/jsonvalue"
	"github.com/wasmendpoints/endpoints/internal/validation"
)

// jsonBody is a request body taken as an operation declaring a JSON body
// takes it.
func jsonBody(t *testing.T, body string) *requestbody.Body {
	t.Helper()
	comp, err := validation.NewContract("test.wasm", []byte(`{"request":{"body":{"schema":{}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	d, err := requestbody.Compile(comp, "test.wasm", &abi.Body{Schema: json.RawMessage(`{}`)}, "")
	if err != nil {
		t.Fatal(err)
	}
	var b requestbody.Body
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	if !b.Choose(d, "application/json") {
		t.Fatal("Choose(application/json) = false")
	}
	var issues []validation.Issue
	if o := b.Take(r, d, requestbody.Options{Limit: 1 << 10, JSON: jsonvalue.Limits{MaxDepth: 8, MaxValues: 100}}, &issues); o != requestbody.Read || issues != nil {
		t.Fatalf("Take = %v, %v", o, issues)
	}
	return &b
}

func TestAppend(t *testing.T) {
	get := httptest.NewRequest(http.MethodGet, "http://api.test/users/7?verbose=1", nil)
	get.Header.Set("X-B", "2")
	get.Header.Add("X-A", "1")
	get.Header.Add("X-A", "one")
	get.Header.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	endpoint := envelope.Parts{Params: map[string]any{"id": int64(7)}, Query: map[string]any{"verbose": true}, Headers: map[string]any{}, Body: &requestbody.Body{}}
	tests := []struct {
		name string
		req  envelope.Request
		want string
	}{
		{"endpoint", envelope.Request{Parts: endpoint, HTTP: get, Kind: abi.KindEndpoint, Route: "/users/:id", MediaType: "application/json",
			RequestID: "r1", TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", Principal: &abi.Principal{Scheme: "bearer", Subject: "ann"}, Values: map[string]string{"b": "2", "a": "1"}},
			`{"kind":"endpoint","method":"GET","route":"/users/:id","path":"/users/7","rawQuery":"verbose=1","requestId":"r1","traceId":"4bf92f3577b34da6a3ce929d0e0e4736",` +
				`"auth":{"scheme":"bearer","subject":"ann"},"context":{"a":"1","b":"2"},"params":{"id":7},"query":{"verbose":true},"headers":{},"mediaType":"application/json"}`},
		{"endpoint with a JSON body", envelope.Request{Parts: envelope.Parts{Params: map[string]any{}, Query: map[string]any{}, Headers: map[string]any{}, Body: jsonBody(t, `{"n":2}`)},
			HTTP: httptest.NewRequest(http.MethodPost, "/users", nil), Kind: abi.KindEndpoint, Route: "/users"},
			`{"kind":"endpoint","method":"POST","route":"/users","path":"/users","params":{},"query":{},"headers":{},"contentType":"application/json","body":{"n":2}}`},
		{"plain route: the raw headers, Host included", envelope.Request{Parts: envelope.Parts{Body: &requestbody.Body{}, Plain: true}, HTTP: get, Kind: abi.KindPlain, Route: "/users/*"},
			`{"kind":"plain","method":"GET","route":"/users/*","path":"/users/7","rawQuery":"verbose=1",` +
				`"headers":{"host":["api.test"],"traceparent":["00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"],"x-a":["1","one"],"x-b":["2"]}}`},
		{"middleware after a streamed answer", envelope.Request{Parts: envelope.Parts{Params: map[string]any{}, Body: &requestbody.Body{}, Plain: true}, HTTP: httptest.NewRequest(http.MethodGet, "/x", nil),
			Kind: abi.KindMiddleware, Route: "/x", Phase: abi.PhaseAfter, AfterStatus: 201, Sent: true},
			`{"kind":"middleware","method":"GET","route":"/x","path":"/x","phase":"after","response":{"status":201,"sent":true},"headers":{"host":["example.com"]}}`},
		{"middleware verifying: no principal yet", envelope.Request{Parts: envelope.Parts{Params: map[string]any{}, Query: map[string]any{}, Headers: map[string]any{}, Body: &requestbody.Body{}},
			HTTP: httptest.NewRequest(http.MethodGet, "/x", nil), Kind: abi.KindMiddleware, Route: "/x", Principal: &abi.Principal{Scheme: "s"},
			Phase: abi.PhaseVerify, Verify: &abi.VerifyRequest{Scheme: "s", Scopes: []string{"read"}}},
			`{"kind":"middleware","method":"GET","route":"/x","path":"/x","phase":"verify","verify":{"scheme":"s","scopes":["read"]},"params":{},"query":{},"headers":{}}`},
		{"a validation failure: no parts", envelope.Request{Parts: envelope.Parts{Params: map[string]any{"id": "x"}, Body: &requestbody.Body{},
			Failure: &abi.ValidationFailure{Kind: abi.FailureSchema, Status: 400, Part: "params"}}, HTTP: get, Kind: abi.KindEndpoint, Route: "/users/:id"},
			`{"kind":"endpoint","method":"GET","route":"/users/:id","path":"/users/7","rawQuery":"verbose=1","error":{"kind":"schema","status":400,"part":"params"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := envelope.Append([]byte("kept"), &tt.req)
			if !strings.HasPrefix(string(got), "kept") {
				t.Fatalf("Append dropped what b held: %s", got)
			}
			got = got[len("kept"):]
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			var e abi.Envelope
			if err := json.Unmarshal(got, &e); err != nil {
				t.Errorf("the envelope does not decode as abi.Envelope: %v", err)
			}
		})
	}
}

func TestValue(t *testing.T) {
	parts := envelope.Parts{
		Params:  map[string]any{"id": int64(7)},
		Query:   map[string]any{"tags": []any{"a", "b"}},
		Headers: map[string]any{"x-n": int64(1)},
		Body:    jsonBody(t, `{"name":"ann","age":3.0}`),
	}
	plain := envelope.Parts{Params: map[string]any{"id": "7"}, Body: &requestbody.Body{}, Plain: true}
	failed := parts
	failed.Failure = &abi.ValidationFailure{Kind: abi.FailureSchema}
	tests := []struct {
		name  string
		parts *envelope.Parts
		part  abi.Part
		key   string
		want  string
		errno abi.Errno
	}{
		{"a parameter", &parts, abi.PartParams, "id", "7", 0},
		{"a query array", &parts, abi.PartQuery, "tags", `["a","b"]`, 0},
		{"a header, case-insensitive", &parts, abi.PartHeaders, "X-N", "1", 0},
		{"a whole part", &parts, abi.PartParams, "", `{"id":7}`, 0},
		{"the whole body, canonical", &parts, abi.PartBody, "", `{"age":3,"name":"ann"}`, 0},
		{"a body member", &parts, abi.PartBody, "name", `"ann"`, 0},
		{"a missing member", &parts, abi.PartQuery, "nope", "", abi.ErrNotFound},
		{"an unknown part", &parts, abi.Part(99), "", "", abi.ErrInvalid},
		{"while a validation failure is handled", &failed, abi.PartParams, "id", "", abi.ErrNotFound},
		{"a plain route's parameters", &plain, abi.PartParams, "", `{"id":"7"}`, 0},
		{"a plain route has no query values", &plain, abi.PartQuery, "", "", abi.ErrNotFound},
		{"a plain route has no body value", &plain, abi.PartBody, "", "", abi.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errno := envelope.Value(make([]byte, 0, 8), tt.parts, tt.part, tt.key)
			if errno != tt.errno || string(got) != tt.want {
				t.Errorf("Value(%v, %q) = %s, %v; want %s, %v", tt.part, tt.key, got, errno, tt.want, tt.errno)
			}
		})
	}
}
