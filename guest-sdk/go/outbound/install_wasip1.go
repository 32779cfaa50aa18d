//go:build wasip1

package outbound

import "net/http"

// In a WebAssembly module, importing the package makes net/http's default
// transport the host's: http.Get and http.DefaultClient call out through it.
func init() { http.DefaultTransport = Transport{} }
