package storage_test

import (
	"context"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/storage"
)

func TestDrivers(t *testing.T) {
	storage.Register("test-memory", func(ctx context.Context, url, namespace string) (storage.Store, error) {
		return storage.NewMemory(storage.MemoryOptions{}), nil
	})
	s, err := storage.Open(context.Background(), "test-memory", "", "app")
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := storage.Open(context.Background(), "nosuch", "", "app"); err == nil || !strings.Contains(err.Error(), `import _ "github.com/wasmendpoints/endpoints/storage/nosuch"`) {
		t.Errorf("Open of an unregistered driver = %v, want the import to add", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("registering a name twice did not panic")
		}
	}()
	storage.Register("test-memory", func(context.Context, string, string) (storage.Store, error) { return nil, nil })
}
