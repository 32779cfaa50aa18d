package endpoints

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// stabilityRow reads a row of README.md's "Stability before 1.0" table:
// each name in backquotes, "stable" or "experimental" by its column.
func stabilityRow(t *testing.T, title string) map[string]string {
	t.Helper()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for line := range strings.SplitSeq(string(readme), "\n") {
		if strings.HasPrefix(line, "| "+title+" |") {
			row = line
		}
	}
	cells := strings.Split(row, "|")
	if len(cells) != 5 {
		t.Fatalf("README.md has no row \"| %s | stable | experimental |\" in its stability table (got %q)", title, row)
	}
	names := regexp.MustCompile("`([^`]+)`")
	tier := map[string]string{}
	for i, col := range map[int]string{2: "stable", 3: "experimental"} {
		for _, m := range names.FindAllStringSubmatch(cells[i], -1) {
			if prev, ok := tier[m[1]]; ok && prev != col {
				t.Errorf("README.md lists %s as %s and %s", m[1], prev, col)
			}
			tier[m[1]] = col
		}
	}
	return tier
}

// TestStabilityABI keeps the table's "ABI v1" row true: every export and
// import package abi names is in exactly one of its columns.
func TestStabilityABI(t *testing.T) {
	tier := stabilityRow(t, "ABI v1")
	entries, err := os.ReadDir("abi")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("abi", e.Name()), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					n := name.Name
					if n == "ImportModule" || !(strings.HasPrefix(n, "Import") || strings.HasPrefix(n, "Export") || n == "StartFunction") || i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					value, _ := strconv.Unquote(lit.Value)
					checked++
					if _, ok := tier[value]; !ok {
						t.Errorf("abi.%s (%q) is missing from README.md's stability table (row \"ABI v1\")", n, value)
					}
				}
			}
		}
	}
	if checked < 30 {
		t.Errorf("found %d exports and imports in package abi, want the 30 and more it names", checked)
	}
}

// TestStabilityTable keeps the table's "Go packages" row true: every
// public package of the module is in exactly one of its columns, and a
// package's doc says "Experimental:" exactly when the table calls it
// experimental.
func TestStabilityTable(t *testing.T) {
	tier := stabilityRow(t, "Go packages")
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}	{{.Dir}}	{{join .GoFiles " "}} {{join .IgnoredGoFiles " "}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	listed := map[string]bool{}
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		fields := strings.SplitN(line, "\t", 3)
		path := strings.TrimPrefix(fields[0], modulePath+"/")
		if fields[0] == modulePath || slices.Contains(strings.Split(path, "/"), "internal") ||
			strings.HasPrefix(path, "cmd/") || strings.HasPrefix(path, "bench/") || strings.HasPrefix(path, "examples/") || strings.HasPrefix(path, "tests/") {
			continue
		}
		listed[path] = true
		col, ok := tier[path]
		if !ok {
			t.Errorf("public package %s is missing from README.md's stability table (row \"Go packages\")", path)
			continue
		}
		doc := packageDoc(t, fields[1], strings.Fields(fields[2]))
		if marked := strings.Contains(doc, "\nExperimental:") || strings.HasPrefix(doc, "Experimental:"); marked != (col == "experimental") {
			t.Errorf("package %s is %s in README.md, but its package doc says \"Experimental:\": %v", path, col, marked)
		}
	}
	for path := range tier {
		if !listed[path] {
			t.Errorf("README.md's stability table lists %s, which is no public package of the module", path)
		}
	}
}

// packageDoc returns the package comment of the files in dir.
func packageDoc(t *testing.T, dir string, files []string) string {
	t.Helper()
	var doc strings.Builder
	for _, name := range files {
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if f.Doc != nil {
			doc.WriteString(f.Doc.Text())
		}
	}
	return doc.String()
}
