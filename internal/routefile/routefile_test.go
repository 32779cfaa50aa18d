package routefile

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, file, method, pattern, openapi string
	}{
		{"param with method suffix", "server/api/users/[id].get.wasm", "GET", "/api/users/:id", "/api/users/{id}"},
		{"index maps to its folder", "server/api/users/index.post.wasm", "POST", "/api/users", "/api/users"},
		{"routes dir mounts at root", "server/routes/health.get.wasm", "GET", "/health", "/health"},
		{"root index", "server/routes/index.wasm", "", "/", "/"},
		{"no suffix serves every method", "server/api/things.wasm", "", "/api/things", "/api/things"},
		{"dots inside a name stay", "server/routes/openapi.json.get.wasm", "GET", "/openapi.json", "/openapi.json"},
		{"param directory", "server/api/users/[id]/posts.get.wasm", "GET", "/api/users/:id/posts", "/api/users/{id}/posts"},
		{"catch-all", "server/routes/files/[...path].wasm", "", "/files/**:path", "/files/{path}"},
		{"optional param", "server/routes/docs/[[page]].get.wasm", "GET", "/docs/:page?", "/docs/{page}"},
		{"a method word alone is a name", "server/api/get.wasm", "", "/api/get", "/api/get"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Parse(tt.file)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.file, err)
			}
			if r.Method != tt.method || r.Pattern() != tt.pattern || r.OpenAPIPath() != tt.openapi {
				t.Errorf("Parse(%q) = %s %s %s, want %s %s %s", tt.file, r.Method, r.Pattern(), r.OpenAPIPath(), tt.method, tt.pattern, tt.openapi)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ name, file, want string }{
		{"outside the route dirs", "server/other/x.wasm", "server/api or server/routes"},
		{"mixed segment", "server/api/user-[id].get.wasm", `segment "user-[id]"`},
		{"bad param name", "server/api/[1x].get.wasm", `parameter name "1x"`},
		{"repeated param", "server/api/[id]/[id].get.wasm", `parameter "id" appears twice`},
		{"catch-all not last", "server/routes/[...a]/b.wasm", "must be the last one"},
		{"not wasm", "server/api/a.get.go", "must end in .wasm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.file)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.file) {
				t.Errorf("Parse(%q) error = %v, want one naming the file and containing %q", tt.file, err, tt.want)
			}
		})
	}
}

func TestFromRoute(t *testing.T) {
	tests := []struct{ route, file string }{
		{"GET /api/users/:id", "server/api/users/[id].get.wasm"},
		{"POST /api/users", "server/api/users.post.wasm"},
		{"PATCH /api/users/:id", "server/api/users/[id].patch.wasm"},
		{"GET /api/users/:id/posts", "server/api/users/[id]/posts.get.wasm"},
		{"GET /health", "server/routes/health.get.wasm"},
		{"* /files/**:path", "server/routes/files/[...path].wasm"},
		{"GET /docs/:page?", "server/routes/docs/[[page]].get.wasm"},
		{"GET /api", "server/api/index.get.wasm"},
		{"* /", "server/routes/index.wasm"},
		{"GET /openapi.json", "server/routes/openapi.json.get.wasm"},
	}
	for _, tt := range tests {
		t.Run(tt.route, func(t *testing.T) {
			r, err := FromRoute(tt.route)
			if err != nil {
				t.Fatal(err)
			}
			if r.File != tt.file {
				t.Errorf("FromRoute(%q).File = %s, want %s", tt.route, r.File, tt.file)
			}
			if back, err := Parse(r.File); err != nil || back.String() != tt.route {
				t.Errorf("Parse(%s) = %v, %v; want the route back", r.File, back, err)
			}
		})
	}
	for _, bad := range []string{"/api/users", "FETCH /x", "GET api/users", "GET /api/user-:id", "GET /a/:1x"} {
		if _, err := FromRoute(bad); err == nil {
			t.Errorf("FromRoute(%q) succeeded, want an error", bad)
		}
	}
	// A catch-all without its name read as a static segment named "**"
	// (server/api/files/**.get.wasm), which no request reaches as meant.
	for _, tt := range []struct{ route, want string }{
		{"GET /api/files/**", `segment "**": a catch-all is named: /api/files/**:path`},
		{"* /files/*", `segment "*": a catch-all is named: /files/**:path`},
		{"GET /api/a*b", `segment "a*b": '*' is only for a catch-all`},
	} {
		if _, err := FromRoute(tt.route); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("FromRoute(%q) = %v, want an error saying %q", tt.route, err, tt.want)
		}
	}
}
