package host_test

import (
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// TestAssemblyScriptStatementTimeout: the SDK's statementTimeout bounds a
// query that would run for hours (a recursive CTE on the app's SQLite
// file) to 100 ms; the database stops it, the handler reads the code
// timeout and answers its own 503, well within the call's 10 s; a timeout
// below 0 is -2.
func TestAssemblyScriptStatementTimeout(t *testing.T) {
	t.Parallel()
	requireTool(t, "npm")
	a := &app{t: t, dir: compilerOnlyApp(t)}
	a.file("endpoints.json", []byte(`{"limits": {"timeout": "10s"}}`))
	a.file("server/routes/report.get.ts", []byte(`import { DB, JSONValue, Request, plainRoute, respond, statementTimeout } from "@wasmendpoints/assemblyscript";
export * from "@wasmendpoints/assemblyscript/exports";

plainRoute((req: Request): void => {
  const bad = statementTimeout(-1);
  statementTimeout(100);
  const main = new DB("main");
  const rows = main.query("WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1000000000000) SELECT count(*) FROM c");
  statementTimeout(0);
  const code = rows == null ? main.error!.code : "none";
  respond(code == "timeout" ? 503 : 200, JSONValue.object().set("bad", JSONValue.int(bad)).set("code", JSONValue.str(code)));
});
`))
	if _, err := guestbuild.App(t.Context(), a.dir, a.dir, nil); err != nil {
		t.Fatal(err)
	}
	srv, logs := a.serve(host.Options{})
	got := do(t, srv, "GET", "/report", "")
	if want := `{"bad":-2,"code":"timeout"}`; got.status != 503 || got.body != want {
		t.Errorf("got %d %s, want 503 %s\nlog:\n%s", got.status, got.body, want, logs)
	}
	if strings.Contains(logs.String(), "past its") {
		t.Errorf("the call was stopped at its deadline:\n%s", logs)
	}
}
