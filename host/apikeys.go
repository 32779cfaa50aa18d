package host

import (
	"context"
	"time"

	"github.com/wasmendpoints/endpoints/internal/apikeys"
)

// APIKey is an API key that the app's apiKey verifiers with "store": true
// accept (endpoints.json's security.NAME.apiKey.store), as
// [Host.PutAPIKey] stores it. The key itself is never stored, only its
// SHA-256.
//
//	h.PutAPIKey(ctx, host.APIKey{SHA256: sum, Subject: "ci", Scopes: []string{"orders:write"}})
type APIKey struct {
	// SHA256 is the hex SHA-256 of the key ("printf %s KEY | sha256sum").
	SHA256 string
	// Subject names the client: the principal's subject; required.
	Subject string
	// Scopes are what the client may do.
	Scopes []string
	// TTL, when positive, is how long the key is accepted; zero: until it
	// is deleted.
	TTL time.Duration
}

// PutAPIKey stores k in the app's store, replacing a record of the same
// key, where no guest can read or write it: the host's namespace of the
// app, not the guests' key-value data (docs/spec.md §12). Hosts sharing
// the store accept the key at once. `endpoints apikey` does the same from
// the command line for a shared (Redis) store.
//
// # Notes
//
//   - The record is read on each request that presents an unknown key, so
//     deleting it ([Host.DeleteAPIKey]) refuses the key from the next
//     request on.
//   - Keys listed in endpoints.json ("keys") are accepted as well, and come
//     first.
func (h *Host) PutAPIKey(ctx context.Context, k APIKey) error {
	return apikeys.Put(ctx, h.store, h.namespace, k.SHA256, apikeys.Record{Subject: k.Subject, Scopes: k.Scopes}, k.TTL)
}

// DeleteAPIKey removes the stored API key whose SHA-256 (hex) is sum, and
// reports whether there was one.
func (h *Host) DeleteAPIKey(ctx context.Context, sum string) (bool, error) {
	return apikeys.Delete(ctx, h.store, h.namespace, sum)
}
