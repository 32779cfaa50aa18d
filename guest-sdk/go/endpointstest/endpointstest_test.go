package endpointstest_test

import (
	"testing"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
	"github.com/wasmendpoints/endpoints/guest-sdk/go/endpointstest"
)

func TestResetEmptiesTheStore(t *testing.T) {
	t.Run("a test writes", func(t *testing.T) {
		endpointstest.Reset(t)
		if err := endpoints.KV.Set("visits", []byte("1"), 0); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("the next starts empty", func(t *testing.T) {
		endpointstest.Reset(t)
		if v, ok, err := endpoints.KV.Get("visits"); err != nil || ok {
			t.Errorf("Get after Reset = %q, %v, %v; want nothing", v, ok, err)
		}
	})
}

func TestSetVariableLastsUntilTheTestEnds(t *testing.T) {
	t.Run("a test sets a variable", func(t *testing.T) {
		endpointstest.SetVariable(t, "webhookUrl", "http://127.0.0.1:8089/hooks")
		if v, err := endpoints.Variable("webhookUrl"); err != nil || v != "http://127.0.0.1:8089/hooks" {
			t.Errorf("Variable = %q, %v; want the value set", v, err)
		}
	})
	t.Run("the next has none", func(t *testing.T) {
		if v, err := endpoints.Variable("webhookUrl"); err == nil {
			t.Errorf("Variable after the test = %q; want an error: the variable is no longer declared", v)
		}
	})
}

// TestSetAuthLastsUntilTheTestEnds: a handler that reads endpoints.Auth
// can be tested natively; without SetAuth, Auth is nil there.
func TestSetAuthLastsUntilTheTestEnds(t *testing.T) {
	t.Run("a test sets the client", func(t *testing.T) {
		endpointstest.SetAuth(t, &endpoints.Principal{Scheme: "bearer", Subject: "alice", Scopes: []string{"bookmarks:write"}})
		p := endpoints.Auth()
		if p == nil || p.Subject != "alice" || p.Scheme != "bearer" || !p.HasScope("bookmarks:write") {
			t.Errorf("Auth = %+v; want alice of bearer with bookmarks:write", p)
		}
	})
	t.Run("the next has none", func(t *testing.T) {
		if p := endpoints.Auth(); p != nil {
			t.Errorf("Auth after the test = %+v; want nil", p)
		}
	})
	t.Run("nil is no client", func(t *testing.T) {
		endpointstest.SetAuth(t, nil)
		if p := endpoints.Auth(); p != nil {
			t.Errorf("Auth after SetAuth(nil) = %+v; want nil", p)
		}
	})
}
