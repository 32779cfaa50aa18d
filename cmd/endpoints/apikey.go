package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/internal/apikeys"
	"github.com/wasmendpoints/endpoints/internal/auth"
	"github.com/wasmendpoints/endpoints/storage"
)

// cmdAPIKey stores an API key in the app's shared store, where apiKey
// verifiers with "store": true look it up and no guest can reach it; or
// deletes one. A new key is made unless --sha256 names one the operator
// made; the key is printed once, on standard output.
func cmdAPIKey(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("apikey", flag.ContinueOnError)
	subject := fs.String("subject", "", "the client the key identifies (the principal's subject); required to add a key")
	ttl := fs.Duration("ttl", 0, "how long the key is accepted (default: until deleted)")
	sum := fs.String("sha256", "", "store the key whose SHA-256 this is (`HEX`, from printf %s KEY | sha256sum) instead of making one")
	del := fs.String("delete", "", "delete the stored key whose SHA-256 is `HEX`")
	var scopes stringList
	fs.Var(&scopes, "scope", "a scope to grant (repeat the flag, or separate with spaces)")
	overrides := addConfigFlags(fs, stderr)
	app, code := parseApp(fs, args, stderr)
	if code != exitOK {
		return code
	}
	if *del == "" && *subject == "" {
		fmt.Fprintln(stderr, "endpoints apikey: --subject is required: whom the key is for, e.g. --subject ci (or --delete HEX to delete a key)")
		return exitUsage
	}
	cfg, err := config.Load(app, overrides()...)
	if err != nil {
		fmt.Fprintf(stderr, "endpoints apikey: %v\n", err)
		return exitError
	}
	file := filepath.Join(app, config.File)
	if d := cfg.Storage.Driver; d == "" || d == config.DriverMemory {
		fmt.Fprintf(stderr, "endpoints apikey: %s: the memory store lives inside each serving process, out of this command's reach; "+
			"set \"storage\": {\"driver\": \"redis\", ...}, list the key in security.NAME.apiKey.keys, or store it from Go with Host.PutAPIKey\n", file)
		return exitError
	}
	ns, err := cfg.Storage.AppNamespace(app)
	if err != nil {
		fmt.Fprintf(stderr, "endpoints apikey: %v\n", err)
		return exitError
	}
	store, err := storage.Open(ctx, cfg.Storage.Driver, cfg.Storage.URL, ns)
	if err != nil {
		fmt.Fprintf(stderr, "endpoints apikey: %s: /storage: %v\n", file, err)
		return exitError
	}
	defer store.Close()
	if *del != "" {
		found, err := apikeys.Delete(ctx, store, ns, *del)
		switch {
		case err != nil:
			fmt.Fprintf(stderr, "endpoints apikey: --delete: %v\n", err)
			return exitError
		case !found:
			fmt.Fprintf(stderr, "endpoints apikey: no key with SHA-256 %s is stored for %s\n", *del, ns)
			return exitError
		}
		fmt.Fprintf(stderr, "deleted the key with SHA-256 %s\n", *del)
		return exitOK
	}
	if schemes := storeSchemes(cfg); len(schemes) == 0 {
		fmt.Fprintf(stderr, "endpoints apikey: warning: %s: no apiKey scheme has \"store\": true, so no verifier looks this key up yet\n", file)
	}
	key := ""
	if *sum == "" {
		key = apikeys.New()
		*sum = apikeys.Sum(key)
	}
	if err := apikeys.Put(ctx, store, ns, *sum, apikeys.Record{Subject: *subject, Scopes: scopes}, *ttl); err != nil {
		fmt.Fprintf(stderr, "endpoints apikey: %v\n", err)
		return exitError
	}
	expires := "until deleted"
	if *ttl > 0 {
		expires = "until " + time.Now().Add(*ttl).UTC().Format(time.RFC3339)
	}
	fmt.Fprintf(stderr, "stored the key with SHA-256 %s for %s (scopes: %v), accepted %s\n", *sum, *subject, []string(scopes), expires)
	if key != "" {
		fmt.Fprintln(stdout, key)
	}
	return exitOK
}

// storeSchemes are the security schemes of cfg whose apiKey verifier looks
// keys up in the store, sorted: from what config decoded and checked.
func storeSchemes(cfg *config.App) []string {
	var names []string
	byName := auth.ConfigMap(cfg.Verifiers())
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		if c := byName[name]; c.APIKey != nil && c.APIKey.Store {
			names = append(names, name)
		}
	}
	return names
}
