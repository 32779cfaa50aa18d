// Package endpointstest helps the native tests (go test, not GOOS=wasip1)
// of code written with the Go SDK, as net/http/httptest does for net/http.
package endpointstest

import (
	"encoding/json"
	"testing"

	// The hooks below are set when package endpoints initialises.
	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
	"github.com/wasmendpoints/endpoints/guest-sdk/go/internal/hooks"
)

// Reset forgets every handler and middleware registered with package
// endpoints in this process and empties the in-memory stand-in of
// endpoints.KV, now and again when t ends: each test starts from an empty
// store.
func Reset(t testing.TB) {
	t.Helper()
	hooks.Reset()
	t.Cleanup(hooks.Reset)
}

// SetVariable gives the variable name the value that endpoints.Variable
// returns in native tests, as endpoints.json's "variables" and the host do
// in a module, until t ends.
//
//	endpointstest.SetVariable(t, "webhookUrl", srv.URL)
func SetVariable(t testing.TB, name, value string) {
	t.Helper()
	hooks.SetVariable(name, value, true)
	t.Cleanup(func() { hooks.SetVariable(name, "", false) })
}

// SetAuth makes p the client the host authenticated, which
// endpoints.Auth returns in native tests until t ends, as the host's
// security does in a module; nil is no client, as for an operation
// without security.
//
//	endpointstest.SetAuth(t, &endpoints.Principal{Scheme: "bearer", Subject: "alice", Scopes: []string{"bookmarks:write"}})
func SetAuth(t testing.TB, p *endpoints.Principal) {
	t.Helper()
	envelope, err := json.Marshal(struct {
		Auth *endpoints.Principal `json:"auth"`
	}{p})
	if err != nil {
		t.Fatalf("endpointstest.SetAuth: %v", err)
	}
	hooks.SetRequest(envelope)
	t.Cleanup(func() { hooks.SetRequest(nil) })
}
