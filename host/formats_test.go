package host_test

import (
	"testing"

	"github.com/wasmendpoints/endpoints/host"
)

// TestRangeFormatsOverHTTP: "format": "int32" and "int64" bound the numbers
// of a query and a JSON body, and the refusal says the range.
func TestRangeFormatsOverHTTP(t *testing.T) {
	contract := `{"request": {
		"query": {"type": "object", "properties": {"limit": {"type": "integer", "format": "int32"}}},
		"body": {"schema": {"type": "object", "properties": {"id": {"type": "integer", "format": "int64"}, "n": {"type": "integer", "format": "int32"}}}}}}`
	srv, _ := newApp(t).
		wat("server/api/items.post.wasm", watModule{contract: contract, handle: plainOK, extra: okData}).
		serve(host.Options{})
	const int32Words = "must be an integer from -2147483648 to 2147483647 (int32)"
	tests := []struct {
		name, query, body string
		wantStatus        int
		want              string
	}{
		{"int32 edges pass", "?limit=2147483647", `{"n": -2147483648, "id": 9223372036854775807}`, 200, `ok`},
		{"a query past int32", "?limit=2147483648", `{}`, 400,
			`{"statusCode":400,"statusMessage":"Validation Error","data":{"query":[{"path":["limit"],"message":"` + int32Words + `"}]}}`},
		{"a body past int32", "", `{"n": 2147483648}`, 400,
			`{"statusCode":400,"statusMessage":"Validation Error","data":{"body":[{"path":["n"],"message":"` + int32Words + `"}]}}`},
		{"a body past int64", "", `{"id": 9223372036854775808}`, 400,
			`{"statusCode":400,"statusMessage":"Validation Error","data":{"body":[{"path":["id"],"message":"must be an integer from -9223372036854775808 to 9223372036854775807 (int64)"}]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := do(t, srv, "POST", "/api/items"+tt.query, tt.body, "Content-Type", "application/json")
			if res.status != tt.wantStatus {
				t.Fatalf("status %d, want %d; body %s", res.status, tt.wantStatus, res.body)
			}
			if res.status == 200 {
				if res.body != tt.want {
					t.Errorf("body %q, want %q", res.body, tt.want)
				}
				return
			}
			if !jsonEqual(t, res.body, tt.want) {
				t.Errorf("body %s\nwant %s", res.body, tt.want)
			}
		})
	}
}
