package endpoints

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDBCodesDocumented: every SDK's list of the database error codes
// names each code abi/database.go declares (DBCode...), "timeout" among
// them, as the SDK spells it: C's and AssemblyScript's strings, Rust's
// Code variants, Go's sentinel errors.
func TestDBCodesDocumented(t *testing.T) {
	read := func(file string) string {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	var codes []string
	for _, m := range regexp.MustCompile(`(?m)^\tDBCode\w+ = "(\w+)"`).FindAllStringSubmatch(read("abi/database.go"), -1) {
		codes = append(codes, m[1])
	}
	if len(codes) < 9 {
		t.Fatalf("abi/database.go declares the codes %q; want nine or more", codes)
	}
	// section is the text of file from the first match of start to the
	// first match of end after it.
	section := func(file, start, end string) string {
		text := read(file)
		i := strings.Index(text, start)
		if i < 0 {
			t.Fatalf("%s: no %q", file, start)
		}
		j := strings.Index(text[i:], end)
		if j < 0 {
			t.Fatalf("%s: no %q after %q", file, end, start)
		}
		return text[i : i+j]
	}
	camel := func(code string) string {
		s := ""
		for _, w := range strings.Split(code, "_") {
			s += strings.ToUpper(w[:1]) + w[1:]
		}
		return s
	}
	// Go's sentinel of each code, from db.go's declarations.
	goNames := map[string]string{}
	for _, m := range regexp.MustCompile(`(Err\w+) error = &DBError\{Code: abi\.DBCode(\w+)\}`).FindAllStringSubmatch(read("guest-sdk/go/db.go"), -1) {
		goNames[strings.ToLower(m[2])] = m[1]
	}
	for _, doc := range []struct {
		file, start, end string
		spell            func(code string) string
	}{
		{"guest-sdk/c/endpoints_db.h", "endpoints_db_error_code is", "*/", func(c string) string { return `"` + c + `"` }},
		{"guest-sdk/assemblyscript/db.ts", "Why a database call failed.", "*/", func(c string) string { return `"` + c + `"` }},
		{"guest-sdk/assemblyscript/README.md", "`DBError {", "A `Row` getter", func(c string) string { return "`\"" + c + "\"`" }},
		{"guest-sdk/rust/src/db.rs", "pub enum Code {", "}", camel},
		{"guest-sdk/rust/README.md", "A failure is a `DbError", "`Code::Host", func(c string) string { return camel(c) + "`" }},
		{"guest-sdk/go/db.go", "// # Errors", "// # Notes", func(c string) string { return "[" + goNames[strings.ReplaceAll(c, "_", "")] + "]" }},
		{"guest-sdk/go/README.md", "Errors of the database are", "Under `endpoints dev`", func(c string) string { return "`" + goNames[strings.ReplaceAll(c, "_", "")] + "`" }},
	} {
		text := section(doc.file, doc.start, doc.end)
		for _, code := range codes {
			if strings.HasPrefix(doc.file, "guest-sdk/go/") && code == "other" {
				continue // no sentinel: any other code
			}
			if want := doc.spell(code); !strings.Contains(text, want) {
				t.Errorf("%s: the list of database codes does not name %q as %s:\n%s", doc.file, code, want, text)
			}
		}
	}
}
