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
