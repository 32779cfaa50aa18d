package guestbuild

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
)

// TestAssemblyScriptDefaultTxOptionsBeginWithDBBegin: DB.begin with the
// default options (new TxOptions()) calls db_begin, as null does and as
// the Go, Rust and C SDKs begin their default options, since
// db_begin_with refuses to begin with less than 50 ms left before the
// call's deadline and db_begin does not; other options go to
// db_begin_with as JSON.
func TestAssemblyScriptDefaultTxOptionsBeginWithDBBegin(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiling AssemblyScript takes seconds")
	}
	useCache(t)
	app := asApp(t, map[string]string{"server/api/tx.get.ts": `import { DB, Isolation, JSONValue, Request, TxOptions, plainRoute, respond } from "@wasmendpoints/assemblyscript";
export * from "@wasmendpoints/assemblyscript/exports";

plainRoute((req: Request): void => {
  const db = new DB("main");
  db.begin(new TxOptions());
  db.begin(null);
  db.begin(new TxOptions(Isolation.SERIALIZABLE));
  db.begin(new TxOptions(Isolation.DEFAULT, true));
  respond(200, JSONValue.object());
});
`})
	out := filepath.Join(t.TempDir(), "tx.get.wasm")
	if err := AssemblyScript(t.Context(), app, filepath.Join(app, "server", "api", "tx.get.ts"), out); err != nil {
		t.Fatal(err)
	}
	var calls []string
	ex := &abiExchange{db: func(fn, database, sql, params string) (abi.Errno, string) {
		calls = append(calls, fn+" "+params)
		return 0, ""
	}}
	if got := newABIHost(t).load(t, out).handle(t, ex); got != 0 {
		t.Fatalf("%s() = %d, want 0 (body %s)", abi.ExportHandle, got, ex.body.String())
	}
	want := []string{"db_begin ", "db_begin ", `db_begin_with {"isolation":"serializable"}`, `db_begin_with {"readOnly":true}`}
	if !slices.Equal(calls, want) {
		t.Errorf("the begins called %q, want %q", calls, want)
	}
}

// TestAssemblyScriptOutboundTimeoutClamped: an Init.timeoutMs past an
// hour (abi.HTTPTimeoutMax), longer than any call runs, is sent as an
// hour, as the Go, Rust and C SDKs clamp it, rather than refused by the
// host.
func TestAssemblyScriptOutboundTimeoutClamped(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiling AssemblyScript takes seconds")
	}
	useCache(t)
	app := asApp(t, map[string]string{"server/api/out.get.ts": `import { JSONValue, Request, http, plainRoute, respond } from "@wasmendpoints/assemblyscript";
export * from "@wasmendpoints/assemblyscript/exports";

plainRoute((req: Request): void => {
  for (let i = 0; i < 3; i++) {
    const init = new http.Init();
    init.timeoutMs = [300, 3600001, i32.MAX_VALUE][i];
    http.fetch("https://a.example/", init);
  }
  respond(200, JSONValue.object());
});
`})
	out := filepath.Join(t.TempDir(), "out.get.wasm")
	if err := AssemblyScript(t.Context(), app, filepath.Join(app, "server", "api", "out.get.ts"), out); err != nil {
		t.Fatal(err)
	}
	h := newABIHost(t)
	ex := &abiExchange{}
	if got := h.load(t, out).handle(t, ex); got != 0 {
		t.Fatalf("%s() = %d, want 0 (body %s)", abi.ExportHandle, got, ex.body.String())
	}
	var timeouts []string
	for _, req := range h.sent {
		_, after, _ := strings.Cut(req, `"timeout":`)
		timeouts = append(timeouts, strings.TrimSuffix(after, "}"))
	}
	if want := []string{"300", "3600000", "3600000"}; !slices.Equal(timeouts, want) {
		t.Errorf("sent %q, want the timeouts %q", h.sent, want)
	}
}

// TestAssemblyScriptValuesOwnTheirArrays: code that pushes on a value's
// items, keys or values directly (not with push or set) changes that
// value alone: values made without them, a null and a string here, do not
// share one array that such a push would fill for all.
func TestAssemblyScriptValuesOwnTheirArrays(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiling AssemblyScript takes seconds")
	}
	useCache(t)
	app := asApp(t, map[string]string{"server/api/values.get.ts": `import { JSONValue, Request, plainRoute, respond } from "@wasmendpoints/assemblyscript";
export * from "@wasmendpoints/assemblyscript/exports";

plainRoute((req: Request): void => {
  const a = JSONValue.null();
  a.items.push(JSONValue.int(1));
  a.keys.push("k");
  a.values.push(JSONValue.int(2));
  const b = JSONValue.str("b");
  respond(200, JSONValue.object()
    .set("a", JSONValue.int(a.items.length + a.keys.length + a.values.length))
    .set("b", JSONValue.int(b.items.length + b.keys.length + b.values.length))
    .set("array", JSONValue.array().push(JSONValue.int(3)))
    .set("object", JSONValue.object().set("x", JSONValue.null())));
});
`})
	out := filepath.Join(t.TempDir(), "values.get.wasm")
	if err := AssemblyScript(t.Context(), app, filepath.Join(app, "server", "api", "values.get.ts"), out); err != nil {
		t.Fatal(err)
	}
	ex := &abiExchange{}
	if got := newABIHost(t).load(t, out).handle(t, ex); got != 0 {
		t.Fatalf("%s() = %d, want 0 (body %s)", abi.ExportHandle, got, ex.body.String())
	}
	if got, want := ex.body.String(), `{"a":3,"b":0,"array":[3],"object":{"x":null}}`; got != want {
		t.Errorf("body %s, want %s", got, want)
	}
}
