package document

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/internal/routefile"
	"github.com/wasmendpoints/endpoints/openapi"
)

// plain is a plain route module at rel.
func plain(t *testing.T, rel string) Route {
	t.Helper()
	rf, err := routefile.Parse(rel)
	if err != nil {
		t.Fatal(err)
	}
	return Route{Path: rf, File: rel, Plain: true}
}

// endpoint is an endpoint module at rel serving methods (from its
// contract, when its name has no method).
func endpoint(t *testing.T, rel string, methods ...string) Route {
	t.Helper()
	rf, err := routefile.Parse(rel)
	if err != nil {
		t.Fatal(err)
	}
	r := Route{Path: rf, File: rel}
	for _, m := range methods {
		r.Operations = append(r.Operations, openapi.Route{Method: m, Path: rf.OpenAPIPath(), File: rel, Contract: &abi.Contract{}})
	}
	return r
}

// TestPlainOperations: which plain routes the document lists, and the
// methods a module without a method suffix serves there.
func TestPlainOperations(t *testing.T) {
	for _, tt := range []struct {
		name   string
		routes func(t *testing.T) []Route
		want   []string // "file method serves..."
	}{
		{"a method suffix", func(t *testing.T) []Route {
			return []Route{plain(t, "server/routes/health.get.wasm")}
		}, []string{"server/routes/health.get.wasm GET"}},
		{"no suffix serves every method", func(t *testing.T) []Route {
			return []Route{plain(t, "server/routes/hook.wasm")}
		}, []string{"server/routes/hook.wasm  GET HEAD POST PUT PATCH DELETE OPTIONS"}},
		{"no suffix serves what no other module claims, HEAD with GET", func(t *testing.T) []Route {
			return []Route{plain(t, "server/routes/hook.wasm"), plain(t, "server/routes/hook.get.wasm"), endpoint(t, "server/routes/hook.wasm", "POST")}
		}, []string{"server/routes/hook.get.wasm GET", "server/routes/hook.wasm  PUT PATCH DELETE OPTIONS"}},
		{"a catch-all has no OpenAPI path", func(t *testing.T) []Route {
			return []Route{plain(t, "server/routes/[...path].get.wasm"), plain(t, "server/routes/files/[id].get.wasm")}
		}, []string{"server/routes/files/[id].get.wasm GET"}},
		{"the framework's own paths are left out", func(t *testing.T) []Route {
			return []Route{plain(t, "server/routes/_endpoints/x.get.wasm"), plain(t, "server/routes/_endpoints.get.wasm")}
		}, nil},
		{"endpoints are not plain operations", func(t *testing.T) []Route {
			return []Route{endpoint(t, "server/api/users.get.wasm", "GET")}
		}, nil},
		{"sorted by file", func(t *testing.T) []Route {
			return []Route{plain(t, "server/routes/b.get.wasm"), plain(t, "server/routes/a.get.wasm")}
		}, []string{"server/routes/a.get.wasm GET", "server/routes/b.get.wasm GET"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, op := range PlainOperations(tt.routes(t)) {
				if !op.Plain {
					t.Errorf("%s: Plain = false", op.File)
				}
				got = append(got, strings.TrimSpace(op.File+" "+op.Method+" "+strings.Join(op.Serves, " ")))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("operations:\ngot  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestWithoutMeta: a plain operation the routes configuration names under
// "plainRoutes" has meta; the others do not.
func TestWithoutMeta(t *testing.T) {
	ops := []openapi.Route{{Path: "/health", File: "a"}, {Path: "/files/{id}", File: "b"}}
	cfg, err := openapi.ParseRoutesConfig("server/routes.config.json", []byte(`{"plainRoutes": {"/files/:id": {"summary": "A file"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		cfg  *openapi.RoutesConfig
		want []string
	}{
		{"no routes configuration", nil, []string{"a", "b"}},
		{"one has meta", cfg, []string{"a"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, op := range WithoutMeta(ops, tt.cfg) {
				got = append(got, op.File)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("without meta: got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestBuildRoutes: the plain routes policy, endpoints.json's description
// and servers, and an unmatched routes configuration entry (a warning in
// development, an error otherwise).
func TestBuildRoutes(t *testing.T) {
	unmatched, err := openapi.ParseRoutesConfig("server/routes.config.json", []byte(`{"routes": {"/api/gone": {"security": []}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name      string
		settings  Settings
		wantPaths []string
		wantWarn  bool
		wantErr   bool
	}{
		{"plain routes listed", Settings{OpenAPI: config.OpenAPI{}.WithDefaults()}, []string{"/api/users", "/health"}, false, false},
		{"plain routes excluded", Settings{OpenAPI: config.OpenAPI{PlainRoutes: config.PlainRoutesExclude}.WithDefaults()}, []string{"/api/users"}, false, false},
		{"an unmatched entry in development", Settings{OpenAPI: config.OpenAPI{}.WithDefaults(), Routes: unmatched, Development: true}, []string{"/api/users", "/health"}, true, false},
		{"an unmatched entry in production", Settings{OpenAPI: config.OpenAPI{}.WithDefaults(), Routes: unmatched}, nil, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.settings.OpenAPI.Description = "The users"
			tt.settings.OpenAPI.Servers = []config.OpenAPIServer{{URL: "/v1"}}
			routes := []Route{endpoint(t, "server/api/users.get.wasm", "GET"), plain(t, "server/routes/health.get.wasm")}
			doc, warnings, err := BuildRoutes(routes, tt.settings)
			if (err != nil) != tt.wantErr {
				t.Fatalf("BuildRoutes error = %v, want an error: %v", err, tt.wantErr)
			}
			if (len(warnings) > 0) != tt.wantWarn {
				t.Errorf("warnings = %v, want some: %v", warnings, tt.wantWarn)
			}
			if err != nil {
				return
			}
			var paths []string
			for p := range doc.Paths {
				paths = append(paths, p)
			}
			slices.Sort(paths)
			if !slices.Equal(paths, tt.wantPaths) {
				t.Errorf("paths = %q, want %q", paths, tt.wantPaths)
			}
			if doc.Info.Description != "The users" || len(doc.Servers) != 1 || doc.Servers[0].URL != "/v1" {
				t.Errorf("description %q, servers %+v: want endpoints.json's", doc.Info.Description, doc.Servers)
			}
		})
	}
}

// TestServe: GET and HEAD with the ETag, 304 when the client has it, 405
// otherwise.
func TestServe(t *testing.T) {
	d, err := Encode(&openapi.Document{OpenAPI: openapi.Version31, Info: openapi.Info{Title: "T", Version: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	again, err := Encode(d.Doc)
	if err != nil || again.ETag != d.ETag || string(again.JSON) != string(d.JSON) {
		t.Fatalf("two encodings of one document differ: %s %s, %v", d.ETag, again.ETag, err)
	}
	for _, tt := range []struct {
		name, method, ifNoneMatch string
		wantStatus                int
		wantBody                  bool
	}{
		{"GET", http.MethodGet, "", http.StatusOK, true},
		{"HEAD", http.MethodHead, "", http.StatusOK, false},
		{"the client has it", http.MethodGet, d.ETag, http.StatusNotModified, false},
		{"the client has it, weak", http.MethodGet, `"other", W/` + d.ETag, http.StatusNotModified, false},
		{"any", http.MethodGet, "*", http.StatusNotModified, false},
		{"another version", http.MethodGet, `"other"`, http.StatusOK, true},
		{"POST", http.MethodPost, "", http.StatusMethodNotAllowed, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			r := httptest.NewRequest(tt.method, "/openapi.json", nil)
			if tt.ifNoneMatch != "" {
				r.Header.Set("If-None-Match", tt.ifNoneMatch)
			}
			d.Serve(rec, r, func(w http.ResponseWriter, _ *http.Request, status int, data any) {
				w.WriteHeader(status)
				fmt.Fprint(w, data)
			})
			if rec.Code != tt.wantStatus {
				t.Errorf("status %d, want %d", rec.Code, tt.wantStatus)
			}
			if got := rec.Body.String() == string(d.JSON); got != tt.wantBody {
				t.Errorf("body is the document: %v, want %v", got, tt.wantBody)
			}
			switch {
			case tt.wantStatus == http.StatusMethodNotAllowed:
				if got := rec.Header().Get("Allow"); got != "GET, HEAD" {
					t.Errorf("Allow = %q, want GET, HEAD", got)
				}
			case rec.Header().Get("ETag") != d.ETag:
				t.Errorf("ETag = %q, want %q", rec.Header().Get("ETag"), d.ETag)
			}
		})
	}
}

// TestLeftOut: the field a document error is about, the words of what is
// left out, and their list in the document.
func TestLeftOut(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("a: %w", openapi.ErrSchemaConflict), "$defs"},
		{fmt.Errorf("a: %w", openapi.ErrDuplicateOperationID), "operationId"},
		{fmt.Errorf("a: %w", openapi.ErrDuplicateOperation), "operationId"},
		{errors.New("else"), "contract"},
	} {
		if got := ContractField(tt.err); got != tt.want {
			t.Errorf("ContractField(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
	cause := errors.New("one schema name has two definitions")
	route := &LeftOutError{File: "server/api/b.get.wasm", Field: "$defs", Err: cause}
	runtime := &LeftOutError{File: abi.RuntimeModule, Field: "openApi", Err: cause}
	if want := "server/api/b.get.wasm: $defs: not served until the OpenAPI document builds with it: " + cause.Error(); route.Error() != want {
		t.Errorf("route left out:\ngot  %s\nwant %s", route, want)
	}
	if want := abi.RuntimeModule + ": /openApi: left out"; !strings.HasPrefix(runtime.Error(), want) {
		t.Errorf("runtime left out:\ngot  %s\nwant %s...", runtime, want)
	}
	if !errors.Is(route, cause) {
		t.Error("a LeftOutError does not unwrap to its cause")
	}
	doc := &openapi.Document{}
	if err := NoteLeftOut(doc, []error{errors.New("not left out")}); err != nil || doc.Extra != nil {
		t.Errorf("NoteLeftOut without a LeftOutError: extra %v, %v; want none", doc.Extra, err)
	}
	if err := NoteLeftOut(doc, []error{route, fmt.Errorf("wrapped: %w", runtime)}); err != nil {
		t.Fatal(err)
	}
	got := string(doc.Extra[ProblemsExtension])
	for _, want := range []string{`"file":"server/api/b.get.wasm","field":"$defs"`, `"file":"` + abi.RuntimeModule + `","field":"openApi","error":"wrapped: `} {
		if !strings.Contains(got, want) {
			t.Errorf("%s = %s, want it to contain %s", ProblemsExtension, got, want)
		}
	}
}
