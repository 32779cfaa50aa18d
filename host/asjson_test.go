package host_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// asJSONRoute answers a one-string JSON array of the UTF-16 code units
// x-units lists, by the path x-how names: respond (the SDK's encoder
// writing the body), text (JSONValue.toString, then respondText), or db (a
// statement parameter, read back from SQLite).
const asJSONRoute = `import { DB, JSONValue, Request, plainRoute, respond, respondText } from "@wasmendpoints/assemblyscript";
export * from "@wasmendpoints/assemblyscript/exports";

plainRoute((req: Request): void => {
  const units = req.header("x-units")!.split(",").map<i32>((u: string): i32 => I32.parseInt(u));
  const s = String.fromCharCodes(units);
  const how = req.header("x-how")!;
  if (how == "text") {
    respondText(200, JSONValue.array().push(JSONValue.str(s)).toString(), "application/json");
  } else if (how == "db") {
    const db = new DB("main");
    const row = db.queryRow("SELECT ? AS s", [JSONValue.str(s)]);
    assert(row != null, db.error != null ? db.error!.toString() : "no row");
    respond(200, JSONValue.array().push(JSONValue.str(row!.getString("s"))));
  } else {
    respond(200, JSONValue.array().push(JSONValue.str(s)));
  }
});
`

// TestAssemblyScriptJSONText: the SDK's JSON encoder writes a string as
// UTF-8 with the escapes JSON requires, alike in an answer, in
// JSONValue.toString and in a statement's parameters: quotes, backslashes
// and control characters escaped, two-, three- and four-byte characters
// (a surrogate pair) as themselves, and a lone surrogate, which UTF-8
// cannot carry, as U+FFFD.
func TestAssemblyScriptJSONText(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: compiling an AssemblyScript route takes seconds")
	}
	a := &app{t: t, dir: compilerOnlyApp(t)}
	a.file("server/routes/json.post.ts", []byte(asJSONRoute))
	if _, err := guestbuild.App(t.Context(), a.dir, a.dir, nil); err != nil {
		t.Fatal(err)
	}
	srv, logs := a.serve(host.Options{})
	for _, tt := range []struct {
		name  string
		units []int
		want  string
	}{
		{"ascii", []int{'A', ' ', 'b', '/', '<', '&'}, `["A b/<&"]`},
		{"quote and backslash", []int{'"', '\\'}, `["\"\\"]`},
		{"control characters", []int{'\n', '\r', '\t', 1, 0x1f, 0x7f}, `["\n\r\t\u0001\u001f` + "\x7f" + `"]`},
		{"two and three bytes", []int{0xe9, 0x20ac}, `["é€"]`},
		{"surrogate pair", []int{'a', 0xd83d, 0xde00, 'b'}, `["a😀b"]`},
		{"lone high surrogate at the end", []int{'a', 0xd83d}, `["a` + "\ufffd" + `"]`},
		{"lone low surrogate", []int{0xde00, 'a'}, `["` + "\ufffd" + `a"]`},
		{"high surrogate before a pair", []int{0xd83d, 0xd83d, 0xde00}, `["` + "\ufffd" + `😀"]`},
	} {
		units := make([]string, len(tt.units))
		for i, u := range tt.units {
			units[i] = strconv.Itoa(u)
		}
		for _, how := range []string{"respond", "text", "db"} {
			got := do(t, srv, "POST", "/json", "", "x-units", strings.Join(units, ","), "x-how", how)
			if got.status != 200 || got.body != tt.want {
				t.Errorf("%s by %s = %d %q, want 200 %q\nlog:\n%s", tt.name, how, got.status, got.body, tt.want, logs)
			}
		}
	}
}
