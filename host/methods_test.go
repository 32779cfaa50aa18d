package host_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxMethods is how many methods, unexported included, a type of the
// host package may declare: more says it does several jobs.
const maxMethods = 30

// overMethods are the types that still declare more than maxMethods, each
// with the most it may declare until it is split (issue 28): a ceiling
// that only goes down. None is left since Host was split by job
// (requestSide, lifecycle, loadSide, the janitor).
var overMethods = map[string]int{}

// TestMethodCounts counts the methods each type of the host package's
// root declares, unexported included, and fails when one declares more
// than maxMethods (or than its ceiling in overMethods), or when a ceiling
// is higher than it needs to be.
func TestMethodCounts(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	counts := map[string]int{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil {
				continue
			}
			recv := fn.Recv.List[0].Type
			if star, ok := recv.(*ast.StarExpr); ok {
				recv = star.X
			}
			switch r := recv.(type) {
			case *ast.IndexExpr:
				recv = r.X
			case *ast.IndexListExpr:
				recv = r.X
			}
			if id, ok := recv.(*ast.Ident); ok {
				counts[id.Name]++
			}
		}
	}
	if counts["Host"] == 0 {
		t.Fatal("found no method of Host: is this the host package's directory?")
	}
	for typ, n := range counts {
		limit, over := overMethods[typ]
		switch {
		case !over && n > maxMethods:
			t.Errorf("%s declares %d methods, more than %d: split it (a part of its own, a view for each interface it implements)", typ, n, maxMethods)
		case over && n > limit:
			t.Errorf("%s declares %d methods, more than its ceiling of %d in overMethods: split it rather than grow it", typ, n, limit)
		case over && n < limit:
			t.Errorf("%s declares %d methods: lower its ceiling in overMethods from %d to %d (or remove it, at %d or fewer)", typ, n, limit, n, maxMethods)
		}
	}
}
