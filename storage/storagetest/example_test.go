package storagetest_test

import (
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/storage"
	"github.com/wasmendpoints/endpoints/storage/storagetest"
)

// Running the suite against a store: here the memory store, in the test file
// of the store's package (func TestMemory(t *testing.T) { ... }). A test
// needs a *testing.T, so this example is compiled, not run; storage's own
// tests run exactly this.
func ExampleRun() {
	testMemory := func(t *testing.T) {
		storagetest.Run(t, func(t *testing.T) storage.Store {
			return storage.NewMemory(storage.MemoryOptions{})
		})
	}
	_ = testMemory
}

// Releasing many goroutines at once on one key, as the suite's concurrency
// cases do: of 100 concurrent claims, exactly one acquires the key.
func ExampleHammer() {
	testClaim := func(t *testing.T) {
		store := storage.NewMemory(storage.MemoryOptions{})
		defer store.Close()
		claims := storagetest.Hammer(t, 100, func(int) (storage.Claim, error) {
			return store.Claim(t.Context(), "key", "fingerprint", time.Minute, storage.Client{})
		})
		acquired := 0
		for _, c := range claims {
			if c.Acquired {
				acquired++
			}
		}
		if acquired != 1 {
			t.Errorf("got %d claims acquired, want 1", acquired)
		}
	}
	_ = testClaim
}
