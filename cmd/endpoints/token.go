package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/internal/auth"
)

// stringList is a flag that may be given several times.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, " ") }
func (s *stringList) Set(v string) error { *s = append(*s, strings.Fields(v)...); return nil }

// tokenOperands is token's usage line after [flags]: a development
// token of an app, or one signed with a key file of the deployment.
const tokenOperands = "APP\n       endpoints token [flags] --key FILE [APP]\n       endpoints token [flags] --secret-file FILE [APP]"

// cmdToken mints a JWT: for development, signed with the private key a
// bearer scheme's configuration names in jwt.devKey; or, with --key,
// signed with that private JWK (a deployment's, which endpoints keygen
// writes) to try a deployment with; or, with --secret-file, signed HS256
// with the raw secret a deployment mounts for a jwt "secret". The issuer
// and audience are the scheme's, or --iss and --aud.
func cmdToken(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("token", flag.ContinueOnError)
	scheme := fs.String("scheme", "", "the security scheme (default: the only one with a jwt.devKey; with --key, the only jwt one)")
	sub := fs.String("sub", "", "the subject (sub claim), required")
	ttl := fs.Duration("ttl", time.Hour, "how long the token is valid")
	keyFile := fs.String("key", "", "sign with the private JWK `FILE` (as endpoints keygen --key writes) instead of the scheme's jwt.devKey, to try a deployment; APP is then optional")
	secretFile := fs.String("secret-file", "", "sign HS256 with the raw secret in `FILE`, read as a jwt \"secret\": {\"file\": ...} is (one trailing newline dropped, at least 32 bytes), to try a deployment; APP is then optional")
	iss := fs.String("iss", "", "the issuer (iss claim) (default: the scheme's jwt.issuer)")
	aud := fs.String("aud", "", "the audience (aud claim) (default: the scheme's jwt.audience)")
	var scopes stringList
	fs.Var(&scopes, "scope", "a scope to grant (repeat the flag, or separate with spaces)")
	overrides := addConfigFlags(fs, stderr)
	fs.SetOutput(stderr)
	fs.Usage = func() { commandUsage(fs, tokenOperands) }
	positional, ok := parseArgs(fs, args)
	if !ok {
		return exitUsage
	}
	// Signed with a file of the caller's: the app is optional.
	ownKey := *keyFile != "" || *secretFile != ""
	switch {
	case *keyFile != "" && *secretFile != "":
		fmt.Fprintln(stderr, "endpoints token: --key and --secret-file both name what to sign with; give one")
		return exitUsage
	case len(positional) > 1 || len(positional) == 0 && !ownKey:
		fmt.Fprintf(stderr, "endpoints token: want exactly one APP directory (or, with --key FILE or --secret-file FILE, at most one), got %d arguments\n", len(positional))
		fs.Usage()
		return exitUsage
	case *sub == "":
		fmt.Fprintln(stderr, "endpoints token: --sub is required: whom the token is for, e.g. --sub alice")
		return exitUsage
	case len(positional) == 0 && *scheme != "":
		// Without APP there is no scheme to take the issuer and
		// audience from: the token would lack them, silently.
		fmt.Fprintf(stderr, "endpoints token: --scheme %s names a security scheme of APP, whose issuer and audience the token takes: give APP, or leave out --scheme and give --iss and --aud\n", *scheme)
		return exitUsage
	}
	claims := map[string]any{}
	var key, secret []byte
	signer := "--key " + *keyFile
	var err error
	switch {
	case *keyFile != "":
		if key, err = os.ReadFile(*keyFile); err != nil {
			fmt.Fprintf(stderr, "endpoints token: --key: %v\n", err)
			return exitError
		}
	case *secretFile != "":
		signer = "--secret-file " + *secretFile
		if secret, err = auth.ReadSecretFile(*secretFile); err != nil {
			fmt.Fprintf(stderr, "endpoints token: --secret-file: %v\n", err)
			return exitError
		}
	}
	if len(positional) == 1 {
		app := positional[0]
		if err := checkAppDir(app); err != nil {
			fmt.Fprintf(stderr, "endpoints token: %v\n", err)
			return exitError
		}
		name, jwt, err := signingScheme(app, *scheme, ownKey, overrides())
		if err != nil {
			fmt.Fprintf(stderr, "endpoints token: %v\n", err)
			return exitError
		}
		if !ownKey {
			signer = "security." + name + ".jwt.devKey " + jwt.DevKey
			if key, err = os.ReadFile(filepath.Join(app, filepath.FromSlash(jwt.DevKey))); err != nil {
				fmt.Fprintf(stderr, "endpoints token: security.%s.jwt.devKey: %v\n", name, err)
				return exitError
			}
		}
		if jwt.Issuer != "" {
			claims["iss"] = jwt.Issuer
		}
		switch len(jwt.Audience) {
		case 0:
		case 1:
			claims["aud"] = jwt.Audience[0]
		default:
			claims["aud"] = []string(jwt.Audience)
		}
		if *keyFile != "" && jwt.JWKS != "" {
			// A token the app's key set would refuse is worth a word
			// before it is tried.
			warnUnverifiable(stderr, app, name, jwt.JWKS, *keyFile, key)
		}
		if *secretFile != "" && jwt.Secret == nil {
			fmt.Fprintf(stderr, "endpoints token: warning: security.%s.jwt verifies with a key set, not a \"secret\": a host configured so refuses this HS256 token\n", name)
		}
	}
	now := time.Now()
	claims["sub"], claims["iat"], claims["nbf"], claims["exp"] = *sub, now.Unix(), now.Unix(), now.Add(*ttl).Unix()
	if *iss != "" {
		claims["iss"] = *iss
	}
	if *aud != "" {
		claims["aud"] = *aud
	}
	if len(scopes) > 0 {
		claims["scope"] = strings.Join(scopes, " ")
	}
	var token string
	if secret != nil {
		token, err = auth.MintSecretToken(secret, claims)
	} else {
		token, err = auth.MintDevToken(key, claims)
	}
	if err != nil {
		fmt.Fprintf(stderr, "endpoints token: %s: %v\n", signer, err)
		return exitError
	}
	fmt.Fprintln(stdout, token)
	return exitOK
}

// signingScheme is the jwt scheme of the app a token is for: the one
// named, else the only one that can sign (with a jwt.devKey; with a key
// file of the caller's, any jwt scheme). The error says which to name or
// what to add.
func signingScheme(app, scheme string, keyFile bool, overrides []config.Override) (string, *auth.JWTConfig, error) {
	cfg, err := config.Load(app, overrides...)
	if err != nil {
		return "", nil, err
	}
	file := filepath.Join(app, config.File)
	// The schemes that can sign, from what config decoded and checked.
	signers := map[string]*auth.JWTConfig{}
	configured := auth.ConfigMap(cfg.Verifiers())
	for name, c := range configured {
		if c.JWT != nil && (keyFile || c.JWT.DevKey != "") {
			signers[name] = c.JWT
		}
	}
	names := slices.Sorted(maps.Keys(signers))
	what := "a jwt.devKey"
	if keyFile {
		what = "a jwt verifier"
	}
	switch {
	case scheme == "" && len(names) == 1:
		scheme = names[0]
	case scheme == "" && len(names) == 0 && keyFile:
		return "", nil, fmt.Errorf("%s: --key: no security scheme verifies JWTs (configured: %s) to take the issuer and audience from; leave out APP, giving --iss and --aud if the deployment checks them", file, orNone(slices.Sorted(maps.Keys(configured))))
	case scheme == "" && len(names) == 0:
		// --scheme cannot help: no scheme can sign.
		return "", nil, fmt.Errorf("%s: no security scheme has a jwt.devKey to sign development tokens with (configured: %s); add a jwt scheme to \"security\", such as \"bearer\": {\"jwt\": {\"jwks\": \"auth/jwks.json\", \"devKey\": \"auth/dev-signing-key.jwk\"}} (endpoints keygen writes both files)", file, orNone(slices.Sorted(maps.Keys(configured))))
	case scheme == "":
		return "", nil, fmt.Errorf("%s: %d security schemes have %s (%s); name the one to sign with: --scheme NAME", file, len(names), what, strings.Join(names, ", "))
	}
	jwt, ok := signers[scheme]
	if ok {
		return scheme, jwt, nil
	}
	if _, found := configured[scheme]; !found {
		return "", nil, fmt.Errorf("%s: --scheme %s: the app configures no security scheme of that name (configured: %s); the schemes with %s to sign with: %s", file, scheme, strings.Join(slices.Sorted(maps.Keys(configured)), ", "), what, orNone(names))
	}
	if keyFile {
		return "", nil, fmt.Errorf("%s: --scheme %s: the scheme verifies no JWTs; the schemes that do: %s", file, scheme, orNone(names))
	}
	return "", nil, fmt.Errorf("%s: security.%s has no jwt.devKey: add the path of a private JWK to sign development tokens with (endpoints keygen writes one); the schemes with one: %s; or sign with a private key file: --key FILE", file, scheme, orNone(names))
}

// warnUnverifiable warns when the key set file jwks of the app (the
// scheme's, as the app is configured here) holds no public half of the
// private key read from keyFile: the token minted would be refused where
// that set verifies. A set or key that cannot be read says nothing here
// (the mint reports a bad key).
func warnUnverifiable(stderr io.Writer, app, scheme, jwks, keyFile string, key []byte) {
	set, err := os.ReadFile(filepath.Join(app, filepath.FromSlash(jwks)))
	if err != nil {
		return
	}
	if holds, err := auth.KeySetHolds(set, key); err == nil && !holds {
		fmt.Fprintf(stderr, "endpoints token: warning: %s (security.%s.jwt.jwks) holds no public key of %s: a host verifying with it refuses this token; is the deployment's key set another file?\n", filepath.Join(app, filepath.FromSlash(jwks)), scheme, keyFile)
	}
}

// orNone joins names with commas, or says "none".
func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
