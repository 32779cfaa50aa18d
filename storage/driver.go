package storage

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// A Driver opens the Store a host uses when endpoints.json's "storage"
// names the driver: url is "storage.url" (empty when not given) and
// namespace the app's name, which the store keeps apart from other apps'
// keys. It does not need to connect: a host starts while the backend is
// down and answers 503 until it returns.
type Driver func(ctx context.Context, url, namespace string) (Store, error)

var (
	driversMu sync.RWMutex
	drivers   = map[string]Driver{}
)

// Register makes a driver available by name, as database/sql does: a
// driver's package registers itself in its init function, so a program
// links only the drivers it imports:
//
//	import _ "github.com/wasmendpoints/endpoints/storage/redis"
//
// Registering a name twice, or a nil driver, panics.
func Register(name string, open Driver) {
	driversMu.Lock()
	defer driversMu.Unlock()
	if open == nil {
		panic("storage: Register driver " + name + " is nil")
	}
	if _, dup := drivers[name]; dup {
		panic("storage: Register called twice for driver " + name)
	}
	drivers[name] = open
}

// Drivers returns the names of the registered drivers, sorted.
func Drivers() []string {
	driversMu.RLock()
	defer driversMu.RUnlock()
	names := make([]string, 0, len(drivers))
	for name := range drivers {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Open opens a store with the driver registered by name. The error of a
// name no program import registered says which package to import.
func Open(ctx context.Context, name, url, namespace string) (Store, error) {
	driversMu.RLock()
	open := drivers[name]
	driversMu.RUnlock()
	if open == nil {
		registered := "none"
		if names := Drivers(); len(names) > 0 {
			registered = strings.Join(names, ", ")
		}
		return nil, fmt.Errorf("storage driver %q is not registered in this program (registered: %s): import _ \"github.com/wasmendpoints/endpoints/storage/%s\", or use the endpoints command, which links every driver", name, registered, name)
	}
	return open(ctx, url, namespace)
}
