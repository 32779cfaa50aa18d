package host_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

var (
	builtMu   sync.Mutex
	builtApps = map[string]string{}
)

// builtExample builds an example app from its sources once per test run,
// into a temporary copy, and returns that copy's directory.
func builtExample(t testing.TB, name string) string {
	t.Helper()
	builtMu.Lock()
	defer builtMu.Unlock()
	if dir, ok := builtApps[name]; ok {
		return dir
	}
	src := filepath.Join("..", "examples", name)
	sources, err := guestbuild.Find(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sources {
		switch s.Lang {
		case guestbuild.LangC:
			requireTool(t, "clang")
		case guestbuild.LangWAT:
			requireTool(t, "wat2wasm")
		}
	}
	dir, err := os.MkdirTemp("", "endpoints-example-"+name+"-")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{host.AppConfigFile, host.RoutesConfigFile} {
		cfg, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(f)))
		if err != nil {
			continue
		}
		out := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(out, cfg, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := guestbuild.App(context.Background(), src, dir, nil); err != nil {
		t.Fatalf("building examples/%s: %v", name, err)
	}
	builtApps[name] = dir
	return dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, dir := range builtApps {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// TestUsersExample drives every route of examples/users over HTTP in
// development, where each answer is also checked against its contract.
func TestUsersExample(t *testing.T) {
	h, logs := (&app{t: t, dir: builtExample(t, "users")}).host(host.Options{Mode: host.Development})
	srv := httptest.NewServer(h)
	defer srv.Close()
	const ct = "application/json"
	tests := []struct {
		name, method, path, body string
		wantStatus               int
		wantBody                 string
		wantHeader               [2]string
	}{
		{"search with the default limit", "GET", "/api/users/search?q=A", "", 200,
			`{"items":[{"id":1,"name":"Ada Lovelace","email":"ada@example.com"},{"id":2,"name":"Grace Hopper","email":"grace@example.com"},{"id":3,"name":"Alan Turing","email":"alan@example.com"}],"total":3}`, [2]string{}},
		{"search with a limit", "GET", "/api/users/search?q=a&limit=1", "", 200,
			`{"items":[{"id":1,"name":"Ada Lovelace","email":"ada@example.com"}],"total":3}`, [2]string{}},
		{"search without q: its hook answers Problem Details", "GET", "/api/users/search", "", 400,
			`{"type":"https://example.com/problems/invalid-query","title":"Invalid query","status":400,"detail":"The search query is not valid; see errors.",
			  "errors":[{"part":"query","pointer":"/q","message":"is required"}]}`, [2]string{"Content-Type", "application/problem+json"}},
		{"search with an empty q and a limit too large", "GET", "/api/users/search?q=&limit=101", "", 400,
			`{"type":"https://example.com/problems/invalid-query","title":"Invalid query","status":400,"detail":"The search query is not valid; see errors.",
			  "errors":[{"part":"query","pointer":"/limit","message":"must be less than or equal to 100"},{"part":"query","pointer":"/q","message":"must contain at least 1 character"}]}`, [2]string{}},
		{"create a user", "POST", "/api/users", `{"name":"Barbara Liskov","email":"barbara@example.com"}`, 201,
			`{"id":4,"name":"Barbara Liskov","email":"barbara@example.com"}`, [2]string{"Location", "/api/users/4"}},
		{"create with a bad email and an unknown field", "POST", "/api/users", `{"name":"B","email":"not-an-email","admin":true}`, 400,
			`{"statusCode":400,"statusMessage":"Validation Error","data":{"body":[{"path":["admin"],"message":"is not an allowed property"},{"path":["email"],"message":"must be a valid email address"}]}}`, [2]string{}},
		{"create with a name too long", "POST", "/api/users", `{"name":"` + strings.Repeat("n", 101) + `","email":"n@example.com"}`, 400,
			`{"statusCode":400,"statusMessage":"Validation Error","data":{"body":[{"path":["name"],"message":"must contain at most 100 characters"}]}}`, [2]string{}},
		{"change a name", "PATCH", "/api/users/3", `{"name":"Alan M. Turing"}`, 200,
			`{"id":3,"name":"Alan M. Turing","email":"alan@example.com"}`, [2]string{}},
		{"change nothing", "PATCH", "/api/users/3", `{}`, 400,
			`{"statusCode":400,"statusMessage":"Validation Error","data":{"body":[{"path":[],"message":"must contain at least 1 property"}]}}`, [2]string{}},
		{"change a missing user", "PATCH", "/api/users/42", `{"email":"x@example.com"}`, 404,
			`{"message":"user 42 not found"}`, [2]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var headers []string
			if tt.body != "" {
				headers = []string{"Content-Type", ct}
			}
			res := do(t, srv, tt.method, tt.path, tt.body, headers...)
			if res.status != tt.wantStatus || !jsonEqual(t, res.body, tt.wantBody) {
				t.Errorf("got %d %s\nwant %d %s", res.status, res.body, tt.wantStatus, tt.wantBody)
			}
			if k := tt.wantHeader[0]; k != "" && res.header.Get(k) != tt.wantHeader[1] {
				t.Errorf("%s = %q, want %q", k, res.header.Get(k), tt.wantHeader[1])
			}
		})
	}
	if strings.Contains(logs.String(), "answer breaks the contract") {
		t.Errorf("a guest answer broke its contract:\n%s", logs)
	}
}

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// TestUsersDocumentGolden pins the OpenAPI document of examples/users:
// contracts, routes configuration and runtime declaration together. Review
// the diff of testdata/users.openapi.json after `go test ./host -update`.
func TestUsersDocumentGolden(t *testing.T) {
	h, _ := (&app{t: t, dir: builtExample(t, "users")}).host(host.Options{Mode: host.Production})
	got := h.Document()
	golden := filepath.Join("testdata", "users.openapi.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./host -run UsersDocumentGolden -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the document of examples/users differs from %s; if the change is intended, run go test ./host -update and review the diff", golden)
	}
	h2, _ := (&app{t: t, dir: builtExample(t, "users")}).host(host.Options{Mode: host.Production})
	if !bytes.Equal(h2.Document(), got) {
		t.Error("two loads of the same app gave different documents")
	}
}

// TestUsersExampleMedia drives the media endpoints of examples/users: the
// negotiated avatar, the streamed CSV export and the event stream, whose
// first event must reach a real client before the handler has finished.
func TestUsersExampleMedia(t *testing.T) {
	h, logs := (&app{t: t, dir: builtExample(t, "users")}).host(host.Options{Mode: host.Development})
	srv := httptest.NewServer(h)
	defer srv.Close()

	t.Run("avatar negotiated", func(t *testing.T) {
		png := do(t, srv, "GET", "/api/users/1/avatar", "")
		if png.status != 200 || png.header.Get("Content-Type") != "image/png" || !strings.HasPrefix(png.body, "\x89PNG\r\n") {
			t.Errorf("default avatar: %d %s %q", png.status, png.header.Get("Content-Type"), png.body[:min(8, len(png.body))])
		}
		svg := do(t, srv, "GET", "/api/users/2/avatar", "", "Accept", "image/svg+xml;q=0.9, image/png;q=0.5")
		if svg.status != 200 || svg.header.Get("Content-Type") != "image/svg+xml" || !strings.Contains(svg.body, ">GH</text>") {
			t.Errorf("SVG avatar: %d %s %s", svg.status, svg.header.Get("Content-Type"), svg.body)
		}
		problem := do(t, srv, "GET", "/api/users/9/avatar", "")
		if problem.status != 404 || problem.header.Get("Content-Type") != "application/problem+json" || !strings.Contains(problem.body, `"detail":"user 9 not found"`) {
			t.Errorf("missing user: %d %s %s", problem.status, problem.header.Get("Content-Type"), problem.body)
		}
	})
	t.Run("CSV export", func(t *testing.T) {
		res := do(t, srv, "GET", "/api/users/export", "")
		want := "id,name,email\n1,Ada Lovelace,ada@example.com\n2,Grace Hopper,grace@example.com\n3,Alan Turing,alan@example.com\n"
		if res.status != 200 || res.body != want || res.header.Get("Content-Type") != "text/csv; charset=utf-8" {
			t.Errorf("export: %d %s %q", res.status, res.header.Get("Content-Type"), res.body)
		}
	})
	t.Run("event stream arrives as it is sent", func(t *testing.T) {
		start := time.Now()
		res, err := http.Get(srv.URL + "/api/clock?count=3")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
			t.Errorf("Content-Type %q", ct)
		}
		rd := bufio.NewReader(res.Body)
		var firstAt time.Duration
		var events []string
		for {
			line, err := rd.ReadString('\n')
			if strings.HasPrefix(line, "data: ") {
				if firstAt == 0 {
					firstAt = time.Since(start)
				}
				events = append(events, strings.TrimSpace(strings.TrimPrefix(line, "data: ")))
			}
			if err != nil {
				break
			}
		}
		endAt := time.Since(start)
		if len(events) != 3 || !strings.Contains(events[0], `"tick":1`) || !strings.Contains(events[2], `"tick":3`) {
			t.Fatalf("events = %q", events)
		}
		if endAt-firstAt < 150*time.Millisecond {
			t.Errorf("first event at %s, stream end at %s: the first event waited for the handler", firstAt, endAt)
		}
	})
	if strings.Contains(logs.String(), "answer breaks the contract") {
		t.Errorf("a guest answer broke its contract:\n%s", logs)
	}
}

// TestUsersExampleUpload drives POST /api/users/:id/photo, the example's
// multipart upload: a caption field and a PNG or JPEG file of at most
// 1 MiB.
func TestUsersExampleUpload(t *testing.T) {
	h, logs := (&app{t: t, dir: builtExample(t, "users")}).host(host.Options{Mode: host.Development})
	srv := httptest.NewServer(h)
	defer srv.Close()
	const mp = "multipart/form-data; boundary=b0undary"
	png := "\x89PNG\r\n\x1a\n" + strings.Repeat("pixels", 100)
	sum := sha256.Sum256([]byte(png))
	tests := []struct {
		name       string
		path       string
		parts      []part
		wantStatus int
		wantBody   string
	}{
		{"a photo with a caption", "/api/users/2/photo",
			[]part{{name: "caption", content: "At the beach"}, {name: "photo", filename: "me.png", contentType: "image/png", content: png}},
			201, `{"userId":2,"caption":"At the beach","filename":"me.png","contentType":"image/png","bytes":608,"sha256":"` + hex.EncodeToString(sum[:]) + `"}`},
		{"a file of another type", "/api/users/2/photo",
			[]part{{name: "photo", filename: "me.gif", contentType: "image/gif", content: "GIF89a"}},
			400, `{"statusCode":400,"statusMessage":"Validation Error","data":{"body":[{"path":["photo"],"message":"part 1 of field \"photo\" is image/gif; want image/png or image/jpeg"}]}}`},
		{"no photo", "/api/users/2/photo",
			[]part{{name: "caption", content: "nothing"}},
			400, `{"statusCode":400,"statusMessage":"Validation Error","data":{"body":[{"path":["photo"],"message":"is required"}]}}`},
		{"a caption too long", "/api/users/2/photo",
			[]part{{name: "caption", content: strings.Repeat("c", 201)}, {name: "photo", filename: "me.png", contentType: "image/png", content: png}},
			400, `{"statusCode":400,"statusMessage":"Validation Error","data":{"body":[{"path":["caption"],"message":"must contain at most 200 characters"}]}}`},
		{"bytes that are not the declared type", "/api/users/2/photo",
			[]part{{name: "photo", filename: "fake.png", contentType: "image/png", content: "not a png"}},
			422, `{"type":"https://example.com/problems/not-an-image","title":"Not an image","status":422,"detail":"fake.png does not start like image/png"}`},
		{"a missing user", "/api/users/9/photo",
			[]part{{name: "photo", filename: "me.png", contentType: "image/png", content: png}},
			404, `{"type":"https://example.com/problems/no-such-user","title":"No such user","status":404,"detail":"user 9 not found"}`},
		{"a photo over 1 MiB", "/api/users/2/photo",
			[]part{{name: "photo", filename: "big.png", contentType: "image/png", content: png + strings.Repeat("x", 1<<20)}},
			413, `{"statusCode":413,"statusMessage":"Request Entity Too Large","data":{"limit":1048576}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := do(t, srv, "POST", tt.path, multipartBody(t, tt.parts...), "Content-Type", mp)
			if res.status != tt.wantStatus || !jsonEqual(t, res.body, tt.wantBody) {
				t.Errorf("got %d %s\nwant %d %s", res.status, res.body, tt.wantStatus, tt.wantBody)
			}
		})
	}
	if strings.Contains(logs.String(), "answer breaks the contract") {
		t.Errorf("a guest answer broke its contract:\n%s", logs)
	}
}
