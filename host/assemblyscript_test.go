package host_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// TestAssemblyScriptAbort builds an app that installed only the compiler,
// so endpoints build supplies the SDK it ships, and checks that a throw in
// a handler is logged with its message and place and answered 500, and
// that the next request gets a fresh instance.
func TestAssemblyScriptAbort(t *testing.T) {
	t.Parallel()
	dir := compilerOnlyApp(t)
	src := filepath.Join(dir, "server", "api", "boom.get.ts")
	if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, []byte(`import { Contract, Request, Schema, endpoint, respond, JSONValue } from "@wasmendpoints/assemblyscript";
export * from "@wasmendpoints/assemblyscript/exports";

endpoint(
  new Contract().summary("Fail on purpose").query("fail", Schema.boolean()).response(200, "fine", Schema.object()),
  (req: Request): void => {
    const fail = req.query("fail");
    if (fail != null && fail.asBool()) throw new Error("boom on purpose");
    respond(200, JSONValue.object());
  },
);
`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := guestbuild.App(t.Context(), dir, dir, nil); err != nil {
		t.Fatal(err)
	}
	srv, logs := (&app{t: t, dir: dir}).serve(host.Options{Mode: host.Development})
	if got := do(t, srv, "GET", "/api/boom?fail=true", ""); got.status != 500 {
		t.Errorf("a throwing handler = %d %s, want 500", got.status, got.body)
	}
	if !strings.Contains(logs.String(), "abort: boom on purpose at server/api/boom.get.ts:") {
		t.Errorf("the log does not say why the handler failed:\n%s", logs)
	}
	if got := do(t, srv, "GET", "/api/boom", ""); got.status != 200 || got.body != "{}" {
		t.Errorf("the next request = %d %s, want 200 {}", got.status, got.body)
	}
}

// compilerOnlyApp is an app directory that installed only the
// AssemblyScript compiler (the one examples/users-as installs), so that
// endpoints build supplies the SDK it ships.
func compilerOnlyApp(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	linkAssemblyScript(t, dir)
	return dir
}

// linkAssemblyScript links the compiler examples/users-as installs (the
// first call installs it) into the app at dir, so that endpoints build
// finds it and supplies the SDK it ships.
func linkAssemblyScript(t *testing.T, dir string) {
	t.Helper()
	builtExample(t, "users-as") // installs the compiler in examples/users-as
	modules, err := filepath.Abs(filepath.Join("..", "examples", "users-as", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	for _, link := range []struct{ name, target string }{
		{"node_modules/assemblyscript", filepath.Join(modules, "assemblyscript")},
		{"node_modules/.bin/asc", "../assemblyscript/bin/asc.js"},
	} {
		p := filepath.Join(dir, filepath.FromSlash(link.name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(link.target, p); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAssemblyScriptVariablesAndTimeout: the SDK's variable() reads the
// app's variables (null for an undeclared one), and Contract.timeout
// reaches the document.
func TestAssemblyScriptVariablesAndTimeout(t *testing.T) {
	t.Parallel()
	dir := compilerOnlyApp(t)
	src := filepath.Join(dir, "server", "api", "vars.get.ts")
	if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, []byte(`import { Contract, Request, Schema, endpoint, respond, variable, JSONValue } from "@wasmendpoints/assemblyscript";
export * from "@wasmendpoints/assemblyscript/exports";

endpoint(
  new Contract().summary("A variable").query("name", Schema.string()).timeout(90000).response(200, "its value", Schema.object()),
  (req: Request): void => {
    const v = variable(req.query("name")!.asString());
    respond(200, JSONValue.object().set("value", v == null ? JSONValue.null() : JSONValue.str(v)));
  },
);
`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "endpoints.json"), []byte(`{"variables": {"region": {"env": "REGION"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := guestbuild.App(t.Context(), dir, dir, nil); err != nil {
		t.Fatal(err)
	}
	h, _ := (&app{t: t, dir: dir}).host(host.Options{Mode: host.Development,
		LookupEnv: func(k string) (string, bool) { return map[string]string{"REGION": "eu-west-1"}[k], k == "REGION" }})
	srv := newServer(t, h)
	for _, tt := range []struct{ name, want string }{{"region", `{"value":"eu-west-1"}`}, {"regoin", `{"value":null}`}} {
		if got := do(t, srv, "GET", "/api/vars?name="+tt.name, ""); got.status != 200 || got.body != tt.want {
			t.Errorf("variable(%q) = %d %s, want 200 %s", tt.name, got.status, got.body, tt.want)
		}
	}
	if doc := string(h.Document()); !strings.Contains(doc, `"x-endpoints-timeout": "90s"`) {
		t.Errorf("the document lacks the operation's timeout:\n%s", doc)
	}
}

// TestAssemblyScriptFetch: the SDK's http.fetch calls a listed service
// through the host, and reports a refused one with the host's reason.
func TestAssemblyScriptFetch(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/never" {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		w.Header().Set("X-Backend", "yes")
		io.WriteString(w, "hello from "+r.URL.Path)
	}))
	t.Cleanup(backend.Close)
	t.Cleanup(func() { close(release) }) // before backend.Close, which waits for handlers
	a := &app{t: t, dir: compilerOnlyApp(t)}
	a.file("endpoints.json", []byte(`{"outbound": {"allowedHosts": ["`+backend.URL+`"]}}`))
	a.file("server/api/fetch.get.ts", []byte(`import { Contract, Request, Schema, endpoint, respond, JSONValue, http } from "@wasmendpoints/assemblyscript";
export * from "@wasmendpoints/assemblyscript/exports";

endpoint(
  new Contract().summary("Fetch a URL").query("url", Schema.string()).query("timeout", Schema.integer())
    .response(200, "what came back", Schema.object()),
  (req: Request): void => {
    const url = req.query("url");
    const timeout = req.query("timeout");
    const init = new http.Init();
    if (timeout != null) init.timeoutMs = <i32>timeout.asInt();
    const res = http.fetch(url == null ? "" : url.asString(), init);
    const out = JSONValue.object().set("status", JSONValue.int(res.status)).set("errno", JSONValue.int(res.errno));
    if (res.errno == 0) {
      const body = res.text();
      const backend = res.header("X-Backend");
      out.set("body", JSONValue.str(body == null ? "" : body)).set("backend", JSONValue.str(backend == null ? "" : backend));
    } else {
      out.set("error", JSONValue.str(res.error));
    }
    respond(200, out);
  },
);
`))
	if _, err := guestbuild.App(t.Context(), a.dir, a.dir, nil); err != nil {
		t.Fatal(err)
	}
	srv, _ := a.serve(host.Options{})
	for _, tc := range []struct{ url, want string }{
		{backend.URL + "/a", `{"status":200,"errno":0,"body":"hello from /a","backend":"yes"}`},
		{"http://169.254.169.254/", `{"status":0,"errno":-9,"error":"not_allowed: http://169.254.169.254:80 is not in outbound.allowedHosts; add it there for the app to call it"}`},
	} {
		if got := do(t, srv, "GET", "/api/fetch?url="+url.QueryEscape(tc.url), ""); got.status != 200 || got.body != tc.want {
			t.Errorf("fetch %s: got %d %s\nwant 200 %s", tc.url, got.status, got.body, tc.want)
		}
	}
	// A timeout of the request's own: the service never answers, and the
	// handler answers itself after 200 ms, well within the call's 10 s.
	got := do(t, srv, "GET", "/api/fetch?timeout=200&url="+url.QueryEscape(backend.URL+"/never"), "")
	if want := `{"status":0,"errno":-5,"error":"timeout: 127.0.0.1:`; got.status != 200 || !strings.HasPrefix(got.body, want) ||
		!strings.Contains(got.body, "within the request's timeout of 200ms") {
		t.Errorf("fetch with a timeout: got %d %s\nwant 200 %s... naming the request's timeout", got.status, got.body, want)
	}
}

// TestAssemblyScriptClock: Date.now() in a route reads the real time (it
// would otherwise import env.Date.now, which the host refuses), Date
// otherwise behaves as AssemblyScript's, and a route that imports the
// SDK's files one by one, not its index, builds (the names endpoints
// build passes to --use exist: no AS111).
func TestAssemblyScriptClock(t *testing.T) {
	t.Parallel()
	a := &app{t: t, dir: compilerOnlyApp(t)}
	a.file("server/api/clock.get.ts", []byte(`import { Contract, Schema } from "@wasmendpoints/assemblyscript/contract";
import { Value } from "@wasmendpoints/assemblyscript/json";
import { Request } from "@wasmendpoints/assemblyscript/request";
import { respond } from "@wasmendpoints/assemblyscript/response";
import { endpoint } from "@wasmendpoints/assemblyscript/route";
export * from "@wasmendpoints/assemblyscript/exports";

endpoint(
  new Contract().summary("The time").response(200, "now", Schema.object()),
  (req: Request): void => {
    const now = Date.now();
    const d: Date = Date.fromString(new Date(now).toISOString());
    respond(200, Value.object().set("now", Value.int(now)).set("roundTrip", Value.boolean(d.getTime() == now)));
  },
);
`))
	if _, err := guestbuild.App(t.Context(), a.dir, a.dir, nil); err != nil {
		t.Fatal(err)
	}
	srv, _ := a.serve(host.Options{Mode: host.Development})
	before := time.Now().UnixMilli()
	got := do(t, srv, "GET", "/api/clock", "")
	after := time.Now().UnixMilli()
	var answer struct {
		Now       int64
		RoundTrip bool
	}
	if err := json.Unmarshal([]byte(got.body), &answer); got.status != 200 || err != nil {
		t.Fatalf("GET /api/clock = %d %s (%v)", got.status, got.body, err)
	}
	if answer.Now < before || answer.Now > after || !answer.RoundTrip {
		t.Errorf("Date.now() = %d, want within [%d, %d] and a Date that round-trips (%v)", answer.Now, before, after, answer.RoundTrip)
	}
}

// TestAssemblyScriptDecode: decode<T> reads a body into a class of the
// app's, with nested classes, arrays, optional members and integer ranges,
// and a body that is not what the class reads aborts the call with the
// JSON pointer and what was expected. The contract's body schema is a bare
// object, so the host lets every shape through to the guest.
func TestAssemblyScriptDecode(t *testing.T) {
	t.Parallel()
	a := &app{t: t, dir: compilerOnlyApp(t)}
	a.file("server/api/notes.post.ts", []byte(`import { Contract, JSONFields, JSONValue, Request, Schema, decode, endpoint, respond } from "@wasmendpoints/assemblyscript";
export * from "@wasmendpoints/assemblyscript/exports";

class Author {
  name: string = "";
  readJSON(r: JSONFields): void {
    this.name = r.field<string>("name");
  }
}

class NewNote {
  title: string = "";
  stars: u8 = 0;
  tags: Array<string> = [];
  pinned: bool = false;
  authors: Array<Author> = [];
  readJSON(r: JSONFields): void {
    this.title = r.field<string>("title");
    this.stars = r.field<u8>("stars");
    this.tags = r.field<Array<string>>("tags");
    this.pinned = r.optional<bool>("pinned", false);
    this.authors = r.optional<Array<Author>>("authors", []);
  }
}

endpoint(
  new Contract().summary("Create a note").body(Schema.object()).response(200, "what was read", Schema.object()),
  (req: Request): void => {
    const n = decode<NewNote>(req.body()!);
    const names = new Array<string>();
    for (let i = 0; i < n.authors.length; i++) names.push(n.authors[i].name);
    respond(200, JSONValue.object().set("title", JSONValue.str(n.title)).set("stars", JSONValue.int(n.stars))
      .set("tags", JSONValue.strings(n.tags)).set("pinned", JSONValue.boolean(n.pinned)).set("authors", JSONValue.strings(names)));
  },
);
`))
	if _, err := guestbuild.App(t.Context(), a.dir, a.dir, nil); err != nil {
		t.Fatal(err)
	}
	srv, logs := a.serve(host.Options{Mode: host.Development})
	for _, tc := range []struct {
		body   string
		status int
		want   string // the answer, or what the log says
	}{
		{`{"title":"Milk","stars":255,"tags":["shop"],"authors":[{"name":"Ada"},{"name":"Linus"}]}`, 200,
			`{"title":"Milk","stars":255,"tags":["shop"],"pinned":false,"authors":["Ada","Linus"]}`},
		{`{"title":"Milk","stars":0,"tags":[],"pinned":true,"authors":null}`, 200, `{"title":"Milk","stars":0,"tags":[],"pinned":true,"authors":[]}`},
		{`{"title":"Milk","stars":256,"tags":[]}`, 500, "abort: JSON /stars: expected an integer within the u8 range, got 256"},
		{`{"title":"Milk","stars":-1,"tags":[]}`, 500, "abort: JSON /stars: expected an integer within the u8 range, got -1"},
		{`{"title":"Milk","stars":1,"tags":["a",7]}`, 500, "abort: JSON /tags/1: expected a string, got 7"},
		{`{"title":"Milk","stars":1,"tags":[],"authors":[{"nom":"Ada"}]}`, 500, "abort: JSON /authors/0/name: expected a member name (it is required)"},
		{`{"stars":1,"tags":[]}`, 500, "abort: JSON /title: expected a member title (it is required)"},
	} {
		got := do(t, srv, "POST", "/api/notes", tc.body, "Content-Type", "application/json")
		if got.status != tc.status {
			t.Errorf("POST %s = %d %s, want %d", tc.body, got.status, got.body, tc.status)
			continue
		}
		if tc.status == 200 && got.body != tc.want {
			t.Errorf("POST %s = %s, want %s", tc.body, got.body, tc.want)
		}
		if tc.status != 200 && !strings.Contains(logs.String(), tc.want) {
			t.Errorf("POST %s: the log does not say %q:\n%s", tc.body, tc.want, logs)
		}
	}
}

// TestAssemblyScriptFetchReadsALargeBodyWhole: Response.bytes (and text,
// json) reads a body of limits.outboundBytes (16 MiB by default) whole
// within the call's deadline: a buffer that grew by each 16 KiB read,
// copying all it held, made it quadratic.
func TestAssemblyScriptFetchReadsALargeBodyWhole(t *testing.T) {
	t.Parallel()
	const size = 16 << 20
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chunk := bytes.Repeat([]byte("0123456789abcdef"), 4096)
		for n := 0; n < size; n += len(chunk) {
			w.Write(chunk)
		}
	}))
	t.Cleanup(backend.Close)
	a := &app{t: t, dir: compilerOnlyApp(t)}
	a.file("endpoints.json", []byte(`{"outbound": {"allowedHosts": ["`+backend.URL+`"]}}`))
	a.file("server/api/big.get.ts", []byte(`import { Contract, Request, Schema, endpoint, respond, JSONValue, http } from "@wasmendpoints/assemblyscript";
export * from "@wasmendpoints/assemblyscript/exports";

endpoint(
  new Contract().summary("Fetch a large body").query("url", Schema.string()).response(200, "its size", Schema.object()),
  (req: Request): void => {
    const res = http.fetch(req.query("url")!.asString());
    const body = res.bytes();
    let sum: i64 = 0;
    if (body != null) for (let i = 0; i < body.length; i += 4096) sum += body[i];
    respond(200, JSONValue.object().set("errno", JSONValue.int(res.errno)).set("n", JSONValue.int(body == null ? -1 : body.length)).set("sum", JSONValue.int(sum)));
  },
);
`))
	if _, err := guestbuild.App(t.Context(), a.dir, a.dir, nil); err != nil {
		t.Fatal(err)
	}
	srv, logs := a.serve(host.Options{})
	want := fmt.Sprintf(`{"errno":0,"n":%d,"sum":%d}`, size, size/4096*'0')
	if got := do(t, srv, "GET", "/api/big?url="+url.QueryEscape(backend.URL+"/big"), ""); got.status != 200 || got.body != want {
		t.Errorf("a 16 MiB body: got %d %s\nwant 200 %s\nlog:\n%s", got.status, got.body, want, logs)
	}
}
