package runtimedecl

import (
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
)

func TestDecode(t *testing.T) {
	all := func(string) bool { return true }
	none := func(string) bool { return false }
	for _, tc := range []struct {
		name    string
		raw     string
		exports func(string) bool
		wantErr string // empty: the declaration decodes
		check   func(abi.Runtime) bool
	}{
		{name: "empty", raw: ``, exports: all, wantErr: "returned no declaration"},
		{name: "unknown key", raw: `{"openApi": {}, "hooks": true}`, exports: all, wantErr: "allowed keys"},
		{name: "not JSON", raw: `{`, exports: all, wantErr: "runtime declaration: "},
		{name: "response validation of no kind", raw: `{"responseValidation": "sometimes"}`, exports: all, wantErr: `/responseValidation: "sometimes" is not one of`},
		{name: "document not an object", raw: `{"openApi": {"document": [1]}}`, exports: all, wantErr: "/openApi/document: must be a JSON object"},
		{name: "extend without its export", raw: `{"openApi": {"extend": true}}`, exports: none, wantErr: `does not export "` + abi.ExportOpenAPIExtend + `"`},
		{name: "hook without its export", raw: `{"onValidationError": true}`, exports: none, wantErr: `does not export "` + abi.ExportOnValidationError + `"`},
		{name: "nothing declared", raw: `{}`, exports: none, check: func(d abi.Runtime) bool { return d.OpenAPI == nil && !d.OnValidationError }},
		{name: "response validation", raw: `{"responseValidation": "development"}`, exports: none, check: func(d abi.Runtime) bool { return d.ResponseValidation == "development" }},
		{name: "fragment and extend", raw: `{"openApi": {"document": {"info": {"title": "t"}}, "extend": true}}`, exports: all, check: func(d abi.Runtime) bool {
			return d.OpenAPI != nil && d.OpenAPI.Extend && strings.Contains(string(d.OpenAPI.Document), `"title"`)
		}},
		{name: "hook", raw: `{"onValidationError": true}`, exports: func(name string) bool { return name == abi.ExportOnValidationError }, check: func(d abi.Runtime) bool { return d.OnValidationError }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			decl, err := decode([]byte(tc.raw), tc.exports)
			if tc.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), abi.RuntimeModule+": ") || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("decode error = %v, want one naming %s and containing %q", err, abi.RuntimeModule, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if !tc.check(decl) {
				t.Errorf("decode = %+v, not what %s declares", decl, tc.raw)
			}
		})
	}
}

// TestNilModule: an app without a runtime declaration has a nil *Module,
// which declares nothing, has no pool and closes nothing.
func TestNilModule(t *testing.T) {
	var rm *Module
	if rm.HasHook() || rm.HookPool() != nil || rm.LivePool() != nil || rm.Declaration().OpenAPI != nil {
		t.Error("a nil Module declares something")
	}
	rm.Release(t.Context())
	rm.Close(t.Context())
}
