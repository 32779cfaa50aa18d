package host_test

import (
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// intBoundsRoutes are one route per SDK with a schema builder, written as
// each SDK's README shows: Schema.integer().minimum(1) read as an i64.
var intBoundsRoutes = []struct{ lang, file, src string }{
	{"assemblyscript", "server/api/notes/[id].get.ts", `import { Contract, JSONValue, Part, Request, Schema, endpoint, respond } from "@wasmendpoints/assemblyscript";
export * from "@wasmendpoints/assemblyscript/exports";

endpoint(
  new Contract().summary("Get a note").param("id", Schema.integer().minimum(1)).query("n", Schema.integer(), true)
    .response(200, "The note", Schema.object()),
  (req: Request): void => {
    respond(200, JSONValue.object().set("id", JSONValue.int(req.paramInt("id"))).set("n", JSONValue.int(req.int(Part.Query, "n"))));
  },
);
`},
	{"rust", "server/api/notes/[id].get.rs", `use endpoints::{endpoint, respond, Contract, Json, Part, Request, Schema};

endpoint!(
    Contract::new().summary("Get a note").param("id", Schema::integer().minimum(1)).query("n", Schema::integer(), true)
        .response(200, "The note", Some(Schema::object())),
    |req: &Request| -> Result<(), endpoints::Errno> {
        respond(200, &Json::object().set("id", req.param_i64("id")).set("n", req.int(Part::Query, "n")))
    }
);
`},
}

// TestSDKIntegerBounds: an integer schema of the AssemblyScript and Rust
// builders carries the i64 range its readers return, so the host refuses a
// value beyond it with a 400 before the guest runs, instead of the guest
// trapping on it (a 500 that costs the instance).
func TestSDKIntegerBounds(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: compiling AssemblyScript and Rust routes takes seconds each")
	}
	for _, route := range intBoundsRoutes {
		t.Run(route.lang, func(t *testing.T) {
			t.Parallel()
			var a *app
			if route.lang == "rust" {
				requireTool(t, "rustc")
				a = newApp(t)
			} else {
				a = &app{t: t, dir: compilerOnlyApp(t)}
			}
			a.file(route.file, []byte(route.src))
			if _, err := guestbuild.App(t.Context(), a.dir, a.dir, nil); err != nil {
				t.Fatal(err)
			}
			srv, logs := a.serve(host.Options{Mode: host.Development})
			for _, tc := range []struct {
				path   string
				status int
				body   string
			}{
				{"/api/notes/9223372036854775807?n=-9223372036854775808", 200, `{"id":9223372036854775807,"n":-9223372036854775808}`},
				{"/api/notes/9223372036854775808?n=0", 400, `"must be less than or equal to 9223372036854775807"`},
				{"/api/notes/1?n=-9223372036854775809", 400, `"must be greater than or equal to -9223372036854775808"`},
				{"/api/notes/1?n=9223372036854775808", 400, `"must be less than or equal to 9223372036854775807"`},
				{"/api/notes/0?n=0", 400, `"must be greater than or equal to 1"`},
			} {
				got := do(t, srv, "GET", tc.path, "")
				if got.status != tc.status || !strings.Contains(got.body, tc.body) {
					t.Errorf("GET %s = %d %s, want %d with %s", tc.path, got.status, got.body, tc.status, tc.body)
				}
			}
			if strings.Contains(logs.String(), "abort") || strings.Contains(logs.String(), "panick") {
				t.Errorf("the guest failed on a value the host should have refused:\n%s", logs)
			}
		})
	}
}
