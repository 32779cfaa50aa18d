package host_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// sdkBuilderApps are one app per SDK with a contract builder: a route
// with Schema.integer().minimum(1) read as an i64, as each SDK's README
// shows, and a route whose 201 declares and sends Location.
var sdkBuilderApps = []struct {
	lang  string
	files map[string]string
}{
	{"assemblyscript", map[string]string{"server/api/notes/[id].get.ts": `import { Contract, JSONValue, Part, Request, Schema, endpoint, respond } from "@wasmendpoints/assemblyscript";
export * from "@wasmendpoints/assemblyscript/exports";

endpoint(
  new Contract().summary("Get a note").param("id", Schema.integer().minimum(1)).query("n", Schema.integer(), true)
    .response(200, "The note", Schema.object()),
  (req: Request): void => {
    respond(200, JSONValue.object().set("id", JSONValue.int(req.paramInt("id"))).set("n", JSONValue.int(req.int(Part.Query, "n"))));
  },
);
`, "server/api/notes/index.post.ts": `import { Contract, JSONValue, Request, Schema, endpoint, respond, setHeader } from "@wasmendpoints/assemblyscript";
export * from "@wasmendpoints/assemblyscript/exports";

endpoint(
  new Contract().summary("Create a note").response(201, "Created", Schema.object())
    .responseHeader(201, "Location", Schema.string().format("uri-reference").description("The new note")),
  (req: Request): void => {
    setHeader("Location", "/api/notes/1");
    respond(201, JSONValue.object().set("id", JSONValue.int(1)));
  },
);
`}},
	{"rust", map[string]string{"server/api/notes/[id].get.rs": `use endpoints::{endpoint, respond, Contract, Json, Part, Request, Schema};

endpoint!(
    Contract::new().summary("Get a note").param("id", Schema::integer().minimum(1)).query("n", Schema::integer(), true)
        .response(200, "The note", Some(Schema::object())),
    |req: &Request| -> Result<(), endpoints::Errno> {
        respond(200, &Json::object().set("id", req.param_i64("id")).set("n", req.int(Part::Query, "n")))
    }
);
`, "server/api/notes/index.post.rs": `use endpoints::{endpoint, respond, set_header, Contract, Json, Request, Schema};

endpoint!(
    Contract::new().summary("Create a note").response(201, "Created", Some(Schema::object()))
        .response_header(201, "Location", Schema::string().format("uri-reference").description("The new note")),
    |_req: &Request| -> Result<(), endpoints::Errno> {
        set_header("Location", "/api/notes/1")?;
        respond(201, &Json::object().set("id", 1i64))
    }
);
`}},
}

// TestSDKBuilders serves the apps of sdkBuilderApps. An integer schema of
// the AssemblyScript and Rust builders carries the i64 range its readers
// return, so the host refuses a value beyond it with a 400 before the
// guest runs, instead of the guest trapping on it (a 500 that costs the
// instance); and a response header the builder declares reaches the
// document.
func TestSDKBuilders(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: compiling AssemblyScript and Rust routes takes seconds each")
	}
	for _, sdk := range sdkBuilderApps {
		t.Run(sdk.lang, func(t *testing.T) {
			t.Parallel()
			var a *app
			if sdk.lang == "rust" {
				requireTool(t, "rustc")
				a = newApp(t)
			} else {
				a = &app{t: t, dir: compilerOnlyApp(t)}
			}
			for name, src := range sdk.files {
				a.file(name, []byte(src))
			}
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
			created := do(t, srv, "POST", "/api/notes", "")
			if created.status != 201 || created.header.Get("Location") != "/api/notes/1" {
				t.Errorf("POST /api/notes = %d %v, want 201 with its Location", created.status, created.header)
			}
			doc := do(t, srv, "GET", "/_endpoints/schema", "")
			if want := `"Location":{"description":"The new note","schema":{"description":"The new note","format":"uri-reference","type":"string"}}`; !strings.Contains(compactJSON(t, doc.body), want) {
				t.Errorf("the document does not declare Location on the 201 (want %s):\n%s", want, doc.body)
			}
			if strings.Contains(logs.String(), "abort") || strings.Contains(logs.String(), "panick") {
				t.Errorf("the guest failed on a value the host should have refused:\n%s", logs)
			}
		})
	}
}

// compactJSON is the JSON text s without insignificant spaces.
func compactJSON(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return b.String()
}
