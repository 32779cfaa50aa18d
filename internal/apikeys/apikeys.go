// Package apikeys keeps the API keys that an apiKey verifier with
// "store": true looks up (endpoints.json's security.NAME.apiKey.store):
// one record per key, under apikeys/<hex SHA-256 of the key> in the app's
// host namespace ([storage.HostNamespace]), holding
//
//	{"subject": "ci", "scopes": ["orders:write"]}
//
// The host namespace is out of every guest's reach: a route's kv_set
// cannot mint a key, nor kv_get read one. Operators write records with
// `endpoints apikey` (a shared store) or host.Host.PutAPIKey (an embedder);
// the host reads them with [Lookup].
package apikeys

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wasmendpoints/endpoints/storage"
)

// Prefix starts the store key of every API key record.
const Prefix = "apikeys/"

// Record is what a stored key grants: who the client is and its scopes.
type Record struct {
	// Subject names the client (the principal's subject); required.
	Subject string `json:"subject"`
	// Scopes are what the client may do.
	Scopes []string `json:"scopes,omitempty"`
}

// Sum is the hex SHA-256 of key, by which a record is stored.
func Sum(key string) string {
	s := sha256.Sum256([]byte(key))
	return hex.EncodeToString(s[:])
}

// New returns a fresh key: 32 random bytes, in hex, prefixed "ek_" so
// that it is recognisable in a secret scanner's findings.
func New() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return "ek_" + hex.EncodeToString(b[:])
}

// Lookup reads the record of the key whose SHA-256 is sum (hex) from the
// app's host namespace; ok is false when there is none.
func Lookup(ctx context.Context, s storage.KV, app, sum string) (record []byte, ok bool, err error) {
	return s.Get(ctx, storage.HostNamespace(app), Prefix+sum)
}

// Put stores rec for the key whose SHA-256 is sum (64 hex digits), in the
// app's host namespace, replacing any record of that key; it expires after
// ttl when ttl > 0.
func Put(ctx context.Context, s storage.KV, app, sum string, rec Record, ttl time.Duration) error {
	if err := checkSum(sum); err != nil {
		return err
	}
	if strings.TrimSpace(rec.Subject) == "" {
		return errors.New("an API key needs a subject: the client it identifies, such as \"ci\"")
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return s.Set(ctx, storage.HostNamespace(app), Prefix+strings.ToLower(sum), b, ttl)
}

// Delete removes the record of the key whose SHA-256 is sum and reports
// whether there was one.
func Delete(ctx context.Context, s storage.KV, app, sum string) (bool, error) {
	if err := checkSum(sum); err != nil {
		return false, err
	}
	return s.Delete(ctx, storage.HostNamespace(app), Prefix+strings.ToLower(sum))
}

// checkSum says what is wrong with a hex SHA-256, or nil.
func checkSum(sum string) error {
	if b, err := hex.DecodeString(sum); err != nil || len(b) != sha256.Size {
		return fmt.Errorf("%q is not a SHA-256 in hex: want 64 hexadecimal digits (printf %%s KEY | sha256sum)", sum)
	}
	return nil
}
