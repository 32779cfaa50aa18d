package openapi_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/openapi"
)

// BenchmarkBuild500 builds the document of 500 operations, each with path,
// query and header parameters, a body, three responses and $defs (one
// shared by all, one of its own). Target: under 50 ms per build.
func BenchmarkBuild500(b *testing.B) {
	ops := benchOperations(500)
	if _, err := openapi.Build(ops, openapi.Options{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := openapi.Build(ops, openapi.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidate500 checks the document of BenchmarkBuild500, as Merge
// does once at load.
func BenchmarkValidate500(b *testing.B) {
	doc, err := openapi.Build(benchOperations(500), openapi.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := doc.Validate(); err != nil {
			b.Fatal(err)
		}
	}
}

// benchOperations generates n operations.
func benchOperations(n int) []openapi.Route {
	ops := make([]openapi.Route, n)
	for i := range ops {
		c := &abi.Contract{
			Summary: fmt.Sprintf("Operation %d", i),
			Tags:    []string{fmt.Sprintf("group%d", i%10)},
			Request: &abi.Request{
				Params: []byte(`{"type": "object", "required": ["id"], "properties": {"id": {"type": "integer", "minimum": 1, "description": "The id."}}}`),
				Query: []byte(`{"type": "object", "required": ["q"], "properties": {
					"q": {"type": "string", "minLength": 1}, "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
					"sort": {"enum": ["asc", "desc"]}}}`),
				Headers: []byte(`{"type": "object", "properties": {"x-tenant": {"type": "string"}, "authorization": {"type": "string"}}}`),
				Body:    &abi.Body{Schema: []byte(fmt.Sprintf(`{"$ref": "#/$defs/Item%d"}`, i))},
			},
			Responses: map[string]*abi.Response{
				"200": {Description: "The item", Schema: []byte(fmt.Sprintf(`{"$ref": "#/$defs/Item%d"}`, i))},
				"404": {Description: "No such item", Schema: []byte(`{"$ref": "#/$defs/Problem"}`)},
				"400": {Description: "Bad", Schema: []byte(`{"$ref": "#/$defs/Problem"}`)},
			},
		}
		defs := map[string][]byte{
			fmt.Sprintf("Item%d", i): []byte(`{"type": "object", "required": ["id", "name"], "properties": {
				"id": {"type": "integer"}, "name": {"type": "string", "maxLength": 100},
				"tags": {"type": "array", "items": {"type": "string"}}, "problem": {"$ref": "#/$defs/Problem"}}}`),
			"Problem": []byte(`{"type": "object", "properties": {"message": {"type": "string"}}}`),
		}
		op := openapi.Route{
			Method:   "POST",
			Path:     fmt.Sprintf("/api/group%d/items%d/{id}", i%10, i),
			File:     fmt.Sprintf("server/api/group%d/items%d/[id].post.wasm", i%10, i),
			Contract: c,
		}
		op.Defs = make(map[string]json.RawMessage, len(defs))
		for k, v := range defs {
			op.Defs[k] = v
		}
		ops[i] = op
	}
	return ops
}

// BenchmarkMarshal500 encodes the document of BenchmarkBuild500, with
// MarshalIndent (as the host serves it) and with encoding/json.
func BenchmarkMarshal500(b *testing.B) {
	doc, err := openapi.Build(benchOperations(500), openapi.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("MarshalIndent", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := doc.MarshalIndent(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(doc); err != nil {
				b.Fatal(err)
			}
		}
	})
}
