// Package registry keeps drivers by name, registered by their packages'
// init functions as database/sql's are: the one mechanism behind
// storage.Register and database.Register.
package registry

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Registry holds the drivers of one kind ("storage", "database"), each a
// function of type F. The zero value is not usable; make one with [New].
type Registry[F any] struct {
	kind string
	mu   sync.RWMutex
	m    map[string]F
}

// New returns an empty registry whose panics and errors name kind.
func New[F any](kind string) *Registry[F] {
	return &Registry[F]{kind: kind, m: map[string]F{}}
}

// Register adds open under name. Registering a name twice, or a nil open
// (isNil reports it: a generic function cannot compare F with nil),
// panics, as database/sql's Register does.
func (r *Registry[F]) Register(name string, open F, isNil bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if isNil {
		panic(r.kind + ": Register driver " + name + " is nil")
	}
	if _, dup := r.m[name]; dup {
		panic(r.kind + ": Register called twice for driver " + name)
	}
	r.m[name] = open
}

// Names returns the registered names, sorted.
func (r *Registry[F]) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.m))
	for name := range r.m {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Lookup returns the driver registered as name, or an error saying which
// are registered and which package of pkgRoot registers name.
func (r *Registry[F]) Lookup(name, pkgRoot string) (F, error) {
	r.mu.RLock()
	open, ok := r.m[name]
	r.mu.RUnlock()
	if !ok {
		registered := "none"
		if names := r.Names(); len(names) > 0 {
			registered = strings.Join(names, ", ")
		}
		return open, fmt.Errorf("%s driver %q is not registered in this program (registered: %s): import _ \"%s/%s\", or use the endpoints command, which links every driver", r.kind, name, registered, pkgRoot, name)
	}
	return open, nil
}
