package host_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/auth"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
	"github.com/wasmendpoints/endpoints/storage"
)

// builtApps are the example apps built by builtExample, by name: each
// *builtApp has its own lock, so that parallel tests build different
// examples at once and wait only for the one they need.
var builtApps sync.Map

type builtApp struct {
	mu  sync.Mutex
	dir string // "" until built
}

// builtExample builds an example app from its sources once per test run,
// into a temporary copy, and returns that copy's directory. Tests must not
// change it: others share it.
func builtExample(t testing.TB, name string) string {
	t.Helper()
	v, _ := builtApps.LoadOrStore(name, &builtApp{})
	built := v.(*builtApp)
	built.mu.Lock()
	defer built.mu.Unlock()
	if built.dir != "" {
		return built.dir
	}
	// "users+bundle" is examples/users with its Go routes in one bundle,
	// as endpoints build makes it by default.
	example, bundle := strings.CutSuffix(name, "+bundle")
	src := filepath.Join("..", "examples", example)
	sources, err := guestbuild.Find(src)
	if err != nil {
		t.Fatal(err)
	}
	if bundle {
		sources = guestbuild.BundleGo(sources)
	}
	for _, s := range sources {
		switch s.Lang {
		case guestbuild.LangC:
			requireTool(t, "clang")
		case guestbuild.LangWAT:
			requireTool(t, "wat2wasm")
		case guestbuild.LangAS:
			if testing.Short() {
				t.Skip("-short: compiling AssemblyScript routes takes seconds each")
			}
			requireTool(t, "npm")
		case guestbuild.LangRust:
			if testing.Short() {
				t.Skip("-short: compiling Rust routes takes seconds each")
			}
			requireTool(t, "rustc")
		}
	}
	dir, err := os.MkdirTemp("", "endpoints-example-"+strings.ReplaceAll(name, "+", "-")+"-")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{config.File, host.RoutesConfigFile, "auth/jwks.json", "auth/dev-signing-key.jwk"} {
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
	// The migrations (server/migrations) are the app's, as its
	// configuration is: copied too.
	if err := os.CopyFS(filepath.Join(dir, "server", "migrations"), os.DirFS(filepath.Join(src, "server", "migrations"))); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	if _, err := guestbuild.Build(context.Background(), src, dir, sources, nil); err != nil {
		t.Fatalf("building examples/%s: %v", name, err)
	}
	built.dir = dir
	return dir
}

// usersToken mints a bearer token for examples/users, as `endpoints token`
// does: signed with the example's development key, for sub, with scopes,
// valid from now for ttl (expired when ttl is negative).
func usersToken(t testing.TB, sub string, ttl time.Duration, scopes ...string) string {
	t.Helper()
	key, err := os.ReadFile(filepath.Join("..", "examples", "users", "auth", "dev-signing-key.jwk"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	claims := map[string]any{"iss": "https://users.example", "aud": "users-api", "sub": sub,
		"iat": now.Add(min(ttl, 0) - time.Minute).Unix(), "exp": now.Add(ttl).Unix()}
	if len(scopes) > 0 {
		claims["scope"] = strings.Join(scopes, " ")
	}
	token, err := auth.MintDevToken(key, claims)
	if err != nil {
		t.Fatal(err)
	}
	return token
}

// writer is the Authorization header of a client that may change users
// and place orders in examples/users.
func writer(t testing.TB) []string {
	return []string{"Authorization", "Bearer " + usersToken(t, "alice", time.Hour, "users:write", "orders:write")}
}

func TestMain(m *testing.M) {
	code := m.Run()
	builtApps.Range(func(_, v any) bool {
		if dir := v.(*builtApp).dir; dir != "" {
			os.RemoveAll(dir)
		}
		return true
	})
	os.Exit(code)
}

// TestUsersExample drives the JSON routes of examples/users over HTTP in
// development, where each answer is also checked against its contract.
// The cases run in order on one host, whose store starts empty: the seed
// users 1-3 are written by the first request, and what a case creates or
// changes the next ones see.
func TestUsersExample(t *testing.T) {
	t.Parallel()
	h, logs := (&app{t: t, dir: builtExample(t, "users")}).host(host.Options{Mode: host.Development})
	srv := httptest.NewServer(h)
	defer srv.Close()
	const ct = "application/json"
	tests := []struct {
		name, method, path, body string
		header                   []string // sent besides Content-Type
		wantStatus               int
		wantBody                 string
		wantHeader               []string // name, value pairs
	}{
		{name: "search with the default limit", method: "GET", path: "/api/users/search?q=A", wantStatus: 200,
			wantBody: `{"items":[{"id":1,"name":"Ada Lovelace","email":"ada@example.com"},{"id":2,"name":"Grace Hopper","email":"grace@example.com"},{"id":3,"name":"Alan Turing","email":"alan@example.com"}],"total":3}`},
		{name: "search with a limit", method: "GET", path: "/api/users/search?q=a&limit=1", wantStatus: 200,
			wantBody: `{"items":[{"id":1,"name":"Ada Lovelace","email":"ada@example.com"}],"total":3}`},
		{name: "search without q: its hook answers Problem Details", method: "GET", path: "/api/users/search", wantStatus: 400,
			wantBody: `{"type":"https://example.com/problems/invalid-query","title":"Invalid query","status":400,"detail":"The search query is not valid; see errors.",
			  "errors":[{"part":"query","pointer":"/q","message":"is required"}]}`, wantHeader: []string{"Content-Type", "application/problem+json"}},
		{name: "search with an empty q and a limit too large", method: "GET", path: "/api/users/search?q=&limit=101", wantStatus: 400,
			wantBody: `{"type":"https://example.com/problems/invalid-query","title":"Invalid query","status":400,"detail":"The search query is not valid; see errors.",
			  "errors":[{"part":"query","pointer":"/limit","message":"must be less than or equal to 100"},{"part":"query","pointer":"/q","message":"must contain at least 1 character"}]}`},
		{name: "create a user: the next id after the seed", method: "POST", path: "/api/users", body: `{"name":"Barbara Liskov","email":"barbara@example.com"}`, wantStatus: 201,
			wantBody: `{"id":4,"name":"Barbara Liskov","email":"barbara@example.com"}`, wantHeader: []string{"Location", "/api/users/4"}},
		{name: "the created user is stored", method: "GET", path: "/api/users/4", wantStatus: 200,
			wantBody: `{"id":4,"name":"Barbara Liskov","email":"barbara@example.com"}`},
		{name: "search finds the created user", method: "GET", path: "/api/users/search?q=LISKOV", wantStatus: 200,
			wantBody: `{"items":[{"id":4,"name":"Barbara Liskov","email":"barbara@example.com"}],"total":1}`},
		{name: "create with an Idempotency-Key", method: "POST", path: "/api/users", body: `{"name":"Edsger Dijkstra","email":"edsger@example.com"}`,
			header: []string{"Idempotency-Key", "user-5"}, wantStatus: 201,
			wantBody: `{"id":5,"name":"Edsger Dijkstra","email":"edsger@example.com"}`, wantHeader: []string{"Location", "/api/users/5"}},
		{name: "a retry with the key replays the first user", method: "POST", path: "/api/users", body: `{"name":"Edsger Dijkstra","email":"edsger@example.com"}`,
			header: []string{"Idempotency-Key", "user-5"}, wantStatus: 201,
			wantBody: `{"id":5,"name":"Edsger Dijkstra","email":"edsger@example.com"}`, wantHeader: []string{"Location", "/api/users/5", "Idempotent-Replayed", "true"}},
		{name: "the same user without a key is created again", method: "POST", path: "/api/users", body: `{"name":"Edsger Dijkstra","email":"edsger@example.com"}`, wantStatus: 201,
			wantBody: `{"id":6,"name":"Edsger Dijkstra","email":"edsger@example.com"}`, wantHeader: []string{"Location", "/api/users/6", "Idempotent-Replayed", ""}},
		{name: "create with a bad email and an unknown field", method: "POST", path: "/api/users", body: `{"name":"B","email":"not-an-email","admin":true}`, wantStatus: 400,
			wantBody: `{"statusCode":400,"statusMessage":"Validation Error","data":{"body":[{"path":["admin"],"message":"is not an allowed property"},{"path":["email"],"message":"must be a valid email address"}]}}`},
		{name: "create with a name too long", method: "POST", path: "/api/users", body: `{"name":"` + strings.Repeat("n", 101) + `","email":"n@example.com"}`, wantStatus: 400,
			wantBody: `{"statusCode":400,"statusMessage":"Validation Error","data":{"body":[{"path":["name"],"message":"must contain at most 100 characters"}]}}`},
		{name: "change a name", method: "PATCH", path: "/api/users/3", body: `{"name":"Alan M. Turing"}`, wantStatus: 200,
			wantBody: `{"id":3,"name":"Alan M. Turing","email":"alan@example.com"}`},
		{name: "the change is stored", method: "GET", path: "/api/users/3", wantStatus: 200,
			wantBody: `{"id":3,"name":"Alan M. Turing","email":"alan@example.com"}`},
		{name: "change a created user's email", method: "PATCH", path: "/api/users/4", body: `{"email":"liskov@example.com"}`, wantStatus: 200,
			wantBody: `{"id":4,"name":"Barbara Liskov","email":"liskov@example.com"}`},
		{name: "search sees the changes", method: "GET", path: "/api/users/search?q=turing", wantStatus: 200,
			wantBody: `{"items":[{"id":3,"name":"Alan M. Turing","email":"alan@example.com"}],"total":1}`},
		{name: "change nothing", method: "PATCH", path: "/api/users/3", body: `{}`, wantStatus: 400,
			wantBody: `{"statusCode":400,"statusMessage":"Validation Error","data":{"body":[{"path":[],"message":"must contain at least 1 property"}]}}`},
		{name: "change a missing user", method: "PATCH", path: "/api/users/42", body: `{"email":"x@example.com"}`, wantStatus: 404,
			wantBody: `{"message":"user 42 not found"}`},
		{name: "a missing user", method: "GET", path: "/api/users/42", wantStatus: 404,
			wantBody: `{"message":"user 42 not found"}`},
		// The schema of a Go int states its range, so the host refuses what
		// the guest's int cannot hold, before the guest runs.
		{name: "an id past int64", method: "GET", path: "/api/users/9223372036854775808", wantStatus: 400,
			wantBody: `{"statusCode":400,"statusMessage":"Validation Error","data":{"params":[{"path":["id"],"message":"must be less than or equal to 9223372036854775807"}]}}`},
		{name: "an id with a huge exponent", method: "GET", path: "/api/users/1e400", wantStatus: 400,
			wantBody: `{"statusCode":400,"statusMessage":"Validation Error","data":{"params":[{"path":["id"],"message":"number out of range: 1e400 exceeds the float64 range; send a number within ±1.7976931348623157e308"}]}}`},
		{name: "an integer written with a fraction reaches the guest as an int", method: "GET", path: "/api/users/search?q=a&limit=2.0", wantStatus: 200,
			wantBody: `{"items":[{"id":1,"name":"Ada Lovelace","email":"ada@example.com"},{"id":2,"name":"Grace Hopper","email":"grace@example.com"}],"total":6}`},
	}
	w := writer(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			headers := tt.header
			if tt.body != "" {
				headers = append([]string{"Content-Type", ct}, headers...)
			}
			if tt.method != "GET" {
				headers = append(headers, w...)
			}
			res := do(t, srv, tt.method, tt.path, tt.body, headers...)
			if res.status != tt.wantStatus || !jsonEqual(t, res.body, tt.wantBody) {
				t.Errorf("got %d %s\nwant %d %s", res.status, res.body, tt.wantStatus, tt.wantBody)
			}
			for i := 0; i+1 < len(tt.wantHeader); i += 2 {
				if k, want := tt.wantHeader[i], tt.wantHeader[i+1]; res.header.Get(k) != want {
					t.Errorf("%s = %q, want %q", k, res.header.Get(k), want)
				}
			}
		})
	}
	if strings.Contains(logs.String(), "answer breaks the contract") {
		t.Errorf("a guest answer broke its contract:\n%s", logs)
	}
}

// TestUsersExampleAuth checks the bearer security the users app declares
// for its writes, with tokens signed by its development key.
func TestUsersExampleAuth(t *testing.T) {
	t.Parallel()
	srv, logs := (&app{t: t, dir: builtExample(t, "users")}).serve(host.Options{Mode: host.Development})
	const user = `{"name":"Barbara Liskov","email":"barbara@example.com"}`
	tests := []struct {
		name          string
		authorization string
		wantStatus    int
		wantBody      string
		wantChallenge string
	}{
		{"no token", "", 401,
			`{"statusCode":401,"statusMessage":"Unauthorized","data":{"schemes":["bearer"]}}`, `Bearer realm=`},
		{"a token that is not a JWT", "Bearer not-a-token", 401, "", `error="invalid_token"`},
		{"an expired token", "Bearer " + usersToken(t, "alice", -time.Hour, "users:write"), 401, "", `error="invalid_token"`},
		{"a token without the scope", "Bearer " + usersToken(t, "bob", time.Hour, "orders:write"), 403,
			`{"statusCode":403,"statusMessage":"Forbidden","data":{"scheme":"bearer","missingScopes":["users:write"]}}`, `error="insufficient_scope"`},
		{"a good token", "Bearer " + usersToken(t, "alice", time.Hour, "users:write"), 201, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			headers := []string{"Content-Type", "application/json"}
			if tt.authorization != "" {
				headers = append(headers, "Authorization", tt.authorization)
			}
			res := do(t, srv, "POST", "/api/users", user, headers...)
			if res.status != tt.wantStatus || tt.wantBody != "" && !jsonEqual(t, res.body, tt.wantBody) {
				t.Errorf("got %d %s\nwant %d %s", res.status, res.body, tt.wantStatus, tt.wantBody)
			}
			if got := res.header.Get("WWW-Authenticate"); !strings.Contains(got, tt.wantChallenge) || tt.wantChallenge == "" && got != "" {
				t.Errorf("WWW-Authenticate = %q, want it to contain %q", got, tt.wantChallenge)
			}
		})
	}
	t.Run("the audit middleware logged the write with its actor", func(t *testing.T) {
		if !strings.Contains(logs.String(), "actor=alice") || !strings.Contains(logs.String(), "status=201") {
			t.Errorf("no audit line for alice's write:\n%s", logs)
		}
	})
	t.Run("reads need no token", func(t *testing.T) {
		if res := do(t, srv, "GET", "/api/users/1", ""); res.status != 200 {
			t.Errorf("got %d %s, want 200", res.status, res.body)
		}
	})
}

// TestUsersExampleOrders drives POST /api/orders, whose contract requires
// an Idempotency-Key: a retry replays the first order instead of placing
// another, which the id of the next order proves.
func TestUsersExampleOrders(t *testing.T) {
	t.Parallel()
	h, logs := (&app{t: t, dir: builtExample(t, "users")}).host(host.Options{Mode: host.Development})
	srv := httptest.NewServer(h)
	defer srv.Close()
	const (
		order      = `{"userId":1,"items":[{"sku":"BOOK-42","quantity":2},{"sku":"PEN-7","quantity":10}]}`
		wantItems  = `[{"sku":"BOOK-42","quantity":2},{"sku":"PEN-7","quantity":10}]`
		otherOrder = `{"userId":2,"items":[{"sku":"MUG-1","quantity":1}]}`
	)
	w := writer(t)
	post := func(t *testing.T, body string, key ...string) response {
		t.Helper()
		headers := append([]string{"Content-Type", "application/json"}, w...)
		if len(key) > 0 {
			headers = append(headers, "Idempotency-Key", key[0])
		}
		return do(t, srv, "POST", "/api/orders", body, headers...)
	}
	// checkOrder checks a 201 answer: the order with id, for userID, with
	// items, taken just now, and its Location.
	checkOrder := func(t *testing.T, res response, id, userID int, items string) {
		t.Helper()
		var got struct {
			ID        int             `json:"id"`
			UserID    int             `json:"userId"`
			Items     json.RawMessage `json:"items"`
			CreatedAt time.Time       `json:"createdAt"`
		}
		if res.status != 201 {
			t.Fatalf("got %d %s, want 201", res.status, res.body)
		}
		if err := json.Unmarshal([]byte(res.body), &got); err != nil {
			t.Fatalf("the order %s does not decode: %v", res.body, err)
		}
		if got.ID != id || got.UserID != userID || !jsonEqual(t, string(got.Items), items) {
			t.Errorf("got order %s, want id %d, userId %d, items %s", res.body, id, userID, items)
		}
		if age := time.Since(got.CreatedAt); age < 0 || age > time.Minute {
			t.Errorf("createdAt = %s, want about now", got.CreatedAt)
		}
		if loc, want := res.header.Get("Location"), fmt.Sprintf("/api/orders/%d", id); loc != want {
			t.Errorf("Location = %q, want %q", loc, want)
		}
	}
	// checkProblem checks a Problem Details answer of the host (by code)
	// or of the handler (by type).
	checkProblem := func(t *testing.T, res response, status int, member, want string) {
		t.Helper()
		var p map[string]any
		if err := json.Unmarshal([]byte(res.body), &p); err != nil {
			t.Fatalf("the problem %s does not decode: %v", res.body, err)
		}
		if res.status != status || p[member] != want || p["status"] != float64(status) {
			t.Errorf("got %d %s, want %d with %s %q", res.status, res.body, status, member, want)
		}
		if ct := res.header.Get("Content-Type"); ct != "application/problem+json" {
			t.Errorf("Content-Type = %q, want application/problem+json", ct)
		}
	}

	var first response
	t.Run("the first request places the order", func(t *testing.T) {
		first = post(t, order, "order-a")
		checkOrder(t, first, 1, 1, wantItems)
		if v := first.header.Get("Idempotent-Replayed"); v != "" {
			t.Errorf("Idempotent-Replayed = %q on the first answer, want none", v)
		}
	})
	t.Run("a retry replays it", func(t *testing.T) {
		res := post(t, order, "order-a")
		if res.status != first.status || res.body != first.body {
			t.Errorf("got %d %s\nwant the first answer %d %s", res.status, res.body, first.status, first.body)
		}
		if v := res.header.Get("Idempotent-Replayed"); v != "true" {
			t.Errorf("Idempotent-Replayed = %q, want \"true\"", v)
		}
		if loc := res.header.Get("Location"); loc != "/api/orders/1" {
			t.Errorf("Location = %q, want the first answer's /api/orders/1", loc)
		}
	})
	t.Run("the key with another body", func(t *testing.T) {
		checkProblem(t, post(t, otherOrder, "order-a"), 422, "code", "IDEMPOTENCY_KEY_REUSED")
	})
	t.Run("no key", func(t *testing.T) {
		checkProblem(t, post(t, order), 400, "code", "IDEMPOTENCY_KEY_REQUIRED")
	})
	t.Run("a malformed key", func(t *testing.T) {
		checkProblem(t, post(t, order, "a,b"), 400, "code", "IDEMPOTENCY_KEY_INVALID")
	})
	t.Run("an unknown user: the handler's problem", func(t *testing.T) {
		res := post(t, `{"userId":99,"items":[{"sku":"BOOK-42","quantity":1}]}`, "order-b")
		checkProblem(t, res, 422, "type", "https://example.com/problems/no-such-user")
		if !strings.Contains(res.body, `"detail":"user 99 not found"`) {
			t.Errorf("detail of %s, want it to name user 99", res.body)
		}
	})
	t.Run("an invalid body is refused before the key is used", func(t *testing.T) {
		res := post(t, `{"userId":1,"items":[{"sku":"book","quantity":0}]}`, "order-c")
		want := `{"statusCode":400,"statusMessage":"Validation Error","data":{"body":[` +
			`{"path":["items",0,"quantity"],"message":"must be greater than or equal to 1"},` +
			`{"path":["items",0,"sku"],"message":"must match the pattern \"^[A-Z0-9-]{3,32}$\""}]}}`
		if res.status != 400 || !jsonEqual(t, res.body, want) {
			t.Errorf("got %d %s\nwant 400 %s", res.status, res.body, want)
		}
	})
	t.Run("the next order gets the next id: the retry placed none", func(t *testing.T) {
		checkOrder(t, post(t, otherOrder, "order-c"), 2, 2, `[{"sku":"MUG-1","quantity":1}]`)
	})
	if strings.Contains(logs.String(), "answer breaks the contract") {
		t.Errorf("a guest answer broke its contract:\n%s", logs)
	}
}

// TestUsersExampleSharedStore starts two hosts of examples/users on one
// store and one database, as two processes behind a load balancer share
// one Redis and one database, and releases their first requests at once:
// every request sees the seed users the migration wrote once, and
// concurrent creates get distinct ids after the seed.
func TestUsersExampleSharedStore(t *testing.T) {
	t.Parallel()
	store := storage.NewMemory(storage.MemoryOptions{})
	defer store.Close()
	db := ownDatabase(t)
	var srvs []*httptest.Server
	var logs []*logBuffer
	for range 2 {
		h, l := (&app{t: t, dir: builtExample(t, "users")}).host(host.Options{Mode: host.Development, Store: store, ConfigOverrides: []config.Override{db}})
		srv := httptest.NewServer(h)
		defer srv.Close()
		srvs, logs = append(srvs, srv), append(logs, l)
	}
	const creates, reads = 12, 12
	var (
		wg      sync.WaitGroup
		start   = make(chan struct{})
		mu      sync.Mutex
		ids     = map[int]bool{}
		failure []string
	)
	w := writer(t)
	for i := range creates + reads {
		srv := srvs[i%2]
		wg.Go(func() {
			<-start
			if i < creates {
				res := do(t, srv, "POST", "/api/users", fmt.Sprintf(`{"name":"User %d","email":"u%d@example.com"}`, i, i), append([]string{"Content-Type", "application/json"}, w...)...)
				var u struct{ ID int }
				err := json.Unmarshal([]byte(res.body), &u)
				mu.Lock()
				defer mu.Unlock()
				if res.status != 201 || err != nil || ids[u.ID] {
					failure = append(failure, fmt.Sprintf("create %d: %d %s", i, res.status, res.body))
				}
				ids[u.ID] = true
				return
			}
			res := do(t, srv, "GET", "/api/users/2", "")
			if want := `{"id":2,"name":"Grace Hopper","email":"grace@example.com"}`; res.status != 200 || res.body != want {
				mu.Lock()
				defer mu.Unlock()
				failure = append(failure, fmt.Sprintf("read %d: %d %s, want 200 %s", i, res.status, res.body, want))
			}
		})
	}
	close(start)
	wg.Wait()
	for _, f := range failure {
		t.Error(f)
	}
	for id := 4; id < 4+creates; id++ {
		if !ids[id] {
			t.Errorf("no create got id %d; ids = %v, want 4-%d", id, ids, 3+creates)
		}
	}
	// Either host lists the seed once, then every created user.
	export := do(t, srvs[1], "GET", "/api/users/export", "")
	lines := strings.Split(strings.TrimSuffix(export.body, "\n"), "\n")
	if export.status != 200 || len(lines) != 1+3+creates || lines[1] != "1,Ada Lovelace,ada@example.com" || lines[3] != "3,Alan Turing,alan@example.com" || !strings.HasPrefix(lines[4], "4,") {
		t.Errorf("export: %d, %d lines, want the header, 3 seed users and %d created:\n%s", export.status, len(lines), creates, export.body)
	}
	for i, l := range logs {
		if strings.Contains(l.String(), "answer breaks the contract") {
			t.Errorf("a guest answer of host %d broke its contract:\n%s", i, l)
		}
	}
}

// kvDownStore is a store whose key-value half fails with
// storage.ErrUnavailable while down is set, as a Redis that stopped.
type kvDownStore struct {
	*storage.Memory
	down atomic.Bool
}

func (s *kvDownStore) err() error {
	if s.down.Load() {
		return fmt.Errorf("redis: connection refused: %w", storage.ErrUnavailable)
	}
	return nil
}

func (s *kvDownStore) Get(ctx context.Context, ns, key string) ([]byte, bool, error) {
	if err := s.err(); err != nil {
		return nil, false, err
	}
	return s.Memory.Get(ctx, ns, key)
}

func (s *kvDownStore) Set(ctx context.Context, ns, key string, value []byte, ttl time.Duration) error {
	if err := s.err(); err != nil {
		return err
	}
	return s.Memory.Set(ctx, ns, key, value, ttl)
}

func (s *kvDownStore) Delete(ctx context.Context, ns, key string) (bool, error) {
	if err := s.err(); err != nil {
		return false, err
	}
	return s.Memory.Delete(ctx, ns, key)
}

func (s *kvDownStore) Incr(ctx context.Context, ns, key string, delta int64) (int64, error) {
	if err := s.err(); err != nil {
		return 0, err
	}
	return s.Memory.Incr(ctx, ns, key, delta)
}

func (s *kvDownStore) List(ctx context.Context, ns, prefix, after string, limit int) ([]string, error) {
	if err := s.err(); err != nil {
		return nil, err
	}
	return s.Memory.List(ctx, ns, prefix, after, limit)
}

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// TestUsersDocumentGolden pins the OpenAPI document of examples/users:
// contracts, routes configuration and runtime declaration together. Review
// the diff of testdata/users.openapi.json after `go test ./host -update`.
func TestUsersDocumentGolden(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
	h, logs := (&app{t: t, dir: builtExample(t, "users")}).host(host.Options{Mode: host.Development})
	srv := httptest.NewServer(h)
	defer srv.Close()
	const mp = "multipart/form-data; boundary=b0undary"
	w := writer(t)
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
			res := do(t, srv, "POST", tt.path, multipartBody(t, tt.parts...), append([]string{"Content-Type", mp}, w...)...)
			if res.status != tt.wantStatus || !jsonEqual(t, res.body, tt.wantBody) {
				t.Errorf("got %d %s\nwant %d %s", res.status, res.body, tt.wantStatus, tt.wantBody)
			}
		})
	}
	if strings.Contains(logs.String(), "answer breaks the contract") {
		t.Errorf("a guest answer broke its contract:\n%s", logs)
	}
}
