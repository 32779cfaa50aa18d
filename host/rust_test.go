package host_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// rustSources are the files of TestRustFailuresAndMiddleware's app.
var rustSources = map[string]string{
	"server/api/boom.get.rs": `use endpoints::{endpoint, respond, Contract, Json, Request, Schema};

endpoint!(
    Contract::new()
        .summary("Fail on purpose")
        .query("how", Schema::string().one_of_strings(&["panic", "error", "no"]), false)
        .response(200, "fine", Some(Schema::object())),
    |req: &Request| -> Result<(), String> {
        match req.query("how").and_then(|h| h.as_str().map(str::to_string)).as_deref() {
            Some("panic") => panic!("boom on purpose"),
            Some("error") => Err("refused on purpose".to_string()),
            _ => respond(200, &Json::object()).map_err(|e| e.to_string()),
        }
    }
);
`,
	"server/api/whoami.get.rs": `use endpoints::{endpoint, respond, Contract, Json, Request, Schema};

fn handle(req: &Request) -> Result<(), endpoints::Errno> {
    respond(200, &Json::object()
        .set("who", req.context("who"))
        .set("requestId", req.request_id())
        .set("route", req.route()))
}

endpoint!(Contract::new().response(200, "who", Some(Schema::object())), handle);
`,
	"server/middleware/10-stamp.rs": `use endpoints::middleware::{set_context, Flow};
use endpoints::{add_header, middleware, respond, Errno, Json, Request};

fn before(req: &Request) -> Result<Flow, Errno> {
    match req.header("x-user") {
        None => {
            respond(401, &Json::object().set("message", "who are you?"))?;
            Ok(Flow::Answered)
        }
        Some(user) => {
            set_context("who", &user)?;
            add_header("x-stamped", "before")?;
            Ok(Flow::Continue)
        }
    }
}

fn after(_req: &Request) -> Result<(), Errno> {
    add_header("x-stamped", "after")
}

middleware! {
    declaration: Json::object().set("routes", vec!["/api/whoami"]),
    before: before,
    after: after,
}
`,
}

// TestRustFailuresAndMiddleware builds Rust routes and a Rust middleware
// module the way endpoints build does: a panic and an Err from a handler
// are logged with their message and answered 500, the next request gets a
// working instance, and the middleware's before, context and after reach
// the handler and the client.
func TestRustFailuresAndMiddleware(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: compiling Rust routes takes seconds each")
	}
	requireTool(t, "rustc")
	dir := t.TempDir()
	for name, src := range rustSources {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := guestbuild.App(t.Context(), dir, dir, nil); err != nil {
		t.Fatal(err)
	}
	srv, logs := (&app{t: t, dir: dir}).serve(host.Options{Mode: host.Development})

	if got := do(t, srv, "GET", "/api/boom?how=panic", ""); got.status != 500 || !strings.Contains(got.body, "boom on purpose") {
		t.Errorf("a panicking handler = %d %s, want a development 500 holding the panic", got.status, got.body)
	}
	if !strings.Contains(logs.String(), "boom on purpose") || !strings.Contains(logs.String(), "server/api/boom.get.rs:") {
		t.Errorf("the log does not say why and where the handler panicked:\n%s", logs)
	}
	if got := do(t, srv, "GET", "/api/boom?how=error", ""); got.status != 500 {
		t.Errorf("a handler returning Err = %d %s, want 500", got.status, got.body)
	}
	if !strings.Contains(logs.String(), "handler failed: refused on purpose") {
		t.Errorf("the log does not hold the handler's error:\n%s", logs)
	}
	if got := do(t, srv, "GET", "/api/boom", ""); got.status != 200 || got.body != "{}" {
		t.Errorf("the next request = %d %s, want 200 {}", got.status, got.body)
	}

	if got := do(t, srv, "GET", "/api/whoami", ""); got.status != 401 || !jsonEqual(t, got.body, `{"message":"who are you?"}`) {
		t.Errorf("without x-user = %d %s, want the middleware's 401", got.status, got.body)
	}
	got := do(t, srv, "GET", "/api/whoami", "", "X-User", "ada", "X-Request-Id", "req-42")
	if got.status != 200 || !jsonEqual(t, got.body, `{"who":"ada","requestId":"req-42","route":"/api/whoami"}`) {
		t.Errorf("with x-user = %d %s, want the context the middleware set", got.status, got.body)
	}
	if stamps := got.header.Values("X-Stamped"); strings.Join(stamps, ",") != "before,after" {
		t.Errorf("X-Stamped = %q, want [before after]", stamps)
	}
	if got := do(t, srv, "GET", "/api/boom", ""); got.header.Get("X-Stamped") != "" {
		t.Errorf("the middleware ran on a route its declaration does not select")
	}
}

// TestRustFetch: the crate's http::fetch calls a listed service through
// the host, and reports a refused one with the host's reason.
func TestRustFetch(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: compiling Rust routes takes seconds each")
	}
	requireTool(t, "rustc")
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Backend", "yes")
		io.WriteString(w, r.Method+" "+r.URL.Path+" "+r.Header.Get("Content-Type")+" "+string(b))
	}))
	t.Cleanup(backend.Close)
	a := newApp(t).
		file("endpoints.json", []byte(`{"outbound": {"allowedHosts": ["`+backend.URL+`"]}}`)).
		file("server/api/fetch.get.rs", []byte(`use endpoints::{endpoint, http, respond, Contract, Json, Request, Schema};

endpoint!(
    Contract::new()
        .summary("Fetch a URL")
        .query("url", Schema::string(), true)
        .response(200, "what came back", Some(Schema::object())),
    |req: &Request| -> Result<(), endpoints::Errno> {
        let url = req.query("url").and_then(|u| u.as_str().map(str::to_string)).unwrap_or_default();
        let out = match http::fetch("POST", &url, &[("content-type", "text/plain")], b"ping") {
            Ok(res) => {
                let backend = res.header("x-backend").unwrap_or("").to_string();
                let status = res.status;
                match res.text() {
                    Ok(body) => Json::object().set("status", status as i64).set("backend", backend).set("body", body),
                    Err(e) => Json::object().set("error", e.to_string()),
                }
            }
            Err(e) => Json::object().set("errno", e.errno.0 as i64).set("code", e.code),
        };
        respond(200, &out)
    }
);
`))
	if _, err := guestbuild.App(t.Context(), a.dir, a.dir, nil); err != nil {
		t.Fatal(err)
	}
	srv, _ := a.serve(host.Options{})
	for _, tc := range []struct{ url, want string }{
		{backend.URL + "/a", `{"status":200,"backend":"yes","body":"POST /a text/plain ping"}`},
		{"http://169.254.169.254/", `{"errno":-9,"code":"not_allowed"}`},
	} {
		if got := do(t, srv, "GET", "/api/fetch?url="+url.QueryEscape(tc.url), ""); got.status != 200 || got.body != tc.want {
			t.Errorf("fetch %s: got %d %s\nwant 200 %s", tc.url, got.status, got.body, tc.want)
		}
	}
}

// TestRustVariableUndeclared: a handler that reads a variable the app does
// not declare (a typo) and returns the error with ? fails with a log line
// naming the variable and where to declare it, not a bare errno; a
// declared one reads its value.
func TestRustVariableUndeclared(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: compiling Rust routes takes seconds each")
	}
	requireTool(t, "rustc")
	a := newApp(t).
		file("endpoints.json", []byte(`{"variables": {"region": {"default": "eu"}}}`)).
		file("server/api/region.get.rs", []byte(`use endpoints::{endpoint, respond, variable, Contract, Errno, Json, Request, Schema};

endpoint!(
    Contract::new()
        .query("name", Schema::string(), true)
        .response(200, "the value", Some(Schema::object())),
    |req: &Request| -> Result<(), Errno> {
        let name = req.query("name").and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
        let value = variable(&name)?;
        respond(200, &Json::object().set("value", value))
    }
);
`))
	if _, err := guestbuild.App(t.Context(), a.dir, a.dir, nil); err != nil {
		t.Fatal(err)
	}
	srv, logs := a.serve(host.Options{Mode: host.Development})
	if got := do(t, srv, "GET", "/api/region?name=region", ""); got.status != 200 || got.body != `{"value":"eu"}` {
		t.Errorf("a declared variable = %d %s, want 200 {\"value\":\"eu\"}", got.status, got.body)
	}
	got := do(t, srv, "GET", "/api/region?name=regoin", "")
	want := `variable \"regoin\": the app declares no such variable in endpoints.json \"variables\"`
	if got.status != 500 || !strings.Contains(got.body, want) {
		t.Errorf("an undeclared variable = %d %s, want a development 500 whose output says %s", got.status, got.body, want)
	}
	if !strings.Contains(logs.String(), want) {
		t.Errorf("the log does not name the undeclared variable (%s):\n%s", want, logs)
	}
}

// TestRustQueryAccessors: query_str and query_i64 read a route's query
// parameters as their contract declares them, None when a parameter is
// absent and has no default, its default otherwise.
func TestRustQueryAccessors(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: compiling Rust routes takes seconds each")
	}
	requireTool(t, "rustc")
	a := newApp(t).
		file("server/api/search.get.rs", []byte(`use endpoints::{endpoint, respond, Contract, Errno, Json, Request, Schema};

endpoint!(
    Contract::new()
        .query("q", Schema::string(), false)
        .query("limit", Schema::integer().default_value(20), false)
        .query("page", Schema::integer(), false)
        .response(200, "what was read", Some(Schema::object())),
    |req: &Request| -> Result<(), Errno> {
        respond(200, &Json::object()
            .set("q", req.query_str("q"))
            .set("limit", req.query_i64("limit"))
            .set("page", req.query_i64("page")))
    }
);
`))
	if _, err := guestbuild.App(t.Context(), a.dir, a.dir, nil); err != nil {
		t.Fatal(err)
	}
	srv, _ := a.serve(host.Options{})
	for _, tc := range []struct{ query, want string }{
		{"", `{"q":null,"limit":20,"page":null}`},
		{"?q=ada&limit=5&page=-9223372036854775808", `{"q":"ada","limit":5,"page":-9223372036854775808}`},
		{"?q=", `{"q":"","limit":20,"page":null}`},
	} {
		if got := do(t, srv, "GET", "/api/search"+tc.query, ""); got.status != 200 || got.body != tc.want {
			t.Errorf("GET /api/search%s = %d %s, want 200 %s", tc.query, got.status, got.body, tc.want)
		}
	}
}
