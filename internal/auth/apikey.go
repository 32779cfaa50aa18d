package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// maxAPIKeyBytes bounds the API keys the verifier hashes.
const maxAPIKeyBytes = 4 << 10

type apiKeyVerifier struct {
	scheme Scheme
	keys   []apiKeyEntry
	lookup func(ctx context.Context, sha256hex string) ([]byte, bool, error)
	logger interface {
		Warn(msg string, args ...any)
	}
}

type apiKeyEntry struct {
	sum     [sha256.Size]byte
	subject string
	scopes  []string
}

func newAPIKey(s Scheme, c *APIKeyConfig, env Env) (*apiKeyVerifier, error) {
	member := "security." + s.Name + ".apiKey"
	switch s.In {
	case "header", "query", "cookie":
	default:
		return nil, fmt.Errorf("security.%s: an apiKey scheme sends its key \"in\" a header, query or cookie; got %q", s.Name, s.In)
	}
	if s.ParamName == "" {
		return nil, fmt.Errorf("security.%s: the apiKey scheme names no parameter (\"name\")", s.Name)
	}
	v := &apiKeyVerifier{scheme: s, logger: env.Logger}
	for i, k := range c.Keys {
		b, err := hex.DecodeString(k.SHA256)
		if err != nil || len(b) != sha256.Size {
			return nil, fmt.Errorf("%s.keys[%d].sha256: want 64 hexadecimal characters (the SHA-256 of the key, e.g. from \"printf %%s KEY | sha256sum\")", member, i)
		}
		e := apiKeyEntry{subject: k.Subject, scopes: k.Scopes}
		copy(e.sum[:], b)
		if e.subject == "" {
			e.subject = fmt.Sprintf("key %d", i)
		}
		v.keys = append(v.keys, e)
	}
	if c.Store {
		if env.LookupKey == nil {
			return nil, fmt.Errorf("%s.store: the app has no store to look keys up in", member)
		}
		v.lookup = env.LookupKey
	}
	return v, nil
}

func (v *apiKeyVerifier) Close() error { return nil }

// MayBeUnavailable: keys looked up in the store ("store": true) are not
// when it is down; the configuration's always are.
func (v *apiKeyVerifier) MayBeUnavailable() bool { return v.lookup != nil }

func (v *apiKeyVerifier) Challenge(*Failure) string {
	return fmt.Sprintf("ApiKey realm=%s, in=%s, name=%s", quote(v.scheme.Name), quote(v.scheme.In), quote(v.scheme.ParamName))
}

func (v *apiKeyVerifier) key(r *http.Request) string {
	switch v.scheme.In {
	case "header":
		return r.Header.Get(v.scheme.ParamName)
	case "query":
		return r.URL.Query().Get(v.scheme.ParamName)
	}
	if c, err := r.Cookie(v.scheme.ParamName); err == nil {
		return c.Value
	}
	return ""
}

func (v *apiKeyVerifier) Verify(ctx context.Context, r *http.Request) (*Principal, error) {
	key := v.key(r)
	if key == "" {
		return nil, missing()
	}
	if len(key) > maxAPIKeyBytes {
		return nil, rejected("the API key is longer than %d bytes", maxAPIKeyBytes)
	}
	sum := sha256.Sum256([]byte(key))
	// Compare with every entry, in constant time each, so the time taken
	// says nothing about which key came close.
	found := -1
	for i := range v.keys {
		if subtle.ConstantTimeCompare(sum[:], v.keys[i].sum[:]) == 1 && found < 0 {
			found = i
		}
	}
	if found >= 0 {
		e := v.keys[found]
		return &Principal{Scheme: v.scheme.Name, Subject: e.subject, Scopes: e.scopes}, nil
	}
	if v.lookup != nil {
		b, ok, err := v.lookup(ctx, hex.EncodeToString(sum[:]))
		switch {
		case err != nil:
			return nil, fmt.Errorf("%w: looking the API key up: %v", ErrUnavailable, err)
		case ok:
			var e struct {
				Subject string   `json:"subject"`
				Scopes  []string `json:"scopes"`
			}
			if err := json.Unmarshal(b, &e); err != nil || strings.TrimSpace(e.Subject) == "" {
				if v.logger != nil {
					v.logger.Warn("an API key's entry in the store is not {\"subject\": ..., \"scopes\": [...]}", "scheme", v.scheme.Name)
				}
				return nil, rejected("the API key's entry is malformed")
			}
			return &Principal{Scheme: v.scheme.Name, Subject: e.Subject, Scopes: e.Scopes}, nil
		}
	}
	return nil, rejected("the API key is not known")
}
