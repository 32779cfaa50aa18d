package endpoints

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// archRow is one row of ARCHITECTURE.md's package table, read for its
// imports: the packages it names and what each may import of ours.
type archRow struct {
	line     int
	packages []string
	// anything: the row sets no bound ("anything").
	anything bool
	// allowed are the module's packages the row's packages may import;
	// a name ending in "/..." stands for the packages under it.
	allowed []string
	// eachOther: the row's packages may import one another.
	eachOther bool
	// own are what a parenthesis lets one package import besides the
	// row's: "(`abi/contract`: `abi`, `internal/mediatype`)".
	own map[string][]string
}

var (
	archQuoted = regexp.MustCompile("`([^`]+)`")
	// archOwn is a bound for one package inside a parenthesis.
	archOwn = regexp.MustCompile("`([^`]+)`: ((?:`[^`]+`(?:, )?)+)")
)

// parseArchitecture reads the rows of the "## Packages" table.
func parseArchitecture(t *testing.T, text string) []archRow {
	t.Helper()
	var rows []archRow
	var above []string // every package of the rows so far
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 3 {
			t.Fatalf("ARCHITECTURE.md:%d: a package row has %d cells, want 3 (package, job, may import)", n, len(cells))
		}
		row := archRow{line: n, own: map[string][]string{}}
		// "`internal/router`, `routefile`": a name without a slash is
		// in the directory of the first.
		dir := ""
		for i, m := range archQuoted.FindAllStringSubmatch(cells[0], -1) {
			name := m[1]
			if i == 0 {
				if j := strings.LastIndex(name, "/"); j >= 0 {
					dir = name[:j+1]
				}
			} else if !strings.Contains(name, "/") {
				name = dir + name
			}
			if strings.HasSuffix(name, "/...") {
				continue // a tree of its own modules (guest-sdk/...)
			}
			row.packages = append(row.packages, name)
		}
		may := cells[2]
		// Parentheses: bounds of one package each; other asides are
		// prose.
		for _, paren := range regexp.MustCompile(`\(([^)]*)\)`).FindAllStringSubmatch(may, -1) {
			for _, m := range archOwn.FindAllStringSubmatch(paren[1], -1) {
				for _, a := range archQuoted.FindAllStringSubmatch(m[2], -1) {
					row.own[m[1]] = append(row.own[m[1]], a[1])
				}
			}
			may = strings.Replace(may, paren[0], "", 1)
		}
		row.anything = strings.TrimSpace(may) == "anything"
		row.eachOther = strings.Contains(may, "each other")
		if strings.Contains(may, "all of the above") {
			row.allowed = append(row.allowed, above...)
		}
		for _, m := range archQuoted.FindAllStringSubmatch(may, -1) {
			row.allowed = append(row.allowed, m[1])
		}
		above = append(above, row.packages...)
		for p := range row.own {
			above = append(above, p)
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// mayImport reports whether a package may import dep under allowed.
func mayImport(allowed []string, dep string) bool {
	for _, a := range allowed {
		if a == dep || strings.HasSuffix(a, "/...") && strings.HasPrefix(dep, strings.TrimSuffix(a, "...")) {
			return true
		}
	}
	return false
}

// TestArchitectureImports keeps the "May import" column of
// ARCHITECTURE.md's package table true: every package a row names (and
// every package a parenthesis names) imports, of this module, only what
// the row allows (and the parenthesis, for the package it names), its own
// sub-packages, and the row's other packages when it says "each other". "nothing of ours" and "—" allow
// nothing; "anything" sets no bound. A row naming a package that does not
// exist fails too.
func TestArchitectureImports(t *testing.T) {
	text, err := os.ReadFile("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{} // relative to the module
	for line := range strings.Lines(string(bytes.TrimSpace(out))) {
		fields := strings.Fields(line)
		pkg, ok := strings.CutPrefix(fields[0], modulePath+"/")
		if !ok {
			continue
		}
		for _, dep := range fields[1:] {
			if d, ok := strings.CutPrefix(dep, modulePath+"/"); ok {
				imports[pkg] = append(imports[pkg], d)
			}
		}
		if imports[pkg] == nil {
			imports[pkg] = []string{}
		}
	}
	rows := parseArchitecture(t, string(text))
	if len(rows) < 10 {
		t.Fatalf("ARCHITECTURE.md: read %d package rows; is the table still there?", len(rows))
	}
	for _, row := range rows {
		if row.anything {
			continue
		}
		check := map[string][]string{}
		for _, p := range row.packages {
			check[p] = row.allowed
			if row.eachOther {
				check[p] = append(slices.Clone(row.allowed), row.packages...)
			}
		}
		for p, own := range row.own {
			check[p] = append(slices.Clone(check[p]), row.allowed...)
			check[p] = append(check[p], own...)
		}
		for p, allowed := range check {
			deps, ok := imports[p]
			if !ok {
				t.Errorf("ARCHITECTURE.md:%d names %s, which is not a package of the module", row.line, p)
				continue
			}
			for _, dep := range deps {
				if dep == p || strings.HasPrefix(dep, p+"/") || mayImport(allowed, dep) {
					continue
				}
				t.Errorf("ARCHITECTURE.md:%d: %s imports %s, which its row does not allow (%q): fix the import or the row", row.line, p, dep, allowed)
			}
		}
	}
}
