package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/internal/auth"
)

// Where `endpoints keygen` and `endpoints new` put an app's development
// signing key and its public key set, relative to the app.
const (
	devKeyFile  = "auth/dev-signing-key.jwk"
	devJWKSFile = "auth/jwks.json"
	devKeyID    = "dev-1"
)

// keygenOperands is keygen's usage line after [flags]: an app's
// development pair, or a pair written anywhere.
const keygenOperands = "APP\n       endpoints keygen [flags] --key FILE --jwks FILE"

// cmdKeygen writes a signing key pair: into an app, its development pair
// (the private JWK that `endpoints token` signs with, jwt.devKey, and the
// key set the host verifies with, jwt.jwks); without an app, a pair
// anywhere, such as a deployment's, whose private key stays out of the
// app and whose key set is mounted into it. --add adds the public key to
// an existing key set, to rotate keys.
func cmdKeygen(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("keygen", flag.ContinueOnError)
	keyFile := fs.String("key", "", "the private JWK `FILE` to write (mode 0600): relative to APP (default "+devKeyFile+"), or, without APP, any path")
	jwksFile := fs.String("jwks", "", "the public JSON Web Key Set `FILE` to write: relative to APP (default "+devJWKSFile+"), or, without APP, any path")
	alg := fs.String("alg", auth.KeyAlgorithms[0], "the key's signature algorithm, `ALG`: "+strings.Join(auth.KeyAlgorithms, ", "))
	kid := fs.String("kid", "", "the key's `ID` (kid) (default: \""+devKeyID+"\" for an app's new key set, else the key's RFC 7638 thumbprint)")
	add := fs.Bool("add", false, "add the public key to the existing key set, keeping its keys, so tokens signed with them verify until you remove them (rotation)")
	force := fs.Bool("force", false, "replace the private key file when it exists (and the key set, without --add)")
	fs.SetOutput(stderr)
	fs.Usage = func() { commandUsage(fs, keygenOperands) }
	positional, ok := parseArgs(fs, args)
	if !ok {
		return exitUsage
	}
	if !slices.Contains(auth.KeyAlgorithms, *alg) {
		fmt.Fprintf(stderr, "endpoints keygen: --alg %s: want one of %s (an HS256 key is a secret of at least 32 random bytes, which needs no key pair: \"secret\": {\"file\": ...})\n", *alg, strings.Join(auth.KeyAlgorithms, ", "))
		return exitUsage
	}
	k := keygen{key: *keyFile, jwks: *jwksFile, alg: *alg, kid: *kid, add: *add, force: *force}
	switch len(positional) {
	case 0:
		if k.key == "" || k.jwks == "" {
			fmt.Fprintln(stderr, "endpoints keygen: want an APP directory to write its development key pair into, or --key FILE and --jwks FILE to write a pair anywhere (a deployment's: the private key outside the app, the key set to mount into it)")
			fs.Usage()
			return exitUsage
		}
	case 1:
		k.app = positional[0]
		if err := checkAppDir(k.app); err != nil {
			fmt.Fprintf(stderr, "endpoints keygen: %v\n", err)
			return exitError
		}
		k.key = cmp.Or(k.key, devKeyFile)
		k.jwks = cmp.Or(k.jwks, devJWKSFile)
		if k.kid == "" && !k.add {
			k.kid = devKeyID
		}
	default:
		fmt.Fprintf(stderr, "endpoints keygen: want at most one APP directory, got %d arguments\n", len(positional))
		fs.Usage()
		return exitUsage
	}
	keyID, err := k.write()
	if err != nil {
		fmt.Fprintf(stderr, "endpoints keygen: %v\n", err)
		return exitError
	}
	keyPath, jwksPath := k.path(k.key), k.path(k.jwks)
	set := "and " + jwksPath + " (its public key set)"
	if k.add {
		set = "and added its public key to " + jwksPath + ", whose other keys still verify"
	}
	if k.app != "" {
		fmt.Fprintf(stdout, "wrote %s (private, %s, kid %s: for development only) %s\n", keyPath, k.alg, keyID, set)
		fmt.Fprintf(stdout, "verify tokens with them in %s:\n  \"security\": {\"bearer\": {\"jwt\": {\"jwks\": %q, \"devKey\": %q}}}\nthen mint one with\n  endpoints token %s --sub alice\n",
			config.File, filepath.ToSlash(k.jwks), filepath.ToSlash(k.key), k.app)
		return exitOK
	}
	fmt.Fprintf(stdout, "wrote %s (the private %s key, kid %s, mode 0600: keep it secret, out of the app and its image) %s\n", keyPath, k.alg, keyID, set)
	fmt.Fprintf(stdout, "where the app is deployed, mount %s into it (at auth/deployment-jwks.json, say) and verify tokens with it:\n  \"security\": {\"bearer\": {\"jwt\": {\"jwks\": \"auth/deployment-jwks.json\"}}}\n(in %s without \"devKey\", or whole in ENDPOINTS_SECURITY); then try the deployment with a token\n  endpoints token --key %s --sub alice [--iss ISSUER --aud AUDIENCE]\n",
		jwksPath, config.File, keyPath)
	return exitOK
}

// keygen is what `endpoints keygen` writes.
type keygen struct {
	// app is the app whose files key and jwks are ("" for paths of
	// their own).
	app, key, jwks string
	alg, kid       string
	add, force     bool
}

// path is the file f, in the app if there is one.
func (k keygen) path(f string) string {
	if k.app == "" {
		return f
	}
	return filepath.Join(k.app, filepath.FromSlash(f))
}

// writeDevKey writes a new ES256 key pair into app: the private JWK at
// keyFile (mode 0600) and its public key set at jwksFile, both relative to
// app. Without force it refuses to replace either.
func writeDevKey(app, keyFile, jwksFile, kid string, force bool) error {
	_, err := keygen{app: app, key: keyFile, jwks: jwksFile, alg: auth.KeyAlgorithms[0], kid: kid, force: force}.write()
	return err
}

// write makes the key and writes its files, having checked everything it
// can first (paths, files that exist, the key set it adds to), so that a
// refusal leaves both files as they were. It returns the key's kid.
func (k keygen) write() (string, error) {
	if k.app != "" {
		for _, f := range []string{k.key, k.jwks} {
			if filepath.IsAbs(f) || !filepath.IsLocal(filepath.FromSlash(f)) {
				return "", fmt.Errorf("%s: want a path inside the app, such as %s (leave out APP to write the files anywhere)", f, devKeyFile)
			}
		}
	}
	keyPath, jwksPath := k.path(k.key), k.path(k.jwks)
	if same, err := sameFile(keyPath, jwksPath); err != nil || same {
		return "", fmt.Errorf("--key and --jwks name one file, %s: the private key and the public key set go in two", keyPath)
	}
	if err := refuseExisting(keyPath, k.force, "its key could sign no more tokens; pass --force to replace it"); err != nil {
		return "", err
	}
	var set []byte
	if k.add {
		var err error
		if set, err = os.ReadFile(jwksPath); errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("--add: %s does not exist: leave out --add to write a new key set", jwksPath)
		} else if err != nil {
			return "", err
		}
		if _, err := auth.AddToKeySet(set); err != nil {
			return "", fmt.Errorf("--add: %s: %v", jwksPath, err)
		}
	} else if err := refuseExisting(jwksPath, k.force, "tokens signed with its keys would stop verifying; pass --add to add the new key to it, or --force to replace it"); err != nil {
		return "", err
	}
	private, public, kid, err := auth.NewKey(k.alg, k.kid)
	if err != nil {
		return "", err
	}
	if k.add {
		set, err = auth.AddToKeySet(set, public)
		if err != nil {
			return "", fmt.Errorf("--add: %s: %v (--kid)", jwksPath, err)
		}
	} else if set, err = auth.KeySet(public); err != nil {
		return "", err
	}
	if err := writeFileAtomic(keyPath, private, 0o600); err != nil {
		return "", err
	}
	if err := writeFileAtomic(jwksPath, set, 0o644); err != nil {
		return "", err
	}
	return kid, nil
}

// refuseExisting fails when path exists and force is not set, saying
// why replacing it matters and what to do.
func refuseExisting(path string, force bool, why string) error {
	if _, err := os.Lstat(path); err == nil && !force {
		return fmt.Errorf("%s exists: %s", path, why)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// sameFile reports whether a and b name one file: the same path, or, when
// both exist, the same file.
func sameFile(a, b string) (bool, error) {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true, nil
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb), nil
}

// writeFileAtomic writes data to path with mode, through a file beside it
// renamed over it: the file has its mode from its creation (a private key
// is never readable by others, not even while written), and a reader sees
// the old content or the new, never a part. Missing directories are made.
func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after the rename, nothing is there
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
