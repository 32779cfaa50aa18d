package csdk

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestContractIntegersBounded reads the contracts of this README's
// examples and of examples/users-c: every integer a request declares must
// carry a minimum and a maximum within int64_t, which endpoints_value_int
// reads. Without them the host passes 9223372036854775808 on to the
// handler, whose endpoints_value_int fails: a 500 instead of the 400 the
// AssemblyScript and Rust builders' Schema.integer() gets.
func TestContractIntegersBounded(t *testing.T) {
	files := []string{"README.md"}
	examples, err := filepath.Glob(filepath.Join("..", "..", "examples", "users-c", "server", "*", "*", "*.c"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, examples...)
	found := 0
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		contracts, err := cContracts(string(src))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for i, c := range contracts {
			found++
			var v struct {
				Request json.RawMessage `json:"request"`
			}
			d := json.NewDecoder(strings.NewReader(c))
			d.UseNumber()
			if err := d.Decode(&v); err != nil {
				t.Errorf("%s: contract %d is not JSON: %v\n%s", file, i+1, err, c)
				continue
			}
			for _, problem := range unboundedIntegers(v.Request, "/request") {
				t.Errorf("%s: contract %d: %s", file, i+1, problem)
			}
		}
	}
	if found < 4 {
		t.Errorf("found %d contracts in %s; want the README's three and the example's", found, files)
	}
}

// TestContractSchemasDescribed reads the contracts of this README's
// examples and of examples/users-c: every named schema ($defs) must have a
// description, and each of its properties a description and a non-empty
// examples array, so the document describes the schema and shows an
// example of every body that uses it (vacuum counts each one missing).
func TestContractSchemasDescribed(t *testing.T) {
	examples, err := filepath.Glob(filepath.Join("..", "..", "examples", "users-c", "server", "*", "*", "*.c"))
	if err != nil {
		t.Fatal(err)
	}
	named := 0
	for _, file := range append([]string{"README.md"}, examples...) {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		contracts, err := cContracts(string(src))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for i, c := range contracts {
			var v struct {
				Defs map[string]struct {
					Description string `json:"description"`
					Properties  map[string]struct {
						Description string            `json:"description"`
						Examples    []json.RawMessage `json:"examples"`
					} `json:"properties"`
				} `json:"$defs"`
			}
			if err := json.Unmarshal([]byte(c), &v); err != nil {
				t.Errorf("%s: contract %d: %v\n%s", file, i+1, err, c)
				continue
			}
			for name, def := range v.Defs {
				named++
				if def.Description == "" {
					t.Errorf("%s: contract %d: /$defs/%s has no description", file, i+1, name)
				}
				for prop, p := range def.Properties {
					if p.Description == "" || len(p.Examples) == 0 {
						t.Errorf("%s: contract %d: /$defs/%s/properties/%s: description %q and %d examples, want both", file, i+1, name, prop, p.Description, len(p.Examples))
					}
				}
			}
		}
	}
	if named < 3 {
		t.Errorf("found %d named schemas; want the README's User and the example's User and NotFound", named)
	}
}

// contractCall finds ENDPOINTS_CONTRACT( and the string literals after it.
var contractCall = regexp.MustCompile(`ENDPOINTS_CONTRACT\(((?:\s*"(?:[^"\\]|\\.)*")+)\s*\)`)

// cLiteral is one C string literal.
var cLiteral = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// cContracts returns the contracts ENDPOINTS_CONTRACT defines in C source
// (or a README holding C), each the concatenation of its string literals.
func cContracts(src string) ([]string, error) {
	var out []string
	for _, m := range contractCall.FindAllStringSubmatch(src, -1) {
		var b strings.Builder
		for _, lit := range cLiteral.FindAllString(m[1], -1) {
			s, err := strconv.Unquote(lit) // the escapes these files use (\", \\) are Go's too
			if err != nil {
				return nil, fmt.Errorf("string literal %s: %w", lit, err)
			}
			b.WriteString(s)
		}
		out = append(out, b.String())
	}
	return out, nil
}

// unboundedIntegers walks a request's schemas and names each integer
// schema without both bounds within int64_t.
func unboundedIntegers(raw json.RawMessage, at string) []string {
	if len(raw) == 0 {
		return nil
	}
	var obj map[string]json.RawMessage
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&obj) != nil {
		var arr []json.RawMessage
		if json.Unmarshal(raw, &arr) != nil {
			return nil
		}
		var problems []string
		for i, e := range arr {
			problems = append(problems, unboundedIntegers(e, fmt.Sprintf("%s/%d", at, i))...)
		}
		return problems
	}
	var problems []string
	if string(obj["type"]) == `"integer"` {
		for _, bound := range []string{"minimum", "maximum"} {
			if _, err := strconv.ParseInt(string(obj[bound]), 10, 64); err != nil {
				problems = append(problems, fmt.Sprintf("%s: an integer without a %s within int64_t (%s)", at, bound, obj[bound]))
			}
		}
	}
	for k, v := range obj {
		problems = append(problems, unboundedIntegers(v, at+"/"+k)...)
	}
	return problems
}
