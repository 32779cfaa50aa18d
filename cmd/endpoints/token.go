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

// cmdToken mints a JWT for development, signed with the private key a
// bearer scheme's configuration names in jwt.devKey.
func cmdToken(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("token", flag.ContinueOnError)
	scheme := fs.String("scheme", "", "the security scheme (default: the only one with a jwt.devKey)")
	sub := fs.String("sub", "", "the subject (sub claim), required")
	ttl := fs.Duration("ttl", time.Hour, "how long the token is valid")
	var scopes stringList
	fs.Var(&scopes, "scope", "a scope to grant (repeat the flag, or separate with spaces)")
	overrides := addConfigFlags(fs, stderr)
	app, code := parseApp(fs, args, stderr)
	if code != exitOK {
		return code
	}
	if *sub == "" {
		fmt.Fprintln(stderr, "endpoints token: --sub is required: whom the token is for, e.g. --sub alice")
		return exitUsage
	}
	cfg, err := config.Load(app, overrides()...)
	if err != nil {
		fmt.Fprintf(stderr, "endpoints token: %v\n", err)
		return exitError
	}
	// The schemes that can sign development tokens, from what config
	// decoded and checked.
	devs := map[string]*auth.JWTConfig{}
	configured := auth.ConfigMap(cfg.Verifiers())
	for name, c := range configured {
		if c.JWT != nil && c.JWT.DevKey != "" {
			devs[name] = c.JWT
		}
	}
	names := slices.Sorted(maps.Keys(devs))
	switch {
	case *scheme == "" && len(names) == 1:
		*scheme = names[0]
	case *scheme == "" && len(names) == 0:
		// --scheme cannot help: no scheme can sign.
		fmt.Fprintf(stderr, "endpoints token: %s: no security scheme has a jwt.devKey to sign development tokens with (configured: %s); add a jwt scheme to \"security\", such as \"bearer\": {\"jwt\": {\"jwks\": \"auth/jwks.json\", \"devKey\": \"auth/dev-signing-key.jwk\"}} (endpoints keygen writes both files)\n", filepath.Join(app, config.File), orNone(slices.Sorted(maps.Keys(configured))))
		return exitError
	case *scheme == "":
		fmt.Fprintf(stderr, "endpoints token: %s: %d security schemes have a jwt.devKey (%s); name the one to sign with: --scheme NAME\n", filepath.Join(app, config.File), len(names), strings.Join(names, ", "))
		return exitError
	}
	dev, ok := devs[*scheme]
	if !ok {
		signing := "none"
		if len(names) > 0 {
			signing = strings.Join(names, ", ")
		}
		if _, found := configured[*scheme]; !found {
			fmt.Fprintf(stderr, "endpoints token: %s: --scheme %s: the app configures no security scheme of that name (configured: %s); the schemes with a jwt.devKey to sign with: %s\n", filepath.Join(app, config.File), *scheme, strings.Join(slices.Sorted(maps.Keys(configured)), ", "), signing)
			return exitError
		}
		fmt.Fprintf(stderr, "endpoints token: %s: security.%s has no jwt.devKey: add the path of a private JWK to sign development tokens with (endpoints keygen writes one); the schemes with one: %s\n", filepath.Join(app, config.File), *scheme, signing)
		return exitError
	}
	key, err := os.ReadFile(filepath.Join(app, filepath.FromSlash(dev.DevKey)))
	if err != nil {
		fmt.Fprintf(stderr, "endpoints token: security.%s.jwt.devKey: %v\n", *scheme, err)
		return exitError
	}
	now := time.Now()
	claims := map[string]any{"sub": *sub, "iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(*ttl).Unix()}
	if dev.Issuer != "" {
		claims["iss"] = dev.Issuer
	}
	switch len(dev.Audience) {
	case 0:
	case 1:
		claims["aud"] = dev.Audience[0]
	default:
		claims["aud"] = []string(dev.Audience)
	}
	if len(scopes) > 0 {
		claims["scope"] = strings.Join(scopes, " ")
	}
	token, err := auth.MintDevToken(key, claims)
	if err != nil {
		fmt.Fprintf(stderr, "endpoints token: security.%s.jwt.devKey %s: %v\n", *scheme, dev.DevKey, err)
		return exitError
	}
	fmt.Fprintln(stdout, token)
	return exitOK
}

// orNone joins names with commas, or says "none".
func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
