package host_test

import (
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/conformance"
)

// TestUsersConformance runs the conformance suite (internal/conformance)
// against every port of the users example: Go, C, AssemblyScript and Rust.
// It serves in development, so every answer is also checked against the
// contract the guest exported.
func TestUsersConformance(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"users", "users-c", "users-as", "users-rs"} {
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
