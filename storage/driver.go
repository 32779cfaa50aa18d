package storage

import (
	"context"

	"github.com/wasmendpoints/endpoints/internal/registry"
)

// A Driver opens the Store a host uses when endpoints.json's "storage"
// names the driver: url is "storage.url" (empty when not given) and
// namespace the app's name, which the store keeps apart from other apps'
// keys. It does not need to connect: a host starts while the backend is
// down and answers 503 until it returns.
type Driver func(ctx context.Context, url, namespace string) (Store, error)

var drivers = registry.New[Driver]("storage")

// Register makes a driver available by name, as database/sql does: a
// driver's package registers itself in its init function, so a program
// links only the drivers it imports:
//
//	import _ "github.com/wasmendpoints/endpoints/storage/redis"
//
// Registering a name twice, or a nil driver, panics.
func Register(name string, open Driver) { drivers.Register(name, open, open == nil) }

// Drivers returns the names of the registered drivers, sorted.
func Drivers() []string { return drivers.Names() }

// Open opens a store with the driver registered by name. The error of a
// name no program import registered says which package to import.
func Open(ctx context.Context, name, url, namespace string) (Store, error) {
	open, err := drivers.Lookup(name, "github.com/wasmendpoints/endpoints/storage")
	if err != nil {
		return nil, err
	}
	return open(ctx, url, namespace)
}
