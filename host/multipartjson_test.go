package host_test

import (
	"encoding/json"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
)

// TestMultipartJSONPart: an object or array property of a multipart body
// sent as one application/json part (OpenAPI's default encoding for an
// object) is decoded and validated as JSON.
func TestMultipartJSONPart(t *testing.T) {
	contract := `{"request": {"body": {"content": {"multipart/form-data": {"schema": {"type": "object", "properties": {
		"name": {"type": "string"},
		"meta": {"type": "object", "properties": {"size": {"type": "integer", "format": "int32"}}, "required": ["size"]},
		"tags": {"type": "array", "items": {"type": "string"}}}}}}}}}`
	srv, _ := newApp(t).
		wat("server/api/items.post.wasm", watModule{contract: contract, handle: echoEnvelope}).
		serve(host.Options{})
	const mp = "multipart/form-data; boundary=b0undary"
	tests := []struct {
		name       string
		parts      []part
		wantStatus int
		want       string // the envelope's body, or the 400's data.body
	}{
		{"an application/json part is an object",
			[]part{{name: "name", content: "Ada"}, {name: "meta", filename: "-", contentType: "application/json", content: `{"size": 2}`}}, 200,
			`{"name":"Ada","meta":{"size":2}}`},
		{"an object part without a type is JSON too (OpenAPI's default)",
			[]part{{name: "meta", content: `{"size": 3}`}}, 200,
			`{"meta":{"size":3}}`},
		{"an array sent as one JSON part",
			[]part{{name: "tags", filename: "-", contentType: "application/json", content: `["a","b"]`}}, 200,
			`{"tags":["a","b"]}`},
		{"repeated text parts still make an array",
			[]part{{name: "tags", content: "a"}, {name: "tags", content: "b"}}, 200,
			`{"tags":["a","b"]}`},
		{"the JSON part is validated by its schema",
			[]part{{name: "meta", filename: "-", contentType: "application/json", content: `{"size": 2147483648}`}}, 400,
			`[{"path":["meta","size"],"message":"must be an integer from -2147483648 to 2147483647 (int32)"}]`},
		{"a JSON part that does not parse names its field",
			[]part{{name: "meta", filename: "-", contentType: "application/json", content: `{"size": `}}, 400,
			`[{"path":["meta","size"],"message":"part \"meta\" is not JSON: invalid JSON at byte 9: expected a value, found end of input"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := do(t, srv, "POST", "/api/items", multipartBody(t, tt.parts...), "Content-Type", mp)
			if res.status != tt.wantStatus {
				t.Fatalf("status %d, want %d; body %s", res.status, tt.wantStatus, res.body)
			}
			var got struct {
				Body json.RawMessage `json:"body"`
				Data struct {
					Body json.RawMessage `json:"body"`
				} `json:"data"`
			}
			if err := json.Unmarshal([]byte(res.body), &got); err != nil {
				t.Fatalf("answer %q: %v", res.body, err)
			}
			b := got.Body
			if res.status != 200 {
				b = got.Data.Body
			}
			if !jsonEqual(t, string(b), tt.want) {
				t.Errorf("body = %s\nwant   %s", b, tt.want)
			}
		})
	}
}
