package bundle

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/edge"
)

const file = "server/bundle/app.wasm"

func TestIsModule(t *testing.T) {
	for _, tc := range []struct {
		file string
		want bool
	}{
		{abi.BundleDir + "/app.wasm", true},
		{abi.BundleDir + "/sub/app.wasm", true},
		{abi.BundleDir + "/app.wat", false},
		{"server/api/users.get.wasm", false},
		{abi.BundleDir + ".wasm", false},
	} {
		t.Run(tc.file, func(t *testing.T) {
			if got := IsModule(tc.file); got != tc.want {
				t.Errorf("IsModule(%q) = %v, want %v", tc.file, got, tc.want)
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	routes := func(n int) string {
		entries := make([]string, n)
		for i := range entries {
			entries[i] = fmt.Sprintf(`{"route": "GET /api/r%d"}`, i)
		}
		return `{"routes": [` + strings.Join(entries, ",") + `]}`
	}
	for _, tc := range []struct {
		name, data, want string
	}{
		{"empty", ``, "returned nothing"},
		{"not JSON", `{`, "its declaration is not a bundle's"},
		{"unknown member", `{"routes": [{"route": "GET /a"}], "extra": 1}`, "its declaration is not a bundle's"},
		{"unknown member of a route", `{"routes": [{"route": "GET /a", "method": "GET"}]}`, "its declaration is not a bundle's"},
		{"no routes", `{"routes": []}`, "/routes: a bundle declares at least one route"},
		{"too many routes", routes(abi.BundleMaxRoutes + 1), fmt.Sprintf("/routes: %d routes; a bundle has at most %d", abi.BundleMaxRoutes+1, abi.BundleMaxRoutes)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse(file, []byte(tc.data))
			if err == nil {
				t.Fatalf("Parse = %d routes, want an error containing %q", d.Len(), tc.want)
			}
			if !strings.HasPrefix(err.Error(), file+": ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse error = %q, want it to name %s and contain %q", err, file, tc.want)
			}
		})
	}
	if d, err := Parse(file, []byte(routes(abi.BundleMaxRoutes))); err != nil || d.Len() != abi.BundleMaxRoutes {
		t.Errorf("Parse of %d routes = %v, want them all", abi.BundleMaxRoutes, err)
	}
}

func TestRoute(t *testing.T) {
	const contract = `{"responses": {"200": {"description": "the user"}}}`
	big := `{"responses": {"200": {"description": "` + strings.Repeat("x", abi.ContractMaxBytes) + `"}}}`
	for _, tc := range []struct {
		name, entry string
		// wantErr, when set, is what the error contains; else the route
		// has wantMethod and wantPattern, and a contract when wantContract.
		wantErr      string
		wantFile     string
		wantMethod   string
		wantContract bool
	}{
		{name: "plain", entry: `{"route": "GET /api/users/:id"}`, wantFile: file + " (GET /api/users/:id)", wantMethod: "GET"},
		{name: "null contract", entry: `{"route": "POST /api/users", "contract": null}`, wantFile: file + " (POST /api/users)", wantMethod: "POST"},
		{name: "every method", entry: `{"route": "* /files/**:path"}`, wantFile: file + " (* /files/**:path)", wantMethod: ""},
		{name: "endpoint", entry: `{"route": "GET /api/users/:id", "contract": ` + contract + `}`, wantFile: file + " (GET /api/users/:id)", wantMethod: "GET", wantContract: true},
		{name: "bad route", entry: `{"route": "GET api"}`, wantErr: file + ": /routes/0/route: "},
		{name: "contract too large", entry: `{"route": "GET /a", "contract": ` + big + `}`, wantErr: file + " (GET /a): contract: "},
		{name: "contract refused", entry: `{"route": "GET /a", "contract": {"responses": 1}}`, wantErr: file + " (GET /a)"},
		{name: "failed to register", entry: `{"route": "GET /a", "error": "handlers/a/main.go:12: registering the route panicked: boom"}`, wantErr: file + " (GET /a): handlers/a/main.go:12: registering the route panicked: boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse(file, []byte(`{"routes": [`+tc.entry+`]}`))
			if err != nil {
				t.Fatal(err)
			}
			r, err := d.Route(0)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Route(0) error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Route(0): %v", err)
			}
			if r.Route.File != tc.wantFile || r.Route.Method != tc.wantMethod {
				t.Errorf("Route(0) = file %q method %q, want %q and %q", r.Route.File, r.Route.Method, tc.wantFile, tc.wantMethod)
			}
			if got := r.Contract != nil; got != tc.wantContract || (r.ContractJSON != nil) != tc.wantContract {
				t.Errorf("Route(0) contract = %v (JSON %q), want one: %v", r.Contract, r.ContractJSON, tc.wantContract)
			}
		})
	}
}

func TestMiddleware(t *testing.T) {
	for _, tc := range []struct {
		name, middleware string
		wantErr          string
		wantNames        []string
	}{
		{name: "none", middleware: `[]`},
		{name: "in order with indexes", middleware: `[{"name": "20-b", "declaration": {"phases": ["before"]}}, {"name": "10-a", "declaration": {"phases": ["after", "verify"]}}]`, wantNames: []string{"20-b", "10-a"}},
		{name: "one name twice", middleware: `[{"name": "10-a", "declaration": {"phases": ["before"]}}, {"name": "10-a", "declaration": {"phases": ["after"]}}]`, wantErr: file + `: /middleware/1/name: "10-a" names middleware 0 already`},
		{name: "no phases", middleware: `[{"name": "10-a", "declaration": {}}]`, wantErr: file + ": /middleware/0/declaration/phases: empty"},
		{name: "a file name", middleware: `[{"name": "10-a.wasm", "declaration": {"phases": ["before"]}}]`, wantErr: file + ": /middleware/0/name: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse(file, []byte(`{"routes": [{"route": "GET /a"}], "middleware": `+tc.middleware+`}`))
			if err != nil {
				t.Fatal(err)
			}
			mws, err := d.Middleware(nil)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Middleware error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Middleware: %v", err)
			}
			if len(mws) != len(tc.wantNames) {
				t.Fatalf("Middleware = %d, want %d", len(mws), len(tc.wantNames))
			}
			for i, m := range mws {
				if m.Name != tc.wantNames[i] || m.Index != i || m.File != fmt.Sprintf("%s (middleware %s)", file, m.Name) {
					t.Errorf("middleware %d = %q index %d file %q, want %q index %d", i, m.Name, m.Index, m.File, tc.wantNames[i], i)
				}
			}
		})
	}
}

func TestErrNoHandleRouteNamesFileAndExport(t *testing.T) {
	err := ErrNoHandleRoute(file).Error()
	if !strings.HasPrefix(err, file+": ") || !strings.Contains(err, abi.ExportHandleRoute) {
		t.Errorf("ErrNoHandleRoute = %q, want the file and %q", err, abi.ExportHandleRoute)
	}
}

func TestMergeMiddleware(t *testing.T) {
	mw := func(name, file string, index int) *edge.Middleware {
		return &edge.Middleware{Name: name, File: file, Index: index}
	}
	app10 := mw("10-auth", "server/middleware/10-auth.wasm", -1)
	app30 := mw("30-log", "server/middleware/30-log.wasm", -1)
	a05 := mw("05-trace", "server/bundles/a.wasm (middleware 05-trace)", 0)
	a20 := mw("20-audit", "server/bundles/a.wasm (middleware 20-audit)", 1)
	b20 := mw("20-audit", "server/bundles/b.wasm (middleware 20-audit)", 0)
	b10 := mw("10-auth", "server/bundles/b.wasm (middleware 10-auth)", 1)
	names := func(ms []*edge.Middleware) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.File)
		}
		return out
	}
	for _, tc := range []struct {
		name         string
		app          []*edge.Middleware
		bundles      [][]*edge.Middleware
		want         []string
		wantProblems []string
	}{
		{name: "no bundles", app: []*edge.Middleware{app10, app30}, want: names([]*edge.Middleware{app10, app30})},
		{name: "bundles' in name order", app: []*edge.Middleware{app10, app30}, bundles: [][]*edge.Middleware{{a20, a05}},
			want: names([]*edge.Middleware{a05, app10, a20, app30})},
		{name: "a previous table's bundle middleware dropped", app: []*edge.Middleware{app10, a20}, want: names([]*edge.Middleware{app10})},
		{name: "a name taken by server/middleware", app: []*edge.Middleware{app10}, bundles: [][]*edge.Middleware{{b10}},
			want:         names([]*edge.Middleware{app10}),
			wantProblems: []string{`server/bundles/b.wasm (middleware 10-auth): middleware "10-auth": server/middleware/10-auth.wasm has that name already`}},
		{name: "a name taken by an earlier bundle", bundles: [][]*edge.Middleware{{a20}, {b20, b10}},
			want:         names([]*edge.Middleware{b10, a20}),
			wantProblems: []string{`server/bundles/b.wasm (middleware 20-audit): middleware "20-audit": server/bundles/a.wasm (middleware 20-audit) has that name already`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := slices.Clone(tc.app)
			got, problems := MergeMiddleware(tc.app, tc.bundles)
			if !slices.Equal(names(got), tc.want) {
				t.Errorf("MergeMiddleware = %q, want %q", names(got), tc.want)
			}
			if len(problems) != len(tc.wantProblems) {
				t.Fatalf("problems = %v, want %d", problems, len(tc.wantProblems))
			}
			for i, p := range problems {
				if !strings.HasPrefix(p.Error(), tc.wantProblems[i]) {
					t.Errorf("problem %d = %q, want it to start %q", i, p, tc.wantProblems[i])
				}
			}
			if !slices.Equal(tc.app, before) {
				t.Errorf("MergeMiddleware changed app: %q, was %q", names(tc.app), names(before))
			}
		})
	}
}
