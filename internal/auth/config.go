package auth

import (
	"fmt"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Config is one entry of endpoints.json's "security": the verifier of one
// scheme. Exactly one member is set.
//
//	{"jwt": {"jwks": "auth/jwks.json", "issuer": "https://users.example", "audience": "users-api"}}
//	{"apiKey": {"keys": [{"sha256": "9f86d0…", "subject": "ci", "scopes": ["orders:write"]}]}}
//	{"basic": {"users": {"alice": {"bcrypt": "$2a$10$…"}}}}
type Config struct {
	JWT    *JWTConfig    `json:"jwt,omitzero"`
	APIKey *APIKeyConfig `json:"apiKey,omitzero"`
	Basic  *BasicConfig  `json:"basic,omitzero"`
}

func (c Config) kinds() []string {
	var out []string
	if c.JWT != nil {
		out = append(out, "jwt")
	}
	if c.APIKey != nil {
		out = append(out, "apiKey")
	}
	if c.Basic != nil {
		out = append(out, "basic")
	}
	return out
}

// JWTConfig verifies JWT bearer tokens. Exactly one key source is set:
// JWKS, JWKSURL or Secret.
type JWTConfig struct {
	// JWKS is a JSON Web Key Set file of the app (public keys, or
	// symmetric "oct" keys), relative to the app's directory. It is read
	// when the verifier is made and again while it serves when it changed
	// (checked by a stat at most once a second as tokens are verified) or
	// a token names a kid it lacks (at most every 30 s); a new content
	// that does not read or parse keeps the last good keys and logs a
	// warning.
	JWKS string `json:"jwks,omitzero"`
	// JWKSURL is an identity provider's key set, fetched at start, cached,
	// refreshed every Refresh, and fetched again (at most every 30 s) when
	// a token names a key it lacks. It is an https URL (http only for a
	// loopback address, as in tests); redirects are followed within its
	// origin only.
	//
	// # Notes
	//
	//   - Fetches run in the background, one at a time: a token whose
	//     key is cached never waits for one; a token naming a kid the
	//     set lacks waits for the fetch it caused (or the one in flight).
	//   - After a failed fetch the next comes after 1 s, doubling up to
	//     5 min (or Refresh when shorter); the last good keys keep
	//     serving meanwhile.
	//   - Until a key set was loaded once, Verify fails at once with
	//     ErrUnavailable (503) rather than fetching per request.
	JWKSURL string `json:"jwksUrl,omitzero"`
	// Secret is an HS256 key of at least 32 bytes, read when the app
	// loads from an environment variable, {"env": "USERS_JWT_SECRET"}, or
	// a file, {"file": "/run/secrets/users-jwt"}, which is read again when
	// it changes, as a JWKS file is.
	Secret *Secret `json:"secret,omitzero"`
	// Issuer, when set, must equal the token's "iss".
	Issuer string `json:"issuer,omitzero"`
	// Audience, when set, must contain one of the token's "aud": a string
	// or a list.
	Audience Audience `json:"audience,omitzero"`
	// Algorithms are the signature algorithms accepted, of HS256, RS256,
	// ES256 and EdDSA. Defaults to those of the keys.
	Algorithms []string `json:"algorithms,omitzero"`
	// Leeway is the clock skew allowed on exp, nbf and iat. Defaults to
	// DefaultLeeway.
	Leeway Duration `json:"leeway,omitzero"`
	// RequireExp refuses tokens without "exp". Defaults to true.
	RequireExp *bool `json:"requireExp,omitzero"`
	// Refresh and Timeout are how often a JWKSURL is fetched again and how
	// long a fetch may take. Default to DefaultRefresh and DefaultTimeout.
	Refresh Duration `json:"refresh,omitzero"`
	Timeout Duration `json:"timeout,omitzero"`
	// ScopesClaim names the claim holding the scopes. Defaults to "scope"
	// (space-separated), then "scp" (a string or a list).
	ScopesClaim string `json:"scopesClaim,omitzero"`
	// DevKey is a private JWK file that `endpoints token` signs
	// development tokens with; the verifier does not read it.
	DevKey string `json:"devKey,omitzero"`
}

// Defaults of [JWTConfig].
const (
	DefaultLeeway  = 30 * time.Second
	DefaultRefresh = 10 * time.Minute
	DefaultTimeout = 5 * time.Second
)

// Secret names where a secret comes from: an environment variable, a
// file, or both, the variable first, as for the app's variables
// (config.Variable).
//
//	{"env": "USERS_JWT_SECRET"}
//	{"file": "/run/secrets/users-jwt"}
//
// # Notes
//
//   - The value is the variable's when it is set and not empty, else the
//     file's when the file exists; with neither, a host that serves
//     refuses the app (an [UnsetError]), and build and check warn.
//   - One trailing newline ("\n" or "\r\n") of the file is dropped, as
//     `echo value > file` and most secret stores write one.
//   - The file is read whole, a regular file of at most MaxSecretFileBytes.
type Secret struct {
	// Env is the environment variable holding it.
	Env string `json:"env,omitzero"`
	// File is a file holding it, as Docker and Kubernetes mount secrets:
	// an absolute path, or one inside the app, relative to it.
	File string `json:"file,omitzero"`
}

// MinSecretBytes is the shortest HS256 key a [Secret] may hold: 32 bytes,
// the size of its hash (RFC 7518 §3.2).
const MinSecretBytes = 32

// MaxSecretFileBytes bounds the file of a [Secret]: 64 KiB, far more than
// any HS256 key (one past 64 bytes is hashed down to 32).
const MaxSecretFileBytes = 64 << 10

// APIKeyConfig verifies API keys, by the SHA-256 of the key: the keys
// themselves are never written down.
type APIKeyConfig struct {
	// Keys are the accepted keys.
	Keys []APIKey `json:"keys,omitzero"`
	// Store also looks keys up in the app's store, in the host namespace no
	// guest reaches (package apikeys: `endpoints apikey` or
	// host.Host.PutAPIKey writes them), holding {"subject": …, "scopes": […]}.
	Store bool `json:"store,omitzero"`
	// In and Name say where clients send the key ("header", "query" or
	// "cookie", and its name) when the scheme is declared by this
	// configuration alone; they default to DefaultAPIKeyIn and
	// DefaultAPIKeyName. A scheme the document also declares must agree.
	In   string `json:"in,omitzero"`
	Name string `json:"name,omitzero"`
}

// Where an apiKey scheme declared by endpoints.json alone takes its key.
const (
	DefaultAPIKeyIn   = "header"
	DefaultAPIKeyName = "X-API-Key"
)

// APIKey is one accepted API key.
type APIKey struct {
	// SHA256 is the hex SHA-256 of the key ("printf %s KEY | sha256sum").
	SHA256 string `json:"sha256"`
	// Subject names the client; Scopes are what it may do.
	Subject string   `json:"subject,omitzero"`
	Scopes  []string `json:"scopes,omitzero"`
}

// BasicConfig verifies HTTP basic passwords (RFC 7617) against bcrypt
// hashes.
type BasicConfig struct {
	// Users maps a user name to its hash and scopes.
	Users map[string]BasicUser `json:"users"`
	// Realm is the realm of the challenge. Defaults to the scheme's name.
	Realm string `json:"realm,omitzero"`
}

// BasicUser is one user of [BasicConfig].
type BasicUser struct {
	// Bcrypt is the bcrypt hash of the password ("$2a$10$…", as
	// htpasswd -nbB or Go's bcrypt.GenerateFromPassword make it).
	Bcrypt string   `json:"bcrypt"`
	Scopes []string `json:"scopes,omitzero"`
}

// Audience is a string or a list of strings in JSON.
type Audience []string

// UnmarshalJSONFrom reads a string or a list.
func (a *Audience) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() == '"' {
		var s string
		if err := json.UnmarshalDecode(dec, &s); err != nil {
			return err
		}
		*a = Audience{s}
		return nil
	}
	var l []string
	if err := json.UnmarshalDecode(dec, &l); err != nil {
		return fmt.Errorf("want a string or an array of strings")
	}
	*a = l
	return nil
}

// Duration is a time.Duration written as a Go duration string ("30s").
type Duration time.Duration

// UnmarshalJSONFrom parses a positive duration string.
func (d *Duration) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	var s string
	if err := json.UnmarshalDecode(dec, &s); err != nil {
		return fmt.Errorf("want a duration string such as \"30s\"")
	}
	v, err := time.ParseDuration(s)
	if err != nil || v < 0 {
		return fmt.Errorf("%q is not a duration such as \"30s\" or \"10m\"", s)
	}
	*d = Duration(v)
	return nil
}

// MarshalJSONTo writes the duration string.
func (d Duration) MarshalJSONTo(enc *jsontext.Encoder) error {
	return enc.WriteToken(jsontext.String(time.Duration(d).String()))
}

func (d Duration) or(def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return time.Duration(d)
}

// Configs are the verifier configurations of an app's security schemes,
// by scheme name (endpoints.json's "security"), decoded and checked once
// by package config; the host makes its verifiers from them. The zero
// Configs has none.
type Configs struct{ byName map[string]Config }

// NewConfigs returns the configurations of byName, which it keeps.
func NewConfigs(byName map[string]Config) Configs { return Configs{byName: byName} }

// ConfigMap returns the configurations of c by scheme name; the caller
// must not change them. (A function, not a method: Configs is shown by
// config's public API, which must not show Config's JSON methods.)
func ConfigMap(c Configs) map[string]Config { return c.byName }

// Has reports whether the scheme name has a configuration.
func (c Configs) Has(name string) bool {
	_, ok := c.byName[name]
	return ok
}

// Key identifies the configuration of the scheme name (its canonical
// JSON), so that a verifier made from an equal one can be reused; "" when
// there is none.
func (c Configs) Key(name string) string {
	cfg, ok := c.byName[name]
	if !ok {
		return ""
	}
	b, _ := json.Marshal(cfg, json.Deterministic(true))
	return string(b)
}

// New makes the verifier of scheme s from the configuration of s.Name
// ([New]); an error when there is none.
func (c Configs) New(s Scheme, env Env) (Verifier, error) {
	cfg, ok := c.byName[s.Name]
	if !ok {
		return nil, fmt.Errorf("no verifier is configured for security scheme %q", s.Name)
	}
	return New(s, cfg, env)
}
