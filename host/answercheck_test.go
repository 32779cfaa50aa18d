package host_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
)

// TestAnswerCheckHeaders: in development the answer check reads the
// answer's Content-Type and its declared headers, not only its status and
// body, and "responses": {} declares nothing, as the document says.
func TestAnswerCheckHeaders(t *testing.T) {
	// answer writes {} after setting header name to value ("" for none).
	answer := func(name, value string) (handle, extra string) {
		extra = okData + `  (data (i32.const 3000) "{}")` + "\n"
		handle = `(drop (call $write (i32.const 3000) (i32.const 2))) (i32.const 0)`
		if name != "" {
			extra += fmt.Sprintf("  (data (i32.const 3100) \"%s\")\n  (data (i32.const 3200) \"%s\")\n", watString(name), watString(value))
			handle = fmt.Sprintf("(drop (call $set_header (i32.const 3100) (i32.const %d) (i32.const 3200) (i32.const %d))) ", len(name), len(value)) + handle
		}
		return
	}
	const declared = `{"responses": {"201": {"schema": {"type": "object"}, "headers": {"Location": {"type": "string", "pattern": "^/api/"}, "X-Count": {"type": "integer"}}}}}`
	tests := []struct {
		name, contract, header, value string
		wantStatus                    int
		wantIssue                     string // in the 500's body
	}{
		{"a declared header that fits", declared, "Location", "/api/notes/1", 201, ""},
		{"a declared header its schema refuses", declared, "Location", "https://elsewhere.example/", 500, `"path":["headers","Location"]`},
		{"an integer header that is not one", declared, "X-Count", "many", 500, `"path":["headers","X-Count"]`},
		{"an integer header that is one", declared, "X-Count", "3", 201, ""},
		{"the declared JSON type with a parameter", declared, "Content-Type", "application/json; charset=utf-8", 201, ""},
		{"another Content-Type than the declared one", declared, "Content-Type", "text/plain", 500, `"path":["headers","Content-Type"]`},
		{"responses {} checks nothing, as the document's default says", `{"responses": {}}`, "", "", 201, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			handle, extra := answer(tt.header, tt.value)
			handle = `(drop (call $set_status (i32.const 201))) ` + handle
			srv, _ := newApp(t).wat("server/api/notes.post.wasm", watModule{contract: tt.contract, handle: handle, extra: extra}).
				serve(host.Options{Mode: host.Development})
			res := do(t, srv, "POST", "/api/notes", "")
			if res.status != tt.wantStatus {
				t.Fatalf("status %d %s, want %d", res.status, res.body, tt.wantStatus)
			}
			if tt.wantIssue != "" && !strings.Contains(res.body, tt.wantIssue) {
				t.Errorf("body %s, want an issue with %s", res.body, tt.wantIssue)
			}
		})
	}
}
