package document

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/openapi"
)

// TestFinish: the runtime declaration's fragment and extend step, then
// the embedder's fragment and Extend, in that order, each failure named.
func TestFinish(t *testing.T) {
	// Each step sets info.description to its name: the last one wins.
	extendTo := func(desc string) func(context.Context, []byte) ([]byte, error) {
		return func(_ context.Context, b []byte) ([]byte, error) {
			if !strings.Contains(string(b), `"runtime fragment"`) {
				t.Errorf("the extend step got %s, want the document with the runtime fragment merged", b)
			}
			return []byte(`{"openapi": "3.1.0", "info": {"title": "T", "version": "1", "description": "` + desc + `"}, "paths": {}}`), nil
		}
	}
	fragment := func(desc string) []byte { return []byte(`{"info": {"description": "` + desc + `"}}`) }
	for _, tt := range []struct {
		name     string
		add      Additions
		wantDesc string
		wantErr  string
	}{
		{"nothing added", Additions{}, "routes", ""},
		{"the runtime fragment", Additions{Runtime: &abi.RuntimeOpenAPI{Document: fragment("runtime fragment")}}, "runtime fragment", ""},
		{"the runtime extend step after its fragment", Additions{Runtime: &abi.RuntimeOpenAPI{Document: fragment("runtime fragment"), Extend: true}, Extend: extendTo("runtime extend")}, "runtime extend", ""},
		{"the embedder's fragment after the runtime's", Additions{Runtime: &abi.RuntimeOpenAPI{Document: fragment("runtime fragment"), Extend: true}, Extend: extendTo("runtime extend"),
			Embedder: config.OpenAPI{Document: fragment("embedder fragment")}}, "embedder fragment", ""},
		{"the embedder's Extend last", Additions{Embedder: config.OpenAPI{Document: fragment("embedder fragment"), Extend: func(d *openapi.Document) error {
			d.Info.Description = "embedder extend"
			return nil
		}}}, "embedder extend", ""},
		{"a runtime extend step that fails", Additions{Runtime: &abi.RuntimeOpenAPI{Extend: true}, Extend: func(context.Context, []byte) ([]byte, error) { return nil, errors.New("trapped") }}, "", "trapped"},
		{"a runtime extend step that writes no document", Additions{Runtime: &abi.RuntimeOpenAPI{Extend: true}, Extend: func(context.Context, []byte) ([]byte, error) { return []byte("nope"), nil }},
			"", abi.RuntimeModule + ": openApi.extend wrote a document that does not decode"},
		{"an embedder's Extend that fails", Additions{Embedder: config.OpenAPI{Extend: func(*openapi.Document) error { return errors.New("no") }}}, "", "Options.OpenAPI.Extend: no"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc := &openapi.Document{OpenAPI: openapi.Version31, Info: openapi.Info{Title: "T", Version: "1", Description: "routes"}, Paths: map[string]*openapi.PathItem{"/a": {}}}
			d, err := Finish(context.Background(), doc, tt.add)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Finish error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.Doc.Info.Description != tt.wantDesc {
				t.Errorf("description = %q, want %q", d.Doc.Info.Description, tt.wantDesc)
			}
			if !strings.Contains(string(d.JSON), `"description": "`+tt.wantDesc+`"`) {
				t.Errorf("the served bytes do not hold the final document:\n%s", d.JSON)
			}
		})
	}
}
