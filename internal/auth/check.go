package auth

import (
	"encoding/hex"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	jose "github.com/go-jose/go-jose/v4"
	"golang.org/x/crypto/bcrypt"
	"golang.org/x/net/http/httpguts"
)

// ConfigError is a member of one scheme's verifier configuration that is
// wrong, found by [Config.Check]. Path names the member from the scheme's
// entry: ["jwt", "jwksUrl"], ["apiKey", "keys", "0", "sha256"]; a
// caller turns it into a JSON pointer (package config) or a dotted name
// (New: "security.bearer.jwt.jwksUrl").
type ConfigError struct {
	// Path names the member, one JSON object key or array index a step.
	Path []string
	// Msg says what is wrong and what was expected.
	Msg string
}

// Error writes the member dotted, indices in brackets, then what is
// wrong: `apiKey.keys[0].sha256: want 64 hexadecimal characters...`.
func (e *ConfigError) Error() string {
	var b strings.Builder
	for i, p := range e.Path {
		switch _, err := strconv.Atoi(p); {
		case err == nil:
			b.WriteString("[" + p + "]")
		case i > 0:
			b.WriteString("." + p)
		default:
			b.WriteString(p)
		}
	}
	return b.String() + ": " + e.Msg
}

// configError returns a *ConfigError at path.
func configError(path []string, format string, args ...any) error {
	return &ConfigError{Path: path, Msg: fmt.Sprintf(format, args...)}
}

// Check checks c as far as that needs no I/O and no document: one
// verifier; for jwt, one key source (a key set file inside the app, an
// https URL, plain http for a loopback address only, or a secret's
// environment variable or file, absolute or inside the app), supported
// algorithms, refresh and timeout with a URL only; for apiKey, where the
// key is sent, well-formed key hashes, and keys or the store; for basic,
// at least one user, user names RFC 7617 allows, bcrypt hashes. What needs
// I/O (reading the key set file, fetching the URL, the secret's variable
// or file) or the document (the scheme's type) is checked by [New]. The
// error is a *[ConfigError].
//
// Package config calls it for every command that reads endpoints.json
// (check, build, openapi...), so they refuse what serve would.
func (c Config) Check() error {
	switch kinds := c.kinds(); {
	case len(kinds) != 1:
		return configError(nil, "give exactly one verifier, {\"jwt\": {...}}, {\"apiKey\": {...}} or {\"basic\": {...}}; got %d (%s)", len(kinds), strings.Join(kinds, ", "))
	case c.JWT != nil:
		return c.JWT.check([]string{"jwt"})
	case c.APIKey != nil:
		return c.APIKey.check([]string{"apiKey"})
	}
	return c.Basic.check([]string{"basic"})
}

// CheckKeys reads what [New] reads of the keys of the verifier c
// configures for the scheme name, fetching nothing and needing no
// document, so that a host fails its start on them before it does
// anything else: a jwt scheme's key set file ("jwks", in env.AppDir), its
// secret (the environment variable, env.Getenv, else the file) unless
// env.Offline (a build, where the deployment's secrets are not), and, in
// env.Production, a
// development key set deployed without its devKey file. A jwksUrl is not
// fetched. The error is a *[ConfigError] naming the member from the
// scheme's entry: ["jwt", "jwks"].
func (c Config) CheckKeys(name string, env Env) error {
	j := c.JWT
	if j == nil {
		return nil
	}
	if err := deployedDevKeys("security."+name+".jwt", j, env); err != nil {
		return configError([]string{"jwt"}, "%v", err)
	}
	switch {
	case j.JWKS != "":
		if _, err := readKeySet(env.AppDir, j.JWKS); err != nil {
			return configError([]string{"jwt", "jwks"}, "%v", err)
		}
	case j.Secret != nil && !env.Offline:
		if _, _, err := readSecret(env, j.Secret); err != nil {
			return configError([]string{"jwt", "secret"}, "%v", err)
		}
	}
	return nil
}

// at is path with more steps, in a new slice.
func at(path []string, more ...string) []string {
	return append(slices.Clip(path), more...)
}

func (c *JWTConfig) check(path []string) error {
	sources := 0
	for _, set := range []bool{c.JWKS != "", c.JWKSURL != "", c.Secret != nil} {
		if set {
			sources++
		}
	}
	if sources != 1 {
		return configError(path, "give exactly one of \"jwks\" (a key set file of the app), \"jwksUrl\" and \"secret\"")
	}
	switch {
	case c.JWKS != "":
		if err := insideApp(c.JWKS); err != nil {
			return configError(at(path, "jwks"), "%v", err)
		}
	case c.JWKSURL != "":
		if err := checkJWKSURL(c.JWKSURL); err != nil {
			return configError(at(path, "jwksUrl"), "%v", err)
		}
	case c.Secret.Env == "" && c.Secret.File == "":
		return configError(at(path, "secret"), "want {\"env\": \"NAME\"}, the environment variable holding the HS256 key, or {\"file\": \"/run/secrets/NAME\"}, the file holding it (or both: the variable first)")
	case c.Secret.Env != "" && !envName.MatchString(c.Secret.Env):
		return configError(at(path, "secret", "env"), "%q is not an environment variable name (letters, digits and \"_\", not starting with a digit)", c.Secret.Env)
	case c.Secret.File != "" && !filepath.IsAbs(c.Secret.File) && insideApp(c.Secret.File) != nil:
		return configError(at(path, "secret", "file"), "%q: want an absolute path, such as \"/run/secrets/jwt\" (where Docker and Kubernetes mount secrets), or a path inside the app", c.Secret.File)
	}
	if c.JWKSURL == "" {
		for _, d := range []struct {
			name string
			set  bool
		}{{"refresh", c.Refresh != 0}, {"timeout", c.Timeout != 0}} {
			if d.set {
				return configError(at(path, d.name), "applies to a key set fetched from \"jwksUrl\" only; remove it")
			}
		}
	}
	for i, a := range c.Algorithms {
		if !slices.Contains(supported, jose.SignatureAlgorithm(a)) {
			return configError(at(path, "algorithms", strconv.Itoa(i)), "%q: want one of HS256, RS256, ES256, EdDSA", a)
		}
	}
	if c.Secret != nil && len(c.Algorithms) > 0 && !slices.Equal(c.Algorithms, []string{string(jose.HS256)}) {
		return configError(at(path, "algorithms"), "a \"secret\" is an HS256 key: want [\"HS256\"] or leave it out")
	}
	for i, a := range c.Audience {
		if a == "" {
			return configError(at(path, "audience", strconv.Itoa(i)), "an empty audience matches no token; remove it")
		}
	}
	if c.DevKey != "" {
		if err := insideApp(c.DevKey); err != nil {
			return configError(at(path, "devKey"), "%v", err)
		}
	}
	return nil
}

// envName is what an environment variable's name may be.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// checkJWKSURL checks the form of a jwksUrl: https, or plain http to a
// loopback address (as in tests).
func checkJWKSURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || (u.Scheme != "https" && !(u.Scheme == "http" && loopback(u.Hostname()))) {
		return fmt.Errorf("%q: want an https URL (plain http only for a loopback address, as in tests: http://127.0.0.1:8080/jwks.json)", s)
	}
	return nil
}

// insideApp checks that rel is a path inside the app directory.
func insideApp(rel string) error {
	if rel == "" || filepath.IsAbs(rel) || strings.HasPrefix(filepath.ToSlash(filepath.Clean(rel)), "../") || filepath.Clean(rel) == ".." {
		return fmt.Errorf("%q: want a path inside the app, such as \"auth/jwks.json\"", rel)
	}
	return nil
}

func (c *APIKeyConfig) check(path []string) error {
	switch c.In {
	case "", "header", "query", "cookie":
	default:
		return configError(at(path, "in"), "%q: want \"header\" (the default), \"query\" or \"cookie\"", c.In)
	}
	if c.Name != "" && c.In != "query" && !httpguts.ValidHeaderFieldName(c.Name) {
		return configError(at(path, "name"), "%q: a header or cookie name is a token (letters, digits and !#$%%&'*+-.^_`|~), such as %q", c.Name, DefaultAPIKeyName)
	}
	for i, k := range c.Keys {
		if b, err := hex.DecodeString(k.SHA256); err != nil || len(b) != 32 {
			return configError(at(path, "keys", strconv.Itoa(i), "sha256"), "want 64 hexadecimal characters (the SHA-256 of the key, e.g. from \"printf %%s KEY | sha256sum\")")
		}
	}
	if len(c.Keys) == 0 && !c.Store {
		return configError(path, "list \"keys\" or set \"store\": true; no key would ever be accepted")
	}
	return nil
}

func (c *BasicConfig) check(path []string) error {
	if len(c.Users) == 0 {
		return configError(at(path, "users"), "list at least one user: {\"alice\": {\"bcrypt\": \"$2a$10$...\"}}")
	}
	names := make([]string, 0, len(c.Users))
	for name := range c.Users {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if strings.Contains(name, ":") || name == "" {
			return configError(at(path, "users"), "%q: a user name is not empty and holds no ':' (RFC 7617)", name)
		}
		if _, err := bcrypt.Cost([]byte(c.Users[name].Bcrypt)); err != nil {
			return configError(at(path, "users", name, "bcrypt"), "not a bcrypt hash (\"$2a$10$...\", from htpasswd -nbB or bcrypt.GenerateFromPassword): %v", err)
		}
	}
	return nil
}
