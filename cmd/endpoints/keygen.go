package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/internal/auth"
)

// Where `endpoints keygen` and `endpoints new` put an app's development
// signing key and its public key set, relative to the app.
const (
	devKeyFile  = "auth/dev-signing-key.jwk"
	devJWKSFile = "auth/jwks.json"
)

// cmdKeygen writes a development signing key pair into an app: the
// private JWK that `endpoints token` signs with (jwt.devKey) and the key
// set the host verifies with (jwt.jwks).
func cmdKeygen(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("keygen", flag.ContinueOnError)
	keyFile := fs.String("key", devKeyFile, "the private JWK to write, relative to the app")
	jwksFile := fs.String("jwks", devJWKSFile, "the public JSON Web Key Set to write, relative to the app")
	kid := fs.String("kid", "dev-1", "the key's id (kid)")
	force := fs.Bool("force", false, "replace the files when they exist")
	app, code := parseApp(fs, args, stderr)
	if code != exitOK {
		return code
	}
	if err := writeDevKey(app, *keyFile, *jwksFile, *kid, *force); err != nil {
		fmt.Fprintf(stderr, "endpoints keygen: %v\n", err)
		return exitError
	}
	fmt.Fprintf(stdout, "wrote %s (private: for development only) and %s\n",
		filepath.Join(app, filepath.FromSlash(*keyFile)), filepath.Join(app, filepath.FromSlash(*jwksFile)))
	fmt.Fprintf(stdout, "verify tokens with them in %s:\n  \"security\": {\"bearer\": {\"jwt\": {\"jwks\": %q, \"devKey\": %q}}}\nthen mint one with\n  endpoints token %s --sub alice\n",
		config.File, filepath.ToSlash(*jwksFile), filepath.ToSlash(*keyFile), app)
	return exitOK
}

// writeDevKey writes a new ES256 key pair into app: the private JWK at
// keyFile (mode 0600) and its public key set at jwksFile, both relative to
// app. Without force it refuses to replace either.
func writeDevKey(app, keyFile, jwksFile, kid string, force bool) error {
	for _, f := range []string{keyFile, jwksFile} {
		if filepath.IsAbs(f) || !filepath.IsLocal(filepath.FromSlash(f)) {
			return fmt.Errorf("%s: want a path inside the app, such as %s", f, devKeyFile)
		}
		if _, err := os.Lstat(filepath.Join(app, filepath.FromSlash(f))); err == nil && !force {
			return fmt.Errorf("%s exists: tokens signed with its key would stop verifying; pass --force to replace it", filepath.Join(app, filepath.FromSlash(f)))
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	private, jwks, err := auth.NewDevKey(kid)
	if err != nil {
		return err
	}
	for _, f := range []struct {
		rel  string
		data []byte
		mode os.FileMode
	}{{keyFile, private, 0o600}, {jwksFile, jwks, 0o644}} {
		path := filepath.Join(app, filepath.FromSlash(f.rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, f.data, f.mode); err != nil {
			return err
		}
		if err := os.Chmod(path, f.mode); err != nil { // WriteFile keeps an existing file's mode
			return err
		}
	}
	return nil
}
