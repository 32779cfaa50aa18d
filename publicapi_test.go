// Package endpoints holds, in this directory, only the tests that concern
// the module as a whole; the runtime is in host, the wire contract in abi,
// the document in openapi.
package endpoints

import (
	"bufio"
	"bytes"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

const modulePath = "github.com/wasmendpoints/endpoints"

// unstableModules are modules whose types must not appear in the exported
// API of a public package: pseudo-versioned or pre-release, they may
// change under an embedder who upgrades, so the API shows stable types of
// its own instead (encoding/json.RawMessage rather than jsontext.Value).
var unstableModules = []string{
	"github.com/go-json-experiment/json",
}

// TestPublicAPIShowsNoUnstableTypes type-checks every public package of
// the module (no "internal" element, not a command) from the compiler's
// export data and walks its exported names: the types of exported
// constants, variables and functions, the fields and methods of exported
// types, and every type those mention, following types of our internal
// packages, which an embedder meets through the public ones. A type of an
// unstable module anywhere in that walk fails the test, naming the path
// that leads to it.
func TestPublicAPIShowsNoUnstableTypes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every package of the module")
	}
	t.Parallel()
	public, exports := listPackages(t)
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, os.ErrNotExist
		}
		return os.Open(file)
	})
	for _, path := range public {
		t.Run(strings.TrimPrefix(path, modulePath+"/"), func(t *testing.T) {
			pkg, err := imp.Import(path)
			if err != nil {
				t.Fatalf("import %s: %v", path, err)
			}
			w := apiWalker{seen: map[types.Type]bool{}, report: func(where string, bad *types.TypeName) {
				t.Errorf("%s.%s mentions %s.%s; show a stable type of our own instead", pkg.Name(), where, bad.Pkg().Path(), bad.Name())
			}}
			scope := pkg.Scope()
			for _, name := range scope.Names() {
				obj := scope.Lookup(name)
				if !obj.Exported() {
					continue
				}
				if tn, ok := obj.(*types.TypeName); ok {
					w.typeName(name, tn)
					continue
				}
				w.walk(name, obj.Type())
			}
		})
	}
}

// listPackages returns the import paths of the public packages of the
// module and the export data file of every package they depend on.
func listPackages(t *testing.T) (public []string, exports map[string]string) {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-export", "-f", "{{.ImportPath}}\t{{.Export}}\t{{.Name}}\t{{with .Module}}{{.Path}}{{end}}", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	exports = map[string]string{}
	s := bufio.NewScanner(bytes.NewReader(out))
	for s.Scan() {
		f := strings.Split(s.Text(), "\t")
		if len(f) != 4 {
			t.Fatalf("go list printed %q", s.Text())
		}
		path, export, name, module := f[0], f[1], f[2], f[3]
		if export != "" {
			exports[path] = export
		}
		if module == modulePath && export != "" && name != "main" && !isInternal(path) {
			public = append(public, path)
		}
	}
	if len(public) == 0 {
		t.Fatal("go list found no public package")
	}
	return public, exports
}

// isInternal reports whether an import path has an "internal" element.
func isInternal(path string) bool {
	return strings.HasSuffix(path, "/internal") || strings.Contains(path, "/internal/")
}

// apiWalker walks the types an exported name shows.
type apiWalker struct {
	seen   map[types.Type]bool
	report func(where string, bad *types.TypeName)
}

// typeName walks an exported type: what it is made of and its exported
// methods.
func (w *apiWalker) typeName(where string, tn *types.TypeName) {
	if tn.IsAlias() {
		w.walk(where, tn.Type())
		return
	}
	named, ok := tn.Type().(*types.Named)
	if !ok {
		return
	}
	w.walk(where, named.Underlying())
	for m := range named.Methods() {
		if m.Exported() {
			w.walk(where+"."+m.Name(), m.Type())
		}
	}
}

func (w *apiWalker) walk(where string, t types.Type) {
	if t == nil || w.seen[t] {
		return
	}
	w.seen[t] = true
	switch t := t.(type) {
	case *types.Alias:
		w.walk(where, types.Unalias(t))
	case *types.Named:
		for a := range t.TypeArgs().Types() {
			w.walk(where, a)
		}
		if w.named(where, t.Obj()) {
			// A type of one of our internal packages shows its exported
			// fields and methods through the public name that uses it.
			w.typeName(where+" ("+t.Obj().Pkg().Name()+"."+t.Obj().Name()+")", t.Obj())
		}
	case *types.Pointer:
		w.walk(where, t.Elem())
	case *types.Slice:
		w.walk(where, t.Elem())
	case *types.Array:
		w.walk(where, t.Elem())
	case *types.Chan:
		w.walk(where, t.Elem())
	case *types.Map:
		w.walk(where, t.Key())
		w.walk(where, t.Elem())
	case *types.Signature:
		for v := range t.Params().Variables() {
			w.walk(where, v.Type())
		}
		for v := range t.Results().Variables() {
			w.walk(where, v.Type())
		}
	case *types.Struct:
		for f := range t.Fields() {
			if f.Exported() || f.Embedded() {
				w.walk(where+"."+f.Name(), f.Type())
			}
		}
	case *types.Interface:
		for m := range t.Methods() {
			if m.Exported() {
				w.walk(where+"."+m.Name(), m.Type())
			}
		}
	}
}

// named reports a type name of an unstable module, and reports whether
// the walk should go on into the type: only for our internal packages,
// since our public packages are checked on their own and other modules'
// types are theirs.
func (w *apiWalker) named(where string, tn *types.TypeName) bool {
	if tn.Pkg() == nil {
		return false
	}
	path := tn.Pkg().Path()
	for _, m := range unstableModules {
		if path == m || strings.HasPrefix(path, m+"/") {
			w.report(where, tn)
			return false
		}
	}
	return strings.HasPrefix(path, modulePath+"/") && isInternal(path)
}
