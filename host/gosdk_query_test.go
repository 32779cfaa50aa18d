package host_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// TestGoSDKQueryStylesAndMiddlewareResponses: a Go route's object query
// parameter, declared with the SDK's style tag, is read from the query
// string as its document says and reaches the handler as a struct; a Go
// middleware's declared 429 is listed on the operations it wraps.
func TestGoSDKQueryStylesAndMiddlewareResponses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Go modules")
	}
	dir := goRoutesApp(t, 0)
	files := map[string]string{
		"handlers/shapes/main.go": `//endpoints:route GET /api/shapes
package main

import endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"

type Filter struct {
	Color string ` + "`json:\"color\" enum:\"red,blue\"`" + `
	Size  int    ` + "`json:\"size,omitempty\" minimum:\"1\"`" + `
}

type input struct {
	Filter Filter ` + "`query:\"filter\" style:\"deepObject\"`" + `
}

func init() {
	endpoints.HandleFunc(endpoints.Operation{Summary: "Shapes"}, func(in *input) (Filter, error) {
		return in.Filter, nil
	})
}

func main() {}
`,
		"middleware/throttle/main.go": `//endpoints:middleware 10-throttle
package main

import endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"

type Throttled struct {
	Tenant string ` + "`json:\"tenant\" doc:\"Whose requests are too many.\"`" + `
}

func init() {
	endpoints.DeclareMiddleware(endpoints.Middleware{
		Routes: []string{"/api/**"},
		Before: func(r *endpoints.MiddlewareRequest) (endpoints.Reply, bool) {
			if t := r.Header("X-Tenant"); t == "greedy" {
				return endpoints.Respond(429, Throttled{Tenant: t}), true
			}
			return endpoints.Reply{}, false
		},
		Responses: endpoints.Responses{429: endpoints.JSON[Throttled]("Too many requests from this tenant")},
	})
}

func main() {}
`,
	}
	for rel, src := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := guestbuild.App(t.Context(), dir, dir, nil); err != nil {
		t.Fatal(err)
	}
	srv, logs := (&app{t: t, dir: dir}).serve(host.Options{Mode: host.Development})

	for _, tc := range []struct {
		name, query string
		status      int
		body        string
	}{
		{"deepObject members", "filter[color]=red&filter[size]=2", 200, `{"color":"red","size":2}`},
		{"a member its schema refuses", "filter[color]=green", 400, `"filter","color"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := do(t, srv, "GET", "/api/shapes?"+tc.query, "")
			if got.status != tc.status || !strings.Contains(got.body, tc.body) {
				t.Errorf("GET ?%s = %d %s, want %d with %s", tc.query, got.status, got.body, tc.status, tc.body)
			}
		})
	}
	if got := do(t, srv, "GET", "/api/shapes?filter[color]=red", "", "X-Tenant", "greedy"); got.status != 429 || got.body != `{"tenant":"greedy"}` {
		t.Errorf("the middleware's answer = %d %s, want 429", got.status, got.body)
	}

	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name, In, Style string
				Explode         *bool
			}
			Responses map[string]json.RawMessage
		}
	}
	if err := json.Unmarshal([]byte(do(t, srv, "GET", "/_endpoints/schema", "").body), &doc); err != nil {
		t.Fatal(err)
	}
	op := doc.Paths["/api/shapes"]["get"]
	if len(op.Parameters) != 1 || op.Parameters[0].Name != "filter" || op.Parameters[0].Style != "deepObject" {
		t.Errorf("parameters = %+v, want filter with style deepObject", op.Parameters)
	}
	if r := string(op.Responses["429"]); !strings.Contains(r, "Too many requests from this tenant") || !strings.Contains(r, "Whose requests are too many.") {
		t.Errorf("429 = %s, want the middleware's declaration", r)
	}
	if strings.Contains(logs.String(), "answer breaks the contract") {
		t.Errorf("an answer broke its contract:\n%s", logs)
	}
}
