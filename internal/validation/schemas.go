// Package validation compiles the schemas of a contract and validates request
// parts and answers against them: string coercion for path, query and header
// values, schema defaults, and the issue lists of 400 and Response Contract
// Error bodies (docs/spec.md §4 steps 7 and 10).
//
// Everything that depends only on the contract (compiled schemas, coercion
// plans, defaults) is computed once at load; validating a request walks
// those plans and allocates only what it hands to the guest.
package validation

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wasmendpoints/endpoints/internal/jsonvalue"
)

// Contract holds the parsed JSON of one contract, the root against which its
// schemas and their "#/$defs/..." references are resolved.
type Contract struct {
	file     string
	url      string
	doc      any
	compiler *jsonschema.Compiler
}

var resourceSeq atomic.Int64

// NewContract prepares the contract of file for compiling its schemas.
// Formats are asserted (an invalid "email" fails validation, and so does
// 2147483648 for "int32": formats.go), and schemas
// are draft 2020-12 unless they say otherwise.
func NewContract(file string, contractJSON []byte) (*Contract, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(contractJSON))
	if err != nil {
		return nil, fmt.Errorf("%s: contract: %w", file, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	registerRangeFormats(c)
	c.UseLoader(refuseLoader{})
	url := fmt.Sprintf("file:///endpoints/contract-%d.json", resourceSeq.Add(1))
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("%s: contract: %w", file, err)
	}
	return &Contract{file: file, url: url, doc: doc, compiler: c}, nil
}

// ExternalRefError is the error of a contract whose schemas refer to
// anything outside the contract: a file ("file:///etc/passwd", a relative
// "../x.json"), a URL ("https://..."), or a "$schema" that is not a
// meta-schema built into the validator. Such a module fails its load: the
// host never reads a file or the network on a guest's behalf.
type ExternalRefError struct {
	// URL is the reference as resolved against the contract.
	URL string
}

func (e *ExternalRefError) Error() string {
	return fmt.Sprintf("refers to %q, which is outside the contract: a contract's schemas may refer only to the contract itself (\"$ref\": \"#/$defs/Name\"); move the schema into its $defs", e.URL)
}

// refuseLoader refuses every URL the compiler asks for, so compiling a
// contract never touches the filesystem or the network (docs/spec.md §5: guests
// get neither). Only the draft meta-schemas built into jsonschema/v6 and
// the contract itself resolve.
type refuseLoader struct{}

// Load implements jsonschema.URLLoader.
func (refuseLoader) Load(url string) (any, error) { return nil, &ExternalRefError{URL: url} }

// Schema is one compiled schema of the contract with what the host needs to
// coerce and complete values before validating them.
type Schema struct {
	compiled *jsonschema.Schema
	plan     *plan
	// fast is the schema compiled to direct checks (fast.go), or nil when
	// it uses a keyword they do not cover.
	fast *fastNode
}

// Compile compiles the schema at pointer (e.g. "/request/params"); a
// missing pointer gives nil, nil. Errors name the file and pointer.
func (c *Contract) Compile(pointer string) (*Schema, error) {
	raw, ok := lookup(c.doc, pointer)
	if !ok {
		return nil, nil
	}
	sch, err := c.compiler.Compile(c.url + "#" + pointer)
	if err != nil {
		// jsonschema's LoadURLError does not unwrap to the loader's error.
		var load *jsonschema.LoadURLError
		var ext *ExternalRefError
		if errors.As(err, &load) && errors.As(load.Err, &ext) {
			return nil, fmt.Errorf("%s: contract: %s: %w", c.file, pointer, ext)
		}
		return nil, fmt.Errorf("%s: contract: %s: %s", c.file, pointer, strings.ReplaceAll(err.Error(), c.url, "contract"))
	}
	return &Schema{compiled: sch, plan: c.planFor(raw, 0), fast: compileFast(sch)}, nil
}

// canonicalDefault writes the numbers of a default the way the host hands
// numbers on (jsonvalue.CanonicalNumber), so a default written 1.0 reaches
// the guest as 1, as the same number sent by a client would. A number out
// of range is kept as written: the contract's author sees it fail
// validation.
func canonicalDefault(v any) any {
	switch v := v.(type) {
	case json.Number:
		if c, err := jsonvalue.CanonicalNumber(string(v)); err == nil {
			return c
		}
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = canonicalDefault(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = canonicalDefault(e)
		}
		return out
	}
	return v
}

// lookup resolves a JSON pointer in doc.
func lookup(doc any, pointer string) (any, bool) {
	if pointer == "" || pointer == "/" {
		return doc, true
	}
	cur := doc
	for _, tok := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[tok]
			if !ok {
				return nil, false
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v) {
				return nil, false
			}
			cur = v[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// plan is what the host reads from a schema to coerce strings and fill
// defaults: the types it admits, its default, and the plans of its
// properties and items.
type plan struct {
	types      typeSet
	hasDefault bool
	def        any
	props      map[string]*plan
	propOrder  []string
	items      *plan
}

type typeSet uint8

const (
	tString typeSet = 1 << iota
	tInteger
	tNumber
	tBoolean
	tArray
	tObject
	tNull
	tAny = tString | tInteger | tNumber | tBoolean | tArray | tObject | tNull
)

func typeOf(name string) typeSet {
	switch name {
	case "string":
		return tString
	case "integer":
		return tInteger
	case "number":
		return tNumber
	case "boolean":
		return tBoolean
	case "array":
		return tArray
	case "object":
		return tObject
	case "null":
		return tNull
	}
	return 0
}

func typeOfValue(v any) typeSet {
	switch v := v.(type) {
	case string:
		return tString
	case json.Number:
		if _, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return tInteger
		}
		return tNumber
	case bool:
		return tBoolean
	case []any:
		return tArray
	case map[string]any:
		return tObject
	case nil:
		return tNull
	}
	return 0
}

// planFor reads a raw schema: its own keywords, then $ref and the
// allOf/anyOf/oneOf branches, merging what they admit. depth stops runaway
// recursive references.
func (c *Contract) planFor(raw any, depth int) *plan {
	p := &plan{}
	m, ok := raw.(map[string]any)
	if !ok || depth > 32 {
		if b, ok := raw.(bool); ok && !b {
			return p
		}
		p.types = tAny
		return p
	}
	switch t := m["type"].(type) {
	case string:
		p.types = typeOf(t)
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok {
				p.types |= typeOf(s)
			}
		}
	}
	if enum, ok := m["enum"].([]any); ok && p.types == 0 {
		for _, e := range enum {
			p.types |= typeOfValue(e)
		}
	}
	if cv, ok := m["const"]; ok && p.types == 0 {
		p.types = typeOfValue(cv)
	}
	if d, ok := m["default"]; ok {
		p.hasDefault, p.def = true, canonicalDefault(d)
	}
	if props, ok := m["properties"].(map[string]any); ok {
		p.props = map[string]*plan{}
		for name, sub := range props {
			p.props[name] = c.planFor(sub, depth+1)
		}
	}
	if items, ok := m["items"]; ok {
		p.items = c.planFor(items, depth+1)
	}
	merge := func(o *plan, union bool) {
		if union || p.types == 0 {
			p.types |= o.types
		}
		if !p.hasDefault && o.hasDefault {
			p.hasDefault, p.def = true, o.def
		}
		for name, sub := range o.props {
			if p.props == nil {
				p.props = map[string]*plan{}
			}
			if _, ok := p.props[name]; !ok {
				p.props[name] = sub
			}
		}
		if p.items == nil {
			p.items = o.items
		}
	}
	if ref, ok := m["$ref"].(string); ok && strings.HasPrefix(ref, "#/") {
		if target, ok := lookup(c.doc, strings.TrimPrefix(ref, "#")); ok {
			merge(c.planFor(target, depth+1), false)
		}
	}
	// anyOf/oneOf admit the union of their branches' types; allOf
	// narrows, and its first typed branch is taken as the type.
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		if branches, ok := m[kw].([]any); ok {
			for _, b := range branches {
				merge(c.planFor(b, depth+1), kw != "allOf")
			}
		}
	}
	if p.types == 0 {
		p.types = tAny
	}
	for name := range p.props {
		p.propOrder = append(p.propOrder, name)
	}
	sortStrings(p.propOrder)
	return p
}
