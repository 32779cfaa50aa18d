package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host"
)

// endpointWAT is the WAT source of an endpoint module declaring contract
// (JSON) whose handler answers nothing: enough for a build and a load.
func endpointWAT(contract string) string {
	return fmt.Sprintf(`(module
  (memory (export %q) 1)
  (data (i32.const 1024) %q)
  (func (export %q) (result i32) (i32.const %d))
  (func (export %q) (result i64) (i64.const %d))
  (func (export %q) (result i32) (i32.const 0)))
`, abi.ExportMemory, contract, abi.ExportABIVersion, abi.Version, abi.ExportContract, int64(1024)<<32|int64(len(contract)), abi.ExportHandle)
}

// plainWAT is the WAT source of a plain route module.
func plainWAT() string {
	return fmt.Sprintf(`(module
  (memory (export %q) 1)
  (func (export %q) (result i32) (i32.const %d))
  (func (export %q) (result i32) (i32.const 0)))
`, abi.ExportMemory, abi.ExportABIVersion, abi.Version, abi.ExportHandle)
}

// TestBuildRefusesWhatServeRefusesOfTheApp: each module of these apps
// builds and loads alone, but serve refuses the app they make together (or
// with its endpoints.json, routes configuration or runtime declaration):
// `endpoints build` fails too, with the very words serve's load gives, and
// a whole app that serve starts builds with a line that says it was
// checked.
func TestBuildRefusesWhatServeRefusesOfTheApp(t *testing.T) {
	t.Parallel()
	object := `{"type":"object","properties":{"name":{"type":"string"}}}`
	withUser := func(schema string) string {
		return endpointWAT(`{"responses":{"200":{"description":"A user","schema":{"$ref":"#/$defs/User"}}},"$defs":{"User":` + schema + `}}`)
	}
	partners := `{"security":{"partners":{"apiKey":{"in":"header","name":"X-API-Key","keys":[{"sha256":"5f7b2ed74a9736a538a6fb5a5a1a76afdcdd0d177d7fc6e79c6b6843527d848d","subject":"p"}]}}}}`
	tests := []struct {
		name  string
		files map[string]string
		// want is in build's error output; empty for an app serve starts.
		want []string
	}{
		{"two component schemas of one name differ", map[string]string{
			"server/api/a.get.wat": withUser(object),
			"server/api/b.get.wat": withUser(`{"type":"string"}`),
		}, []string{`schema "User" is defined differently by server/api/a.get.wasm (GET /api/a) and server/api/b.get.wasm (GET /api/b)`}},
		{"two modules claim one method and path", map[string]string{
			"server/api/users.get.wat":       endpointWAT(`{}`),
			"server/api/users/index.get.wat": endpointWAT(`{}`),
		}, []string{"server/api/users.get.wasm and server/api/users/index.get.wasm both claim GET /api/users: remove or rename one of them"}},
		{"two parameter names at one place of a path", map[string]string{
			"server/api/users/[id].get.wat":   endpointWAT(`{}`),
			"server/api/users/[name].get.wat": endpointWAT(`{}`),
		}, []string{"server/api/users/[id].get.wasm and server/api/users/[name].get.wasm both claim GET /api/users/:name"}},
		{"two paths give one operationId", map[string]string{
			"server/api/user-groups.get.wat": endpointWAT(`{}`),
			"server/api/user_groups.get.wat": endpointWAT(`{}`),
		}, []string{`operationId "getApiUserGroups" of GET /api/user_groups (server/api/user_groups.get.wasm) is also the operationId of GET /api/user-groups (server/api/user-groups.get.wasm)`}},
		{"a security scheme endpoints.json does not configure", map[string]string{
			"server/api/orders.post.wat": endpointWAT(`{"security":[{"bearer":[]}]}`),
		}, []string{`POST /api/orders requires security scheme "bearer": neither endpoints.json nor the document declares it`}},
		{"a runtime declaration declares a configured scheme otherwise", map[string]string{
			"endpoints.json":               partners,
			"server/api/orders.post.wat":   endpointWAT(`{"security":[{"partners":[]}]}`),
			"server/endpoints/runtime.wat": runtimeWAT(`{"openApi":{"document":{"components":{"securitySchemes":{"partners":{"type":"http","scheme":"bearer"}}}}}}`),
		}, []string{"endpoints.json: security.partners: the document declares the scheme as http bearer, but the verifier configured here checks apiKey schemes"}},
		{"a routes configuration entry that matches no route", map[string]string{
			"server/api/a.get.wat":      endpointWAT(`{}`),
			"server/routes.config.json": `{"routes":{"/api/b":{"responses":{"503":{"description":"Down"}}}}}`,
		}, []string{`server/routes.config.json: /routes/~1api~1b: pattern "/api/b": a routes configuration pattern matches no operation`}},
		{"a route where the document is served", map[string]string{
			"endpoints.json":          `{"openApi":{"enabled":true,"path":"/api/spec"}}`,
			"server/api/spec.get.wat": endpointWAT(`{}`),
		}, []string{"server/api/spec.get.wasm: the route /api/spec is where the host serves the OpenAPI document"}},
		{"a plain route without meta when openApi.plainRoutes requires it", map[string]string{
			"endpoints.json":          `{"openApi":{"plainRoutes":"require"}}`,
			"server/routes/plain.wat": plainWAT(),
		}, []string{`server/routes/plain.wasm: plain route /plain has no meta, and endpoints.json says openApi.plainRoutes "require"`}},
		{"an app serve starts", map[string]string{
			"endpoints.json":               partners,
			"server/api/a.get.wat":         withUser(object),
			"server/api/b.get.wat":         withUser(object),
			"server/api/orders.post.wat":   endpointWAT(`{"security":[{"partners":[]}]}`),
			"server/routes/plain.wat":      plainWAT(),
			"server/routes.config.json":    `{"routes":{"/api/orders":{"responses":{"503":{"description":"Down"}}}},"plainRoutes":{"/plain":{"summary":"Plain"}}}`,
			"server/endpoints/runtime.wat": runtimeWAT(`{"openApi":{"document":{"info":{"description":"Checked"}}}}`),
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			app := writeApp(t, tt.files)
			code, out, errOut := runCLI("build", app)
			if tt.want == nil {
				if code != exitOK || !strings.Contains(out, "checked the app as serve starts it: 4 routes (3 endpoint operations)") {
					t.Fatalf("build of an app serve starts = %d, want 0 and the check's line:\n%s\n%s", code, out, errOut)
				}
				return
			}
			for _, want := range tt.want {
				if code != exitError || !strings.Contains(errOut, want) {
					t.Errorf("build = %d, want exit 1 and %q in:\n%s\n%s", code, want, out, errOut)
				}
			}
			if strings.Contains(out, "checked the app") {
				t.Errorf("build says it checked an app serve refuses:\n%s", out)
			}
			// The words are serve's: its load of the built app fails with
			// the very error build printed.
			h, err := host.New(context.Background(), app, host.Options{Mode: host.Production, Logger: slog.New(slog.DiscardHandler), SkipVariables: true, SkipMigrations: true})
			if err == nil {
				_ = h.Close(context.Background())
				t.Fatalf("serve's load of the app build refused succeeded")
			}
			if !strings.Contains(errOut, err.Error()) {
				t.Errorf("build's error is not serve's:\nbuild: %s\nserve: %v", errOut, err)
			}
		})
	}
}

// TestBuildFetchesNoKeySet: the app check of `endpoints build` loads the
// app's security schemes as serve does, but a build verifies no token: it
// must not reach the identity provider of a jwt scheme's jwksUrl (a CI
// job or an image build may not, and has no business to), nor leave its
// connection open. It fetched the key set once per build.
func TestBuildFetchesNoKeySet(t *testing.T) {
	t.Parallel()
	var fetches atomic.Int32
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"keys":[]}`))
	}))
	app := writeApp(t, map[string]string{
		"endpoints.json":             `{"security":{"bearer":{"jwt":{"jwksUrl":"` + idp.URL + `/jwks","issuer":"https://idp.example","audience":"api"}}}}`,
		"server/api/orders.post.wat": endpointWAT(`{"security":[{"bearer":[]}]}`),
	})
	code, out, errOut := runCLI("build", app)
	// Close waits for the requests the server took to end: a fetch the
	// build started is counted by now.
	idp.Close()
	if code != exitOK || !strings.Contains(out, "checked the app as serve starts it") {
		t.Fatalf("build = %d, want 0 and the check's line:\n%s\n%s", code, out, errOut)
	}
	if n := fetches.Load(); n != 0 {
		t.Errorf("build fetched the jwksUrl's key set %d times; want none", n)
	}
}
