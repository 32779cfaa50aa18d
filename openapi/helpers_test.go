package openapi_test

import (
	"strings"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/abi/contract"
	"github.com/wasmendpoints/endpoints/openapi"
)

// parseContract parses a contract the way the host does, so that every
// contract of the tests is one the host would load.
func parseContract(t testing.TB, file, method, data string) *abi.Contract {
	t.Helper()
	c, err := contract.Parse(file, []byte(data), contract.Options{Method: method})
	if err != nil {
		t.Fatalf("contract of %s: %v", file, err)
	}
	return c
}

// op builds an Operation from a contract written as JSON.
func op(t testing.TB, method, path, file, contractJSON string) openapi.Route {
	t.Helper()
	c := parseContract(t, file, method, contractJSON)
	return openapi.Route{Method: method, Path: path, File: file, Contract: c, Defs: c.Defs}
}

// build builds a document and checks it as every test does: it validates,
// and encodes the same way twice.
func build(t testing.TB, ops []openapi.Route, opts openapi.Options) *openapi.Document {
	t.Helper()
	doc, err := openapi.Build(ops, opts)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	checkDocument(t, doc)
	return doc
}

// at returns the member of the encoded document at a JSON pointer, or ""
// when there is none.
func at(t testing.TB, doc *openapi.Document, ptr string) string {
	t.Helper()
	data, err := doc.MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}
	v := jsontext.Value(data)
	if ptr != "" {
		for _, tok := range strings.Split(ptr[1:], "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			var m map[string]jsontext.Value
			if v.Kind() == '[' {
				var a []jsontext.Value
				if err := jsonv2.Unmarshal(v, &a); err != nil {
					t.Fatal(err)
				}
				m = map[string]jsontext.Value{}
				for i, e := range a {
					m[itoa(i)] = e
				}
			} else if err := jsonv2.Unmarshal(v, &m); err != nil {
				return ""
			}
			next, ok := m[tok]
			if !ok {
				return ""
			}
			v = next
		}
	}
	return canon(t, string(v))
}

func itoa(i int) string {
	b, _ := jsonv2.Marshal(i)
	return string(b)
}

// canon is the canonical form of a JSON text, for comparisons; "" stays "".
func canon(t testing.TB, s string) string {
	t.Helper()
	if s == "" {
		return ""
	}
	v := jsontext.Value(s).Clone()
	if err := v.Canonicalize(); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	return string(v)
}

// wantJSON fails unless got and want are the same JSON.
func wantJSON(t testing.TB, what, got, want string) {
	t.Helper()
	if w := canon(t, want); got != w {
		t.Errorf("%s:\ngot  %s\nwant %s", what, got, w)
	}
}

// hostWideRefs are the responses every operation without another answer
// of their status refers to: the host's 500 and 503.
const hostWideRefs = `"500": {"$ref": "#/components/responses/EndpointsInternalServerError"}, "503": {"$ref": "#/components/responses/EndpointsServiceUnavailable"}`

// hostWideSchemas are the component schemas those shared responses use.
var hostWideSchemas = []string{"EndpointsInternalServerError", "EndpointsServiceUnavailable", "EndpointsValidationIssue"}

// withHostWide returns want, the JSON of an operation's responses, with
// the references to the host's 500 and 503 the operation gets when it
// declares neither status.
func withHostWide(want string) string {
	want = strings.TrimSpace(want)
	return "{" + hostWideRefs + ", " + strings.TrimPrefix(want, "{")
}
