// Package hooks connects package endpoints to endpointstest without
// exporting its internals: endpoints sets the hooks when it initialises.
package hooks

// Reset forgets every registration of package endpoints and empties its
// native key-value stand-in.
var Reset func()

// SetVariable declares the variable name with value in the native
// stand-in of variable_get, or with declared false removes it.
var SetVariable func(name, value string, declared bool)

// SetRequest makes envelope, a request envelope (abi/README.md §4), the
// request being served, which Auth and the other accessors of the request
// read; nil is none.
var SetRequest func(envelope []byte)
