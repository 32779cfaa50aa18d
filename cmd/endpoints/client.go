package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/wasmendpoints/endpoints/cmd/endpoints/internal/clientgen"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/openapi"
)

// cmdClient generates a typed client for the app: it loads the app's
// modules, builds the document from their contracts in this process and
// hands the model to a generator.
func cmdClient(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("client", flag.ContinueOnError)
	lang := fs.String("lang", "ts", `the client's language: "ts" (TypeScript) or "go"`)
	out := fs.String("o", "", "write the client to this file instead of standard output")
	vue := fs.Bool("vue", false, "TypeScript: also emit the Vue 3 composable useEndpoint")
	pkg := fs.String("package", "client", "Go: the package name")
	cacheDir := fs.String("cache-dir", "", cacheDirUsage)
	overrides := addConfigFlags(fs, stderr)
	app, code := parseApp(fs, args, stderr)
	if code != exitOK {
		return code
	}
	if *lang != "ts" && *lang != "go" {
		fmt.Fprintf(stderr, "endpoints client: --lang %q: want \"ts\" or \"go\"\n", *lang)
		return exitUsage
	}
	h, ok := load(ctx, "client", app, *cacheDir, host.Production, overrides(), stderr)
	if !ok {
		return exitError
	}
	defer h.Close(context.Background())
	doc, err := openapi.ParseDocument(h.Document())
	if err != nil {
		fmt.Fprintf(stderr, "endpoints client: %v\n", err)
		return exitError
	}
	m, err := clientgen.NewModel(doc)
	if err != nil {
		fmt.Fprintf(stderr, "endpoints client: %v\n", err)
		return exitError
	}
	var src []byte
	if *lang == "go" {
		src, err = clientgen.Go(m, clientgen.GoOptions{Package: *pkg})
	} else {
		src, err = clientgen.TypeScript(m, clientgen.TSOptions{Vue: *vue})
	}
	if err != nil {
		fmt.Fprintf(stderr, "endpoints client: %v\n", err)
		return exitError
	}
	if *out == "" {
		_, _ = stdout.Write(src)
		return exitOK
	}
	if err := writeOutput(*out, src); err != nil {
		fmt.Fprintf(stderr, "endpoints client: %v\n", err)
		return exitError
	}
	fmt.Fprintf(stdout, "wrote %s (%d operations, %d bytes)\n", *out, len(m.Operations), len(src))
	return exitOK
}
