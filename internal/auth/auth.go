// Package auth verifies the credentials of an OpenAPI security scheme:
// JWT bearer tokens, API keys and HTTP basic passwords, configured per
// scheme in an app's endpoints.json (the "security" member). The host
// builds one [Verifier] per scheme an operation requires and calls it
// before validation; what it returns decides between going on, 401 and
// 403, and the challenge of WWW-Authenticate (RFC 9110 §11.6.1).
//
//	v, err := auth.New(auth.Scheme{Name: "bearer", Type: "http", HTTPScheme: "bearer"},
//		auth.Config{JWT: &auth.JWTConfig{JWKS: "auth/jwks.json", Issuer: "https://users.example"}},
//		auth.Env{AppDir: "examples/users"})
//	p, err := v.Verify(ctx, r) // *Principal, or a *Failure, or an error wrapping ErrUnavailable
//
// Tokens are checked with go-jose (github.com/go-jose/go-jose/v4), a
// maintained implementation of JWS, JWK and JWT; this package writes no
// cryptography of its own.
package auth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
)

// Scheme is a security scheme of the document
// (components.securitySchemes), as far as verifying it needs.
type Scheme struct {
	// Name is the scheme's key in components.securitySchemes; it is the
	// realm of its challenges.
	Name string
	// Type is "http", "apiKey", "oauth2", "openIdConnect" or "mutualTLS".
	Type string
	// HTTPScheme is the scheme of an http one: "bearer", "basic".
	HTTPScheme string
	// In and ParamName say where an apiKey is sent: "header", "query" or
	// "cookie", and the name.
	In, ParamName string
}

// Principal is a client a verifier accepted, as guests receive it in the
// envelope's "auth" member: abi.Principal.
type Principal = abi.Principal

// Failure is why a request was not let in: it carried no credential for
// the scheme (Missing), or one that does not verify (Reason, which is safe
// to show the client: it never repeats the credential).
type Failure struct {
	Missing bool
	Reason  string
}

func (f *Failure) Error() string {
	if f.Missing {
		return "no credential"
	}
	return f.Reason
}

func missing() error { return &Failure{Missing: true} }
func rejected(format string, args ...any) error {
	return &Failure{Reason: fmt.Sprintf(format, args...)}
}

// ErrUnavailable is wrapped by the errors of a verifier that could not tell
// (a JWKS URL that does not answer, a store that is down): the host
// answers 503 rather than guess.
var ErrUnavailable = errors.New("credentials cannot be verified now")

// Verifier checks one scheme's credentials. It is safe for concurrent use.
type Verifier interface {
	// Verify reads the scheme's credential from r and returns who the
	// client is; a *Failure when there is none or it is bad; an error
	// wrapping ErrUnavailable when it cannot tell.
	Verify(ctx context.Context, r *http.Request) (*Principal, error)
	// Challenge is the WWW-Authenticate challenge of a 401 after f (nil:
	// no credential was sent).
	Challenge(f *Failure) string
	// Close stops what the verifier runs in the background (a JWKS
	// refresh).
	Close() error
}

// MayBeUnavailable reports whether v can fail with ErrUnavailable, so that
// the host answers 503 for the requests it guards: a verifier that depends
// on what can be down or full (a JWKS URL, the store of API keys, the
// bounded password checks of basic credentials). A verifier whose keys are
// all in its configuration cannot; one of another package may, unless it
// says otherwise with a MayBeUnavailable() bool method of its own. The
// document lists the 503 of an operation a verifier that may be
// unavailable guards.
func MayBeUnavailable(v Verifier) bool {
	if u, ok := v.(interface{ MayBeUnavailable() bool }); ok {
		return u.MayBeUnavailable()
	}
	return true
}

// Env is what verifiers need from their host.
type Env struct {
	// AppDir is the app's directory: files of the configuration are
	// relative to it, and must stay inside it.
	AppDir string
	// HTTPClient fetches JWKS URLs. Defaults to a client with the
	// configured timeout. Whichever client, a fetch follows redirects
	// only within the URL's own origin (scheme, host and port), at most
	// 3: the verifier sets CheckRedirect on a copy.
	HTTPClient *http.Client
	// LookupKey reads an API key's entry from the app's store by the hex
	// SHA-256 of the key; nil when the app has none.
	LookupKey func(ctx context.Context, sha256hex string) ([]byte, bool, error)
	// Now is the clock. Defaults to time.Now.
	Now func() time.Time
	// Getenv reads secrets from the environment. Defaults to os.Getenv.
	Getenv func(string) string
	// Logger tells of JWKS refreshes that failed. Defaults to
	// slog.Default().
	Logger *slog.Logger
	// Production is set by a host that serves for production (`endpoints
	// serve`): a jwt scheme whose "devKey" file is missing from the app
	// while its keys come from a file (the development key set, deployed
	// without its private half) is then refused, saying what to set.
	Production bool
	// Offline is set by a host that loads an app to read or check it,
	// never to serve it (`endpoints build`, `openapi`, `routes`: a CI job
	// or an image build): a jwksUrl's key set is then never fetched, so
	// that such a tool does not reach the identity provider, nor leave a
	// connection or a retrying fetch behind. Its verifiers refuse every
	// token, as before a first fetch answered.
	Offline bool
}

// New checks cfg against the scheme and returns its verifier: "jwt" for
// http bearer, oauth2 and openIdConnect schemes, "apiKey" for apiKey
// schemes, "basic" for http basic. Errors name the member at fault.
func New(s Scheme, cfg Config, env Env) (Verifier, error) {
	if env.Now == nil {
		env.Now = time.Now
	}
	if env.Logger == nil {
		env.Logger = slog.Default()
	}
	want := ""
	switch {
	case s.Type == "http" && strings.EqualFold(s.HTTPScheme, "bearer"), s.Type == "oauth2", s.Type == "openIdConnect":
		want = "jwt"
	case s.Type == "http" && strings.EqualFold(s.HTTPScheme, "basic"):
		want = "basic"
	case s.Type == "apiKey":
		want = "apiKey"
	default:
		return nil, fmt.Errorf("security.%s: the host has no built-in verifier for a %q scheme%s; verify it with a middleware module named in the scheme's x-endpoints-verifier", s.Name, s.Type, httpScheme(s))
	}
	have := cfg.kinds()
	if len(have) != 1 || have[0] != want {
		got := "none"
		if len(have) > 0 {
			got = strings.Join(have, " and ")
		}
		return nil, fmt.Errorf("security.%s: the scheme is %s%s, which takes {%q: {...}}; got %s", s.Name, s.Type, httpScheme(s), want, got)
	}
	if err := cfg.Check(); err != nil {
		return nil, fmt.Errorf("security.%s.%w", s.Name, err)
	}
	switch want {
	case "jwt":
		return newJWT(s, cfg.JWT, env)
	case "basic":
		return newBasic(s, cfg.Basic)
	}
	return newAPIKey(s, cfg.APIKey, env)
}

func httpScheme(s Scheme) string {
	if s.Type == "http" {
		return " " + s.HTTPScheme
	}
	return ""
}

// MissingScopes returns the scopes of required that p does not have, in
// order; nil when it has them all.
func MissingScopes(p *Principal, required []string) []string {
	var out []string
	for _, r := range required {
		if p == nil || !slices.Contains(p.Scopes, r) {
			out = append(out, r)
		}
	}
	return out
}

// InsufficientScopeChallenge is the WWW-Authenticate challenge of a 403
// for a client without the scopes required (RFC 6750 §3.1): Bearer
// schemes say which scopes; others, which have no standard way to, get
// none ("").
func InsufficientScopeChallenge(s Scheme, required []string) string {
	if !bearerLike(s) {
		return ""
	}
	return fmt.Sprintf(`Bearer realm=%s, error="insufficient_scope", scope=%s`, quote(s.Name), quote(strings.Join(required, " ")))
}

func bearerLike(s Scheme) bool {
	return s.Type == "http" && strings.EqualFold(s.HTTPScheme, "bearer") || s.Type == "oauth2" || s.Type == "openIdConnect"
}

// quote writes s as an RFC 9110 quoted-string.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			b.WriteByte(' ')
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
