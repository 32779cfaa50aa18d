package endpoints

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/wasmendpoints/endpoints/abi"
)

// Runtime is the runtime declaration of an app: settings that apply to
// every route, declared in one module built to server/endpoints/runtime.wasm.
// Its source is a main package with the directive
//
//	//endpoints:runtime
//
// instead of //endpoints:route, which calls [DeclareRuntime] from init.
type Runtime struct {
	// OpenAPI adds to the generated OpenAPI document. The zero value adds
	// nothing.
	OpenAPI OpenAPI
	// ResponseValidation is the app's policy for checking answers against
	// their contracts: "always", "development" or "never". endpoints.json
	// and host options take precedence. Empty leaves the host's default:
	// "development".
	ResponseValidation string
	// OnValidationError is the app-wide validation-error hook: it may
	// answer a request that failed validation (400), its media type (415)
	// or negotiation (406) on any endpoint whose own hook declined or
	// that has none ([OnValidationError] says how). Nil leaves the
	// default bodies.
	//
	//	OnValidationError: func(f *endpoints.ValidationFailure) (endpoints.Reply, bool) {
	//		return endpoints.Respond(f.Status, Problem{Title: "Bad request", Status: f.Status}).
	//			WithHeader("Content-Type", "application/problem+json"), true
	//	},
	OnValidationError func(f *ValidationFailure) (Reply, bool)
}

// OpenAPI holds the two ways to add to the generated document (docs/spec.md §7).
// With neither, the document is exactly what the contracts describe.
type OpenAPI struct {
	// Document is an OpenAPI fragment deep-merged into the generated
	// document: objects merge, arrays and scalars replace, so it adds and
	// never removes generated operations. Any value that encodes to a JSON
	// object: a map, a struct, a json.RawMessage.
	//
	//	Document: map[string]any{
	//		"servers": []any{map[string]any{"url": "https://api.example.com"}},
	//	},
	Document any
	// Extend runs last, on the merged document, and edits it in place: for
	// what a fragment cannot say, such as security on chosen operations.
	Extend func(doc Document) error
}

// Document is an OpenAPI document as decoded JSON, for [OpenAPI.Extend]:
// objects are map[string]any, arrays []any, and numbers [json.Number],
// so that they are written back as they were (the schema of an int64
// says maximum 9223372036854775807, which a float64 cannot hold).
type Document map[string]any

// Operations calls fn for every operation of the document, in path order
// then method order; op is the operation object itself, so fn can change it.
//
//	doc.Operations(func(path, method string, op map[string]any) {
//		if method == "post" {
//			op["security"] = []any{map[string]any{"bearer": []any{}}}
//		}
//	})
func (d Document) Operations(fn func(path, method string, op map[string]any)) {
	paths, _ := d["paths"].(map[string]any)
	keys := make([]string, 0, len(paths))
	for p := range paths {
		keys = append(keys, p)
	}
	slices.Sort(keys)
	methods := []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}
	for _, p := range keys {
		item, _ := paths[p].(map[string]any)
		for _, m := range methods {
			if op, ok := item[m].(map[string]any); ok {
				fn(p, m, op)
			}
		}
	}
}

// runtimeDecl is the declaration of this module, if it is the runtime
// declaration module.
var runtimeDecl struct {
	set  bool
	decl Runtime
	json []byte
}

// DeclareRuntime declares the app's runtime settings. Call it once, from
// init, in the module whose source carries //endpoints:runtime.
func DeclareRuntime(r Runtime) {
	if runtimeDecl.set {
		panic("endpoints: DeclareRuntime called twice; a runtime module declares once")
	}
	if r.OnValidationError != nil && reg.hook != nil {
		panic("endpoints: DeclareRuntime: Runtime.OnValidationError in a module that called OnValidationError: a module has one validation-error hook")
	}
	out := abi.Runtime{ResponseValidation: r.ResponseValidation, OnValidationError: r.OnValidationError != nil}
	if r.OpenAPI.Document != nil || r.OpenAPI.Extend != nil {
		out.OpenAPI = &abi.RuntimeOpenAPI{Extend: r.OpenAPI.Extend != nil}
		if r.OpenAPI.Document != nil {
			b, err := json.Marshal(r.OpenAPI.Document)
			if err != nil {
				panic(fmt.Sprintf("endpoints: DeclareRuntime: OpenAPI.Document: %v", err))
			}
			if len(b) == 0 || b[0] != '{' {
				panic("endpoints: DeclareRuntime: OpenAPI.Document must encode to a JSON object")
			}
			out.OpenAPI.Document = b
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		panic(fmt.Sprintf("endpoints: DeclareRuntime: %v", err))
	}
	runtimeDecl.set, runtimeDecl.decl, runtimeDecl.json = true, r, b
}

// runtimeJSON returns the declaration the endpoints_runtime export hands
// out; nil when this module declares none.
func runtimeJSON() []byte { return runtimeDecl.json }

// extendOpenAPI is the body of the endpoints_openapi_extend export: read
// the document, run Extend, write the document back.
func extendOpenAPI() int32 {
	if err := runExtend(); err != nil {
		hostLog(abi.LogError, "endpoints: openApi.extend: "+err.Error())
		return 1
	}
	return 0
}

func runExtend() (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panicked: %v", v)
		}
	}()
	extend := runtimeDecl.decl.OpenAPI.Extend
	if extend == nil {
		return errors.New("no Extend function was declared")
	}
	raw, err := readEnvelope()
	if err != nil {
		return err
	}
	var doc Document
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return fmt.Errorf("decoding the document: %w", err)
	}
	if dec.More() {
		return errors.New("decoding the document: data after the document")
	}
	if err := extend(doc); err != nil {
		return err
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("encoding the document: %w", err)
	}
	return check(abi.ImportResponseWrite, responseWrite(out))
}
