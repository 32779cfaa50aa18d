// Package hooks connects package endpoints to endpointstest without
// exporting its internals: endpoints sets the hooks when it initialises.
package hooks

// Reset forgets every registration of package endpoints and empties its
// native key-value stand-in.
var Reset func()
