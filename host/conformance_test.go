package host_test

import (
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/database/databasetest"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/conformance"
)

// TestUsersConformance runs the conformance suite (internal/conformance)
// against every port of the users example: Go (per-route modules, and
// bundled into one module as endpoints build makes it), C, AssemblyScript
// and Rust.
// It serves in development, so every answer is also checked against the
// contract the guest exported.
func TestUsersConformance(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"users", "users+bundle", "users-c", "users-as", "users-rs"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv, logs := (&app{t: t, dir: builtExample(t, name)}).serve(host.Options{Mode: host.Development})
			for _, r := range conformance.Run(t.Context(), srv.Client(), srv.URL, conformance.Users) {
				t.Run(r.Case.Name, func(t *testing.T) {
					if r.Err != nil {
						t.Error(r.Err)
					}
				})
			}
			if strings.Contains(logs.String(), "answer breaks the contract") {
				t.Errorf("a guest answer broke its contract:\n%s", logs)
			}
		})
	}
}

// TestTwinsKeepUsers serves the AssemblyScript and Rust twins of the users
// example beyond the conformance suite: a user created with POST is read
// back from the app's database, also by a second host started on the same
// database (a restart), the body is validated before the guest, and the
// contracts declared with each SDK's builder reach the document.
func TestTwinsKeepUsers(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"users-as", "users-rs"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			database := []config.Override{ownDatabase(t)}
			a := &app{t: t, dir: builtExample(t, name)}
			srv, logs := a.serve(host.Options{Mode: host.Development, ConfigOverrides: database})
			created := do(t, srv, "POST", "/api/users", `{"name":"Linus","email":"linus@example.com"}`, "Content-Type", "application/json")
			if created.status != 201 || !jsonEqual(t, created.body, `{"id":4,"name":"Linus","email":"linus@example.com"}`) {
				t.Fatalf("POST = %d %s", created.status, created.body)
			}
			if got := do(t, srv, "GET", "/api/users/4", ""); got.status != 200 || got.body != created.body {
				t.Errorf("GET the new user = %d %s, want 200 %s", got.status, got.body, created.body)
			}
			restarted, _ := a.serve(host.Options{Mode: host.Development, ConfigOverrides: database})
			if got := do(t, restarted, "GET", "/api/users/4", ""); got.status != 200 || got.body != created.body {
				t.Errorf("GET the new user after a restart = %d %s, want 200 %s", got.status, got.body, created.body)
			}
			bad := do(t, srv, "POST", "/api/users", `{"name":""}`, "Content-Type", "application/json")
			if bad.status != 400 || !strings.Contains(bad.body, `"must contain at least 1 character"`) || !strings.Contains(bad.body, `"is required"`) {
				t.Errorf("POST an invalid user = %d %s, want the 400 of its contract", bad.status, bad.body)
			}
			doc := do(t, srv, "GET", "/_endpoints/schema", "")
			for _, want := range []string{`"Create a user"`, `"Get a user"`, `"#/components/schemas/User"`, `"The user's id."`} {
				if !strings.Contains(doc.body, want) {
					t.Errorf("the document lacks %s", want)
				}
			}
			if strings.Contains(logs.String(), "answer breaks the contract") {
				t.Errorf("an answer broke its contract:\n%s", logs)
			}
		})
	}
}

// TestTwinsPostgres runs the C, AssemblyScript and Rust twins of the users
// example on PostgreSQL, as the Go example runs in TestUsersExamplePostgres:
// the conformance suite passes on it, a user created with POST (where the
// twin has the route) is read back, and while the server is down the
// database reads answer their declared 503.
func TestTwinsPostgres(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"users-c", "users-as", "users-rs"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a := &app{t: t, dir: builtExample(t, name)}
			url, stop, _ := databasetest.StartPostgres(t)
			srv, logs := a.serve(host.Options{Mode: host.Development, ConfigOverrides: onPostgres(url)})
			for _, r := range conformance.Run(t.Context(), srv.Client(), srv.URL, conformance.Users) {
				if r.Err != nil {
					t.Errorf("%s: %v", r.Case.Name, r.Err)
				}
			}
			if name != "users-c" {
				created := do(t, srv, "POST", "/api/users", `{"name":"Linus","email":"linus@example.com"}`, "Content-Type", "application/json")
				if created.status != 201 || !jsonEqual(t, created.body, `{"id":4,"name":"Linus","email":"linus@example.com"}`) {
					t.Errorf("POST = %d %s", created.status, created.body)
				}
				if got := do(t, srv, "GET", "/api/users/4", ""); got.status != 200 || got.body != created.body {
					t.Errorf("GET the new user = %d %s, want 200 %s", got.status, got.body, created.body)
				}
			}
			stop()
			const wantError = `{"statusCode":503,"statusMessage":"Service Unavailable"}`
			if got := do(t, srv, "GET", "/api/users/1", ""); got.status != 503 || !jsonEqual(t, got.body, wantError) {
				t.Errorf("GET with the database down = %d %s, want 503 %s", got.status, got.body, wantError)
			}
			if strings.Contains(logs.String(), "answer breaks the contract") {
				t.Errorf("an answer broke its contract:\n%s", logs)
			}
		})
	}
}
