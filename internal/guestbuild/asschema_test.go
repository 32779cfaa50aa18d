package guestbuild

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
)

// TestAssemblyScriptSchemaDocs: the AssemblyScript SDK's builders write
// what the document shows of a schema and a body into the contract the
// module exports: Schema.description, Schema.example (each call one more
// value of "examples", a non-array "examples" replaced), and
// Contract.bodyDescription before or after body, which keeps it.
func TestAssemblyScriptSchemaDocs(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiling AssemblyScript takes seconds")
	}
	useCache(t)
	app := asApp(t, map[string]string{"server/api/users/index.post.ts": `import { Contract, JSONValue, Request, Schema, endpoint, respond } from "@wasmendpoints/assemblyscript";
export * from "@wasmendpoints/assemblyscript/exports";

endpoint(
  new Contract()
    .bodyDescription("The user to create.")
    .body(
      Schema.object()
        .description("A user to create.")
        .property("id", Schema.integer().minimum(1).example(JSONValue.int(1)).example(JSONValue.int(2)))
        .property("name", Schema.string().description("Full name.").example(JSONValue.str("Ada Lovelace")))
        .optional("tags", Schema.raw(JSONValue.object().set("examples", JSONValue.str("not an array"))).example(JSONValue.boolean(true))),
      false,
    )
    .response(201, "The new user", Schema.object().example(JSONValue.object().set("id", JSONValue.int(1)))),
  (req: Request): void => {
    respond(201, JSONValue.object().set("id", JSONValue.int(1)));
  },
);
`})
	src := filepath.Join(app, "server", "api", "users", "index.post.ts")
	out := filepath.Join(t.TempDir(), "index.post.wasm")
	if err := AssemblyScript(t.Context(), app, src, out); err != nil {
		t.Fatal(err)
	}
	got := newABIHost(t).load(t, out).contract(t)
	want := `{"request":{"body":{"schema":{"type":"object","description":"A user to create.",` +
		`"properties":{"id":{"type":"integer","minimum":1,"maximum":9223372036854775807,"examples":[1,2]},` +
		`"name":{"type":"string","description":"Full name.","examples":["Ada Lovelace"]},"tags":{"examples":[true]}},` +
		`"required":["id","name"]},"required":false,"description":"The user to create."}},` +
		`"responses":{"201":{"description":"The new user","schema":{"type":"object","examples":[{"id":1}]}}}}`
	var compact bytes.Buffer
	if err := json.Compact(&compact, got); err != nil {
		t.Fatalf("the contract is not JSON: %v\n%s", err, got)
	}
	if compact.String() != want {
		t.Errorf("contract =\n%s\nwant\n%s", compact.String(), want)
	}
}

// TestAssemblyScriptSchemaNullable: Schema.nullable makes a schema that
// also takes null ({"anyOf": [s, {"type": "null"}]}, as the Go SDK's
// nullable tag and the Rust crate's Schema::nullable do), for a NULL
// column answered as JSON or a body member sent as null: the annotations
// move to the outer schema, keywords set after it land there, and a schema
// that is not an object is wrapped whole.
func TestAssemblyScriptSchemaNullable(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiling AssemblyScript takes seconds")
	}
	useCache(t)
	app := asApp(t, map[string]string{"server/api/users/index.post.ts": `import { Contract, JSONValue, Request, Schema, endpoint, respond } from "@wasmendpoints/assemblyscript";
export * from "@wasmendpoints/assemblyscript/exports";

endpoint(
  new Contract()
    .body(
      Schema.object()
        .optional("age", Schema.integer().minimum(0).nullable())
        .optional("nickname", Schema.string().description("Nickname.").example(JSONValue.str("Ada")).defaultValue(JSONValue.str("x"))
          .with("deprecated", JSONValue.boolean(true)).with("readOnly", JSONValue.boolean(true)).with("writeOnly", JSONValue.boolean(false)).minLength(1).nullable())
        .optional("owner", Schema.ref("User").nullable().description("The owner."))
        .optional("any", Schema.raw(JSONValue.boolean(true)).nullable()),
    )
    .response(200, "The user", Schema.object()),
  (req: Request): void => {
    respond(200, JSONValue.object());
  },
);
`})
	src := filepath.Join(app, "server", "api", "users", "index.post.ts")
	out := filepath.Join(t.TempDir(), "index.post.wasm")
	if err := AssemblyScript(t.Context(), app, src, out); err != nil {
		t.Fatal(err)
	}
	got := newABIHost(t).load(t, out).contract(t)
	want := `{"request":{"body":{"schema":{"type":"object","properties":{` +
		`"age":{"anyOf":[{"type":"integer","minimum":0,"maximum":9223372036854775807},{"type":"null"}]},` +
		`"nickname":{"anyOf":[{"type":"string","minLength":1},{"type":"null"}],"description":"Nickname.","examples":["Ada"],"default":"x","deprecated":true,"readOnly":true,"writeOnly":false},` +
		`"owner":{"anyOf":[{"$ref":"#/$defs/User"},{"type":"null"}],"description":"The owner."},` +
		`"any":{"anyOf":[true,{"type":"null"}]}}}}},` +
		`"responses":{"200":{"description":"The user","schema":{"type":"object"}}}}`
	var compact bytes.Buffer
	if err := json.Compact(&compact, got); err != nil {
		t.Fatalf("the contract is not JSON: %v\n%s", err, got)
	}
	if compact.String() != want {
		t.Errorf("contract =\n%s\nwant\n%s", compact.String(), want)
	}
}
