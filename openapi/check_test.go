package openapi_test

import (
	"bytes"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wasmendpoints/endpoints/openapi"
)

// checkDocument stands in for the official OpenAPI 3.1 schema
// (https://spec.openapis.org/oas/3.1/schema/2022-10-07), which is not
// available offline, with checks written independently of
// Document.Validate, on the encoded JSON:
//
//   - every schema compiles as JSON Schema 2020-12 (santhosh-tekuri/jsonschema);
//   - every "$ref" resolves inside the document;
//   - every path template parameter has a required path parameter, and
//     every path parameter is in the template;
//   - every operation has at least one response, each with a description.
//
// It also checks that encoding is deterministic and that the document
// survives a decode/encode round trip byte for byte, and that Validate
// agrees.
func checkDocument(t testing.TB, doc *openapi.Document) {
	t.Helper()
	data, err := doc.MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := doc.MarshalIndent(); !bytes.Equal(data, again) {
		t.Errorf("two encodings of one document differ")
	}
	if !bytes.HasSuffix(data, []byte("}\n")) || bytes.Contains(data, []byte("\t")) {
		t.Errorf("encoding is not two-space indented with a trailing newline")
	}
	parsed, err := openapi.ParseDocument(data)
	if err != nil {
		t.Fatalf("ParseDocument of an encoded document: %v", err)
	}
	if round, _ := parsed.MarshalIndent(); !bytes.Equal(data, round) {
		t.Errorf("decode/encode round trip changed the document:\n%s\nvs\n%s", data, round)
	}
	if err := doc.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
	for _, p := range openAPIProblems(data) {
		t.Errorf("not valid OpenAPI: %s", p)
	}
}

// openAPIProblems returns what is wrong with an encoded document.
func openAPIProblems(data []byte) []string {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	root, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return []string{err.Error()}
	}
	doc, _ := root.(map[string]any)
	if doc["openapi"] != openapi.Version31 && doc["openapi"] != openapi.Version32 {
		fail("openapi = %v", doc["openapi"])
	}
	info, _ := doc["info"].(map[string]any)
	if info["title"] == nil || info["version"] == nil {
		fail("info needs title and version: %v", info)
	}

	// References.
	var walk func(ptr string, v any)
	walk = func(ptr string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if _, ok := v["$id"]; ok {
				return // a resource of its own: "#" is that schema
			}
			if ref, ok := v["$ref"].(string); ok {
				if !strings.HasPrefix(ref, "#/") || lookup(root, ref[1:]) == nil {
					fail("%s/$ref: %q does not resolve", ptr, ref)
				}
			}
			for k, e := range v {
				walk(ptr+"/"+k, e)
			}
		case []any:
			for i, e := range v {
				walk(fmt.Sprintf("%s/%d", ptr, i), e)
			}
		}
	}
	walk("", root)

	// Schemas: components, and every "schema", "itemSchema" and
	// x-endpoints-item-schema member outside schemas.
	var schemas []string
	comps, _ := doc["components"].(map[string]any)
	for name := range asMap(comps["schemas"]) {
		schemas = append(schemas, "/components/schemas/"+esc(name))
	}
	var find func(ptr string, v any)
	find = func(ptr string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				if k == "schema" || k == "itemSchema" || k == openapi.ItemSchemaExtension {
					if k == "itemSchema" && doc["openapi"] != openapi.Version32 {
						fail("%s/itemSchema: only OpenAPI 3.2 has itemSchema", ptr)
					}
					schemas = append(schemas, ptr+"/"+esc(k))
					continue
				}
				find(ptr+"/"+esc(k), e)
			}
		case []any:
			for i, e := range v {
				find(fmt.Sprintf("%s/%d", ptr, i), e)
			}
		}
	}
	find("/paths", doc["paths"])
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	const u = "file:///check/openapi.json"
	if err := c.AddResource(u, root); err != nil {
		return append(problems, err.Error())
	}
	slices.Sort(schemas)
	for _, s := range schemas {
		frag := strings.Split(s, "/")
		for i := range frag {
			frag[i] = url.PathEscape(frag[i])
		}
		if _, err := c.Compile(u + "#" + strings.Join(frag, "/")); err != nil {
			fail("%s: %v", s, err)
		}
	}

	// Path parameters and responses.
	for path, item := range asMap(doc["paths"]) {
		item := asMap(item)
		for _, m := range []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"} {
			op := asMap(item[m])
			if op == nil {
				continue
			}
			declared := map[string]bool{}
			for _, p := range append(asSlice(item["parameters"]), asSlice(op["parameters"])...) {
				p := asMap(p)
				if ref, ok := p["$ref"].(string); ok {
					p = asMap(lookup(root, ref[1:]))
				}
				if p["in"] == "path" {
					if p["required"] != true {
						fail("%s %s: path parameter %v is not required", m, path, p["name"])
					}
					declared[p["name"].(string)] = true
				}
			}
			var inTemplate []string
			for _, seg := range strings.Split(path, "/") {
				if strings.HasPrefix(seg, "{") {
					inTemplate = append(inTemplate, strings.Trim(seg, "{}"))
				}
			}
			for _, n := range inTemplate {
				if !declared[n] {
					fail("%s %s: template parameter %s has no path parameter", m, path, n)
				}
			}
			for _, n := range slices.Sorted(maps.Keys(declared)) {
				if !slices.Contains(inTemplate, n) {
					fail("%s %s: path parameter %s is not in the template", m, path, n)
				}
			}
			resps := asMap(op["responses"])
			if len(resps) == 0 {
				fail("%s %s: no responses", m, path)
			}
			for st, r := range resps {
				if _, ref := asMap(r)["$ref"]; ref {
					continue
				}
				if d, _ := asMap(r)["description"].(string); d == "" {
					fail("%s %s: response %s has no description", m, path, st)
				}
			}
		}
	}
	slices.Sort(problems)
	return problems
}

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }
func asSlice(v any) []any        { s, _ := v.([]any); return s }
func esc(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// lookup resolves a JSON pointer; nil when it does not.
func lookup(root any, ptr string) any {
	cur := root
	for _, tok := range strings.Split(ptr, "/")[1:] {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		if cur, ok = m[tok]; !ok {
			return nil
		}
	}
	return cur
}

// TestCheckDocumentCatches proves that the offline stand-in for the OpenAPI
// schema rejects broken documents.
func TestCheckDocumentCatches(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"dangling ref", `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{},
			"components":{"schemas":{"A":{"$ref":"#/components/schemas/B"}}}}`, `"#/components/schemas/B" does not resolve`},
		{"bad schema", `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{},
			"components":{"schemas":{"A":{"type":"objekt"}}}}`, `/components/schemas/A`},
		{"undeclared path parameter", `{"openapi":"3.1.0","info":{"title":"t","version":"1"},
			"paths":{"/a/{id}":{"get":{"responses":{"200":{"description":"ok"}}}}}}`, `template parameter id has no path parameter`},
		{"no responses", `{"openapi":"3.1.0","info":{"title":"t","version":"1"},
			"paths":{"/a":{"get":{"responses":{}}}}}`, `no responses`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Join(openAPIProblems([]byte(tt.doc)), "\n")
			if !strings.Contains(got, tt.want) {
				t.Errorf("problems = %q, want one containing %q", got, tt.want)
			}
		})
	}
}
