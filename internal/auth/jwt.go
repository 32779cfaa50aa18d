package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/wasmendpoints/endpoints/internal/appfile"
)

// maxTokenBytes bounds the bearer tokens the verifier parses.
const maxTokenBytes = 8 << 10

// maxJWKSBytes bounds a key set fetched from a URL.
const maxJWKSBytes = 1 << 20

// unknownKidRefetch is the shortest time between two fetches of a JWKS URL,
// or reads of a key file, caused by tokens naming keys it lacks: random
// kids must not hammer the identity provider, nor the disk.
const unknownKidRefetch = 30 * time.Second

// supported are the signature algorithms tokens may use.
var supported = []jose.SignatureAlgorithm{jose.HS256, jose.RS256, jose.ES256, jose.EdDSA}

// Bounds of the cache of verified tokens: a client sends its token with
// every request, and checking an ES256 or RS256 signature costs tens of
// microseconds, so a token verified once is trusted again, by its SHA-256,
// until it expires or for tokenCacheTTL, whichever comes first. The cache
// is emptied whenever the key set changes.
const (
	tokenCacheEntries = 10_000
	tokenCacheTTL     = 5 * time.Minute
)

type cachedToken struct {
	p     *Principal
	until time.Time
	keys  uint64 // the key set generation it was verified with
}

type jwtVerifier struct {
	cacheMu sync.Mutex
	cache   map[[sha256.Size]byte]cachedToken

	scheme     Scheme
	cfg        *JWTConfig
	env        Env
	algs       []jose.SignatureAlgorithm // configured; nil: those of the keys
	leeway     time.Duration
	requireExp bool
	keys       *keySource
}

func newJWT(s Scheme, c *JWTConfig, env Env) (*jwtVerifier, error) {
	// c passed Config.Check: one key source, supported algorithms.
	member := "security." + s.Name + ".jwt"
	if err := refuseDeployedDevKeys(member, c, env); err != nil {
		return nil, err
	}
	v := &jwtVerifier{scheme: s, cfg: c, env: env, leeway: c.Leeway.or(DefaultLeeway), requireExp: c.RequireExp == nil || *c.RequireExp}
	var err error
	switch {
	case c.JWKS != "":
		v.keys, err = fileKeys(env, member+".jwks", c.JWKS)
	case c.Secret != nil:
		v.keys, err = secretKey(env, member+".secret", c.Secret)
	default:
		v.keys, err = urlKeys(env, member+".jwksUrl", c)
	}
	if err != nil {
		return nil, err
	}
	for _, a := range c.Algorithms {
		v.algs = append(v.algs, jose.SignatureAlgorithm(a))
	}
	if len(v.algorithms()) == 0 {
		return nil, fmt.Errorf("%s: the key set holds no key for HS256, RS256, ES256 or EdDSA", member)
	}
	return v, nil
}

// algorithms are the signature algorithms accepted: the configured ones,
// else those of the keys now (a key file read again may bring another).
func (v *jwtVerifier) algorithms() []jose.SignatureAlgorithm {
	if len(v.algs) > 0 {
		return v.algs
	}
	return v.keys.algorithms()
}

func (v *jwtVerifier) Close() error { return v.keys.close() }

// MayBeUnavailable: a key set fetched from a JWKS URL may not be loaded
// yet; keys of the configuration always are.
func (v *jwtVerifier) MayBeUnavailable() bool { return v.keys.mayBeUnavailable() }

func (v *jwtVerifier) Challenge(f *Failure) string {
	c := "Bearer realm=" + quote(v.scheme.Name)
	if f != nil && !f.Missing {
		c += `, error="invalid_token", error_description=` + quote(f.Reason)
	}
	return c
}

func (v *jwtVerifier) Verify(ctx context.Context, r *http.Request) (*Principal, error) {
	h := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if h == "" || !ok || !strings.EqualFold(scheme, "Bearer") {
		return nil, missing()
	}
	token = strings.TrimSpace(token)
	if len(token) > maxTokenBytes {
		return nil, rejected("the token is longer than %d bytes", maxTokenBytes)
	}
	// A key file that changed is read again first: a token verified
	// with a key since removed is not let in from the cache.
	v.keys.poll(ctx)
	sum := sha256.Sum256([]byte(token))
	now := v.env.Now()
	if p := v.cached(sum, now); p != nil {
		return p, nil
	}
	algs := v.algorithms()
	tok, err := jwt.ParseSigned(token, algs)
	if err != nil {
		return nil, rejected("the token is not a JWT signed with %s", algList(algs))
	}
	hdr := tok.Headers[0]
	alg := jose.SignatureAlgorithm(hdr.Algorithm)
	candidates, gen, err := v.keys.lookup(ctx, hdr.KeyID)
	if err != nil {
		return nil, err
	}
	verified := false
	for _, k := range candidates {
		if !keyFits(k, alg) {
			continue
		}
		if err := tok.Claims(k.Key); err == nil {
			verified = true
			break
		}
	}
	if !verified {
		if hdr.KeyID != "" && len(candidates) == 0 {
			return nil, rejected("the token is signed with key %q, which the key set does not hold", hdr.KeyID)
		}
		return nil, rejected("the token's signature does not verify")
	}
	raw, err := payload(token)
	if err != nil {
		return nil, rejected("the token's claims %v", err)
	}
	// Decoded with names matched exactly, as a guest reads them:
	// encoding/json would take "SUB" for "sub".
	var std jwt.Claims
	if err := jsonv2.Unmarshal(raw, &std); err != nil {
		return nil, rejected("the token's registered claims (iss, sub, aud, exp, nbf, iat, jti) have the wrong types")
	}
	exp := jwt.Expected{Issuer: v.cfg.Issuer, AnyAudience: jwt.Audience(v.cfg.Audience), Time: now}
	if err := std.ValidateWithLeeway(exp, v.leeway); err != nil {
		return nil, claimFailure(err, &std)
	}
	if v.requireExp && std.Expiry == nil {
		return nil, rejected("the token has no expiry (exp)")
	}
	scopes, err := v.scopes(raw)
	if err != nil {
		return nil, err
	}
	p := &Principal{Scheme: v.scheme.Name, Subject: std.Subject, Scopes: scopes, Claims: raw}
	until := now.Add(tokenCacheTTL)
	if std.Expiry != nil && std.Expiry.Time().Add(v.leeway).Before(until) {
		until = std.Expiry.Time().Add(v.leeway)
	}
	v.remember(sum, p, until, gen)
	return p, nil
}

// cached returns the principal of a token verified before, still valid
// at now with the current keys.
func (v *jwtVerifier) cached(sum [sha256.Size]byte, now time.Time) *Principal {
	v.cacheMu.Lock()
	defer v.cacheMu.Unlock()
	c, ok := v.cache[sum]
	if !ok {
		return nil
	}
	if !now.Before(c.until) || c.keys != v.keys.generation() {
		delete(v.cache, sum)
		return nil
	}
	p := *c.p
	return &p
}

func (v *jwtVerifier) remember(sum [sha256.Size]byte, p *Principal, until time.Time, gen uint64) {
	v.cacheMu.Lock()
	defer v.cacheMu.Unlock()
	if v.cache == nil || len(v.cache) >= tokenCacheEntries {
		v.cache = map[[sha256.Size]byte]cachedToken{}
	}
	v.cache[sum] = cachedToken{p: p, until: until, keys: gen}
}

// claimFailure says which claim refused the token.
func claimFailure(err error, c *jwt.Claims) error {
	switch {
	case errors.Is(err, jwt.ErrExpired):
		return rejected("the token expired at %s", c.Expiry.Time().UTC().Format(time.RFC3339))
	case errors.Is(err, jwt.ErrNotValidYet):
		return rejected("the token is not valid before %s", c.NotBefore.Time().UTC().Format(time.RFC3339))
	case errors.Is(err, jwt.ErrIssuedInTheFuture):
		return rejected("the token is issued in the future")
	case errors.Is(err, jwt.ErrInvalidIssuer):
		// Which issuer and audience are expected is not said: a client
		// with a token of another issuer learns nothing of the
		// configuration (the log of the host may).
		return rejected("the token's issuer (iss) is not accepted")
	case errors.Is(err, jwt.ErrInvalidAudience):
		return rejected("the token is not for this API (its audience, aud, is not accepted)")
	}
	return rejected("the token's claims are not valid")
}

// payload returns the claims of a compact JWS as they were signed. They
// must be I-JSON (RFC 7493; RFC 7519 §7.2 lets a verifier refuse
// duplicate names): a claim named twice would be read one way by the host
// (encoding/json keeps the last "sub") and another by a guest that sees
// both.
func payload(token string) (json.RawMessage, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, errors.New("are not a compact JWS")
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	switch {
	case err != nil || !json.Valid(b):
		return nil, errors.New("do not decode")
	case !jsontext.Value(b).IsValid():
		if jsontext.Value(b).IsValid(jsontext.AllowDuplicateNames(true)) {
			return nil, errors.New("name a member twice")
		}
		return nil, errors.New("are not UTF-8")
	}
	return b, nil
}

// scopes reads the scopes claim: a space-separated string, or a list.
func (v *jwtVerifier) scopes(raw json.RawMessage) ([]string, error) {
	var claims map[string]json.RawMessage
	if err := json.Unmarshal(raw, &claims); err != nil {
		return nil, rejected("the token's claims are not a JSON object")
	}
	names := []string{"scope", "scp"}
	if v.cfg.ScopesClaim != "" {
		names = []string{v.cfg.ScopesClaim}
	}
	for _, n := range names {
		c, ok := claims[n]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(c, &s) == nil {
			return strings.Fields(s), nil
		}
		var l []string
		if json.Unmarshal(c, &l) == nil {
			return l, nil
		}
		return nil, rejected("the token's %q claim is neither a string nor a list of strings", n)
	}
	return nil, nil
}

func algList(algs []jose.SignatureAlgorithm) string {
	s := make([]string, len(algs))
	for i, a := range algs {
		s[i] = string(a)
	}
	return strings.Join(s, ", ")
}

// keyAlg is the algorithm a key signs with: its "alg", else the one its
// type implies.
func keyAlg(k jose.JSONWebKey) jose.SignatureAlgorithm {
	if k.Algorithm != "" {
		return jose.SignatureAlgorithm(k.Algorithm)
	}
	switch key := k.Key.(type) {
	case []byte:
		return jose.HS256
	case *rsa.PublicKey:
		return jose.RS256
	case *ecdsa.PublicKey:
		if key.Curve == elliptic.P256() {
			return jose.ES256
		}
	case ed25519.PublicKey:
		return jose.EdDSA
	}
	return ""
}

// keyFits reports whether k may verify a token signed with alg: the same
// algorithm, so an RSA public key is never used as an HMAC secret.
func keyFits(k jose.JSONWebKey, alg jose.SignatureAlgorithm) bool {
	return keyAlg(k) == alg && (k.Use == "" || k.Use == "sig")
}

// sameKey compares two keys by their kid and public value (a symmetric
// key by its bytes).
func sameKey(a, b jose.JSONWebKey) bool {
	if a.KeyID != b.KeyID || a.Algorithm != b.Algorithm {
		return false
	}
	if ka, ok := a.Key.([]byte); ok {
		kb, ok := b.Key.([]byte)
		return ok && subtle.ConstantTimeCompare(ka, kb) == 1
	}
	ta, errA := a.Thumbprint(crypto.SHA256)
	tb, errB := b.Thumbprint(crypto.SHA256)
	return errA == nil && errB == nil && string(ta) == string(tb)
}

func fileKeys(env Env, member, rel string) (*keySource, error) {
	if err := insideApp(rel); err != nil {
		return nil, fmt.Errorf("%s: %w", member, err)
	}
	path := filepath.Join(env.AppDir, filepath.FromSlash(rel))
	return watchedFile(env, member, path, rel, func() ([]jose.JSONWebKey, error) {
		keys, err := readKeySetFile(path, rel)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", member, err)
		}
		return keys, nil
	})
}

// readKeySet reads the key set file rel of the app in appDir. Its error
// says what is wrong with the file and what to do, without naming the
// member that names it.
func readKeySet(appDir, rel string) ([]jose.JSONWebKey, error) {
	if err := insideApp(rel); err != nil {
		return nil, err
	}
	return readKeySetFile(filepath.Join(appDir, filepath.FromSlash(rel)), rel)
}

// readKeySetFile reads the key set file at path, rel in errors: a public
// key set holding a key of an algorithm the host verifies.
func readKeySetFile(path, rel string) ([]jose.JSONWebKey, error) {
	// A regular file within appfile's bound: a FIFO would hang the load,
	// a device such as /dev/zero fill the memory.
	b, err := appfile.Read(path, rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s does not exist in the app: put the scheme's JSON Web Key Set there ({\"keys\": [...]}; `endpoints keygen` writes one for development), or name the file that holds it", rel)
	}
	if err != nil {
		return nil, err
	}
	keys, err := parseKeySet(b, true)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", rel, err)
	}
	if len((&keySource{fixed: keys}).algorithms()) == 0 {
		return nil, fmt.Errorf("%s: the key set holds no key for HS256, RS256, ES256 or EdDSA", rel)
	}
	return keys, nil
}

// parseKeySet reads a JWKS. Private asymmetric keys are refused: a key set
// the host reads is public.
func parseKeySet(b []byte, allowOct bool) ([]jose.JSONWebKey, error) {
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(b, &set); err != nil {
		return nil, fmt.Errorf("not a JSON Web Key Set ({\"keys\": [...]}): %v", err)
	}
	if len(set.Keys) == 0 {
		return nil, errors.New("the key set holds no keys")
	}
	for i, k := range set.Keys {
		_, oct := k.Key.([]byte)
		switch {
		case oct && !allowOct:
			return nil, fmt.Errorf("keys[%d]: a symmetric key in a published key set", i)
		case !oct && !k.IsPublic():
			return nil, fmt.Errorf("keys[%d] is a private key: publish the public half only", i)
		}
	}
	return set.Keys, nil
}

func secretKey(env Env, member string, s *Secret) (*keySource, error) {
	v, path, err := readSecret(env, s)
	if u, ok := errors.AsType[*UnsetError](err); ok {
		u.Setting, u.Err = member, fmt.Errorf("%s: %w", member, u.Err)
		return nil, u
	} else if err != nil {
		return nil, fmt.Errorf("%s: %w", member, err)
	}
	key := func(v []byte) []jose.JSONWebKey {
		return []jose.JSONWebKey{{Key: v, Algorithm: string(jose.HS256), Use: "sig"}}
	}
	if path == "" {
		return &keySource{fixed: key(v)}, nil
	}
	// From a file: read again when it changes, as a mounted secret
	// rotated in place does.
	return watchedFile(env, member, path, s.File, func() ([]jose.JSONWebKey, error) {
		b, err := readSecretFile(path, s.File)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", member, err)
		}
		return key(b), nil
	})
}

// secretLength refuses a secret v of where shorter than MinSecretBytes.
func secretLength(v []byte, where string) error {
	if len(v) < MinSecretBytes {
		return fmt.Errorf("%s holds %d bytes; an HS256 key needs at least %d", where, len(v), MinSecretBytes)
	}
	return nil
}

// ReadSecretFile reads an HS256 key from the file at path as the host
// reads a jwt "secret": {"file": path}: a regular file of at most
// MaxSecretFileBytes, one trailing line end dropped, of at least
// MinSecretBytes. `endpoints token --secret-file` signs with it.
func ReadSecretFile(path string) ([]byte, error) {
	return readSecretFile(path, path)
}

// readSecretFile reads the secret file at path (name in errors) as
// ReadSecretFile does.
func readSecretFile(path, name string) ([]byte, error) {
	b, err := appfile.ReadWithin(path, name, MaxSecretFileBytes)
	if err != nil {
		return nil, err
	}
	b = appfile.TrimLineEnd(b)
	if err := secretLength(b, "the file "+name); err != nil {
		return nil, err
	}
	return b, nil
}

// readSecret reads the HS256 key of s: its environment variable when set
// and not empty, else its file when it exists (as readSecretFile reads
// it; path is then the file's), at least MinSecretBytes. Neither is an
// *UnsetError (its Setting for the caller to fill), which the deployment
// gives; a file that cannot be read is another error. Errors do not name
// the member.
func readSecret(env Env, s *Secret) (v []byte, path string, err error) {
	getenv := env.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	var missing []string
	if s.Env != "" {
		if e := getenv(s.Env); e != "" {
			if err := secretLength([]byte(e), "the environment variable "+s.Env); err != nil {
				return nil, "", err
			}
			return []byte(e), "", nil
		}
		missing = append(missing, "the environment variable "+s.Env+" is not set")
	}
	if s.File != "" {
		path := s.File
		if !filepath.IsAbs(path) {
			if err := insideApp(s.File); err != nil {
				return nil, "", fmt.Errorf("file: %v", err)
			}
			path = filepath.Join(env.AppDir, filepath.FromSlash(s.File))
		}
		b, err := readSecretFile(path, s.File)
		switch {
		case err == nil:
			return b, path, nil
		case !errors.Is(err, fs.ErrNotExist):
			return nil, "", err
		}
		missing = append(missing, "the file "+s.File+" does not exist")
	}
	what := "set it to the HS256 key"
	switch {
	case s.File != "" && s.Env != "":
		what = "give the HS256 key in either"
	case s.File != "":
		what = "mount the HS256 key there"
	}
	return nil, "", &UnsetError{Env: s.Env, File: s.File,
		Err: fmt.Errorf("%s: %s, at least %d bytes", strings.Join(missing, " and "), what, MinSecretBytes)}
}
