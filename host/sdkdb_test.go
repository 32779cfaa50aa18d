package host_test

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/database/databasetest"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// TestSDKDatabases builds the route testdata/sdkdb/db.post.<ext> in each
// guest language and runs the same requests against each, on a real SQLite
// database migrated by testdata/sdkdb/migration.sqlite.sql: a query with typed
// columns (an exact integer, text, a nullable real, a blob), an exec with
// text, real and blob parameters, a unique violation the route answers 409
// and a foreign key violation it answers 422, by the error's kind, with the
// constraint's code, name and kind, a blob given as base64 text and decoded with
// the SDK's decoder (400 when it is not base64), a real parameter that holds an integral
// value (3.0, still real: 3.0 / 2 is 1.5), text holding quotes, a backslash, UTF-8 and
// what JSON encoders escape (<&>), a transaction that commits and one that
// rolls back when the function returns an error, an integer and a real
// given as text (as PostgreSQL gives a numeric, sum() of a bigint column
// among them) read by the SDK's number getters, a query for one row (the
// first, none, a failure: AssemblyScript's queryRow, Rust's query_row), a
// syntax error, a database the app does not declare, and parameters the
// host refuses (C: one that is an array; Rust and AssemblyScript: more than
// 65535), whose
// error holds the host's reason. The same build
// then serves a database of its own on a real PostgreSQL server, migrated
// by testdata/sdkdb/migration.postgres.sql, where the two violations answer
// alike with PostgreSQL's constraint names and its DETAIL (the SDK's
// error's detail, none on SQLite). Each SDK's transaction options
// reach the database: a read-only transaction reads and its write is
// refused (denied), PostgreSQL's isolation is the one asked, and an option
// the host does not know comes back with the host's message.
func TestSDKDatabases(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: compiling the routes takes seconds each")
	}
	pgURL, _, _ := databasetest.StartPostgres(t)
	languages := []struct{ name, ext, tool string }{
		{"rust", "rs", "rustc"},
		{"c", "c", "clang"},
		{"assemblyscript", "ts", "npm"},
	}
	for _, lang := range languages {
		t.Run(lang.name, func(t *testing.T) {
			t.Parallel()
			requireTool(t, lang.tool)
			src, err := os.ReadFile(filepath.Join("testdata", "sdkdb", "db.post."+lang.ext))
			if err != nil {
				t.Fatal(err)
			}
			a := newApp(t).file("server/routes/db.post."+lang.ext, src)
			for _, driver := range []string{"sqlite", "postgres"} {
				migration, err := os.ReadFile(filepath.Join("testdata", "sdkdb", "migration."+driver+".sql"))
				if err != nil {
					t.Fatal(err)
				}
				a.file("server/migrations/001-users."+driver+".sql", migration)
			}
			if lang.ext == "ts" {
				linkAssemblyScript(t, a.dir)
			}
			if _, err := guestbuild.App(t.Context(), a.dir, a.dir, nil); err != nil {
				t.Fatal(err)
			}
			srv, logs := a.serve(host.Options{})
			type step struct {
				name, op, user, fail string
				status               int
				want                 string
			}
			run := func(srv *httptest.Server, logs *logBuffer, steps []step) {
				t.Helper()
				for _, s := range steps {
					headers := []string{"x-op", s.op}
					if s.user != "" {
						headers = append(headers, "x-name", s.user)
					}
					if s.fail != "" {
						headers = append(headers, "x-fail", s.fail)
					}
					if s.op == "add" {
						// The avatar's bytes, 09 08, as base64: each route
						// decodes it with its SDK's decoder ("Bad" sends
						// text that is not base64).
						avatar := "CQg="
						if s.user == "Bad" {
							avatar = "CQg"
						}
						headers = append(headers, "x-avatar", avatar)
					}
					got := do(t, srv, "POST", "/db", "", headers...)
					// jsonEqual compares numbers as float64s: an integer beyond
					// 2^53 must also be there digit for digit.
					exact := !strings.Contains(s.want, "9007199254740993") || strings.Contains(got.body, "9007199254740993")
					if got.status != s.status || !jsonEqual(t, got.body, s.want) || !exact {
						t.Errorf("%s: got %d %s\nwant %d %s\nlog:\n%s", s.name, got.status, got.body, s.status, s.want, logs)
					}
				}
			}
			// A read-only transaction (its count, then its write refused)
			// and, where the SDK can send one, an option the host refuses.
			txOptions := []step{{"read-only transaction", "readonly", "", "", 200, `{"users":6,"write":"denied"}`}}
			if lang.name != "rust" { // Rust's options are typed: it cannot send an unknown level
				txOptions = append(txOptions, step{"unknown transaction option", "badopts", "", "", 200, `{"errno":-2,"says":true}`})
			}
			// Parameters the host refuses, with its reason (AssemblyScript:
			// more than 65535, sent within the handler's deadline).
			txOptions = append(txOptions, step{"refused parameters", "badparams", "", "", 200, `{"errno":-2,"says":true}`})
			if lang.name == "assemblyscript" {
				txOptions = append(txOptions, step{"16000 parameters", "many", "", "", 200, `{"n":16000,"sum":127992000}`})
			}
			run(srv, logs, append([]step{
				{"typed rows", "list", "", "", 200, `[{"id":1,"name":"Ada","score":1.5,"avatar":"0001ff"},{"id":2,"name":"Grace","score":null,"avatar":null}]`},
				{"insert with parameters", "add", "Linus", "", 200, `{"rowsAffected":1,"lastInsertId":3}`},
				{"a blob that is not base64", "add", "Bad", "", 400, `{"message":"avatar is not base64"}`},
				{"unique violation", "add", "Ada", "", 409, `{"code":"constraint","constraint":"users.name","kind":"unique","detail":null}`},
				{"foreign key violation", "orphan", "", "", 422, `{"code":"constraint","constraint":null,"kind":"foreign_key","detail":null}`},
				{"parameters are never SQL", "add", "x'); DROP TABLE users; --", "", 200, `{"rowsAffected":1,"lastInsertId":4}`},
				{"text with escapes", "add", `Zoë "Q" \ / <&>`, "", 200, `{"rowsAffected":1,"lastInsertId":5}`},
				{"committed transaction", "tx", "Ken", "", 200, `{"committed":true,"score":6}`},
				{"rolled back transaction", "tx", "Dennis", "yes", 200, `{"committed":false,"why":"host"}`},
				{"a real parameter stays real", "half", "", "", 200, `{"h":1.5}`},
				{"numbers given as text", "numeric", "", "", 200, `{"total":9007199254740993,"mean":12.5}`},
				{"one row", "one", "", "", 200, `{"first":"Grace","none":true,"failed":"syntax"}`},
				{"syntax error", "bad", "", "", 200, `{"code":"syntax","constraint":null,"kind":null,"detail":null}`},
				{"undeclared database", "nodb", "", "", 200, `{"code":"host","constraint":null,"kind":null,"detail":null}`},
				{"what remains", "list", "", "", 200, `[{"id":1,"name":"Ada","score":1.5,"avatar":"0001ff"},{"id":2,"name":"Grace","score":null,"avatar":null},` +
					`{"id":3,"name":"Linus","score":2.25,"avatar":"0908"},{"id":4,"name":"x'); DROP TABLE users; --","score":2.25,"avatar":"0908"},{"id":5,"name":"Zoë \"Q\" \\ / <&>","score":2.25,"avatar":"0908"},{"id":6,"name":"Ken","score":6,"avatar":null}]`},
			}, txOptions...))

			// The same module on PostgreSQL, in a database of its own.
			dbName := "sdkdb_" + lang.name
			if err := createDatabase(t, pgURL, dbName); err != nil {
				t.Fatal(err)
			}
			pg, pgLogs := a.serve(host.Options{ConfigOverrides: onPostgres(strings.Replace(pgURL, "/postgres?", "/"+dbName+"?", 1))})
			run(pg, pgLogs, []step{
				{"unique violation on PostgreSQL", "add", "Ada", "", 409, `{"code":"constraint","constraint":"users_name_key","kind":"unique","detail":"Key (name)=(Ada) already exists."}`},
				{"foreign key violation on PostgreSQL", "orphan", "", "", 422, `{"code":"constraint","constraint":"tags_user_id_fkey","kind":"foreign_key","detail":"Key (user_id)=(99) is not present in table \"users\"."}`},
				{"syntax error on PostgreSQL", "bad", "", "", 200, `{"code":"syntax","constraint":null,"kind":null,"detail":null}`},
				{"read-only transaction on PostgreSQL", "readonly", "", "", 200, `{"users":2,"write":"denied"}`},
				{"serializable transaction on PostgreSQL", "isolation", "", "", 200, `{"isolation":"serializable"}`},
			})
		})
	}
}

// TestAssemblyScriptRowMisreads: a Row getter that reads a column as what it
// does not hold aborts (AssemblyScript has no exceptions a handler can
// catch) with a message naming the column and its value, which the log and
// the development 500 show.
func TestAssemblyScriptRowMisreads(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: compiling the route takes seconds")
	}
	requireTool(t, "npm")
	a := newApp(t).file("server/routes/row.get.ts", []byte(`import { DB, JSONValue, Request, plainRoute, respond } from "@wasmendpoints/assemblyscript";
export * from "@wasmendpoints/assemblyscript/exports";

plainRoute((req: Request): void => {
  const db = new DB("main");
  const rows = db.query("SELECT 2.5 AS price, NULL AS note, 'x!' AS sku, 7 AS n");
  assert(rows != null && rows.length == 1, "the query failed");
  const r = rows!.at(0);
  const get = req.header("x-get")!;
  const col = req.header("x-col")!;
  let v = JSONValue.null();
  if (get == "int") v = JSONValue.int(r.getInt(col));
  else if (get == "bool") v = JSONValue.boolean(r.getBool(col));
  else if (get == "string") v = JSONValue.str(r.getString(col));
  else if (get == "blob") v = JSONValue.int(r.getBlob(col).length);
  respond(200, v);
});
`))
	linkAssemblyScript(t, a.dir)
	if _, err := guestbuild.App(t.Context(), a.dir, a.dir, nil); err != nil {
		t.Fatal(err)
	}
	srv, logs := a.serve(host.Options{})
	tests := []struct{ get, col, want string }{
		{"int", "price", `abort: database: column "price" holds 2.5, not an integer`},
		{"int", "note", `abort: database: column "note" holds null, not an integer`},
		{"int", "nope", `abort: database: the result has no column "nope"; its columns are price, note, sku, n`},
		{"bool", "n", `abort: database: column "n" holds 7, not a boolean`},
		{"string", "n", `abort: database: column "n" holds 7, not text`},
		{"blob", "sku", `abort: database: column "sku" is not a blob (base64 text)`},
	}
	for _, tt := range tests {
		got := do(t, srv, "GET", "/row", "", "x-get", tt.get, "x-col", tt.col)
		// The log's text handler quotes the message.
		quoted := strings.Trim(strconv.Quote(tt.want), `"`)
		if got.status != 500 || !strings.Contains(logs.String(), quoted) {
			t.Errorf("%s of %s: got %d %s; want 500 and the log saying %s\nlog:\n%s", tt.get, tt.col, got.status, got.body, tt.want, logs)
		}
	}
	if got := do(t, srv, "GET", "/row", "", "x-get", "int", "x-col", "n"); got.status != 200 || got.body != "7" {
		t.Errorf("int of n = %d %s, want 200 7", got.status, got.body)
	}
}

// TestAssemblyScriptParameterBinds: a parameter binds as the C SDK's
// endpoints_params_value and the Rust SDK's From<&Json> bind it: an array,
// or an object blob() did not make (even one shaped as blob()'s), as its
// JSON text; an integer beyond i64 as its digits in text; NaN and the
// infinities as NULL. blob()'s object binds as bytes, a string as text.
func TestAssemblyScriptParameterBinds(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: compiling the route takes seconds")
	}
	requireTool(t, "npm")
	a := newApp(t).file("server/routes/param.get.ts", []byte(`import { DB, JSONValue, Request, blob, parseJSON, plainRoute, respond } from "@wasmendpoints/assemblyscript";
export * from "@wasmendpoints/assemblyscript/exports";

plainRoute((req: Request): void => {
  const db = new DB("main");
  let p = JSONValue.null();
  const kind = req.header("x-kind")!;
  if (kind == "array") p = JSONValue.array().push(JSONValue.int(1));
  else if (kind == "object") p = JSONValue.object().set("a", JSONValue.int(1));
  else if (kind == "blob-like") p = JSONValue.object().set("$blob", JSONValue.str("AAEC"));
  else if (kind == "big") p = parseJSON("9223372036854775808")!;
  else if (kind == "nan") p = JSONValue.float(NaN);
  else if (kind == "inf") p = JSONValue.float(-Infinity);
  else if (kind == "blob") p = blob(new Uint8Array(2));
  else if (kind == "text") p = JSONValue.str("x");
  const rows = db.query("SELECT $1 AS a, typeof($2) AS t, CASE WHEN typeof($2) = 'blob' THEN hex($2) ELSE CAST($2 AS TEXT) END AS v", [JSONValue.int(7), p]);
  if (rows == null) {
    const e = db.error!;
    respond(200, JSONValue.object().set("code", JSONValue.str(e.code)).set("errno", JSONValue.int(e.errno)).set("message", JSONValue.str(e.message)));
    return;
  }
  respond(200, JSONValue.object().set("t", rows.at(0).value("t")).set("v", rows.at(0).value("v")));
});
`))
	linkAssemblyScript(t, a.dir)
	if _, err := guestbuild.App(t.Context(), a.dir, a.dir, nil); err != nil {
		t.Fatal(err)
	}
	srv, logs := a.serve(host.Options{})
	tests := []struct{ kind, want string }{
		{"array", `{"t":"text","v":"[1]"}`},
		{"object", `{"t":"text","v":"{\"a\":1}"}`},
		{"blob-like", `{"t":"text","v":"{\"$blob\":\"AAEC\"}"}`},
		{"big", `{"t":"text","v":"9223372036854775808"}`},
		{"nan", `{"t":"null","v":null}`},
		{"inf", `{"t":"null","v":null}`},
		{"blob", `{"t":"blob","v":"0000"}`},
		{"text", `{"t":"text","v":"x"}`},
	}
	for _, tt := range tests {
		got := do(t, srv, "GET", "/param", "", "x-kind", tt.kind)
		if got.status != 200 || !jsonEqual(t, got.body, tt.want) {
			t.Errorf("%s: got %d %s\nwant 200 %s\nlog:\n%s", tt.kind, got.status, got.body, tt.want, logs)
		}
	}
}

// createDatabase creates the database name on the PostgreSQL server whose
// "postgres" database url reaches, so that tests sharing one server each
// migrate a database of their own.
func createDatabase(t *testing.T, url, name string) error {
	db, err := database.Open(t.Context(), database.DriverPostgres, database.Options{URL: url, MaxConns: 1})
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Exec(t.Context(), "CREATE DATABASE "+name, nil); err != nil {
		return fmt.Errorf("creating the database %s: %w", name, err)
	}
	return nil
}
