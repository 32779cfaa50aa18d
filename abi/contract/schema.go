package contract

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaJSON is contract.schema.json: the JSON Schema (draft 2020-12) of the
// contract format of docs/spec.md §3, which [Parse] enforces before its own
// rules. Its $id is
// https://raw.githubusercontent.com/wasmendpoints/endpoints/main/abi/contract/contract.schema.json;
// editors can associate it with contract files to check them as they are
// written.
//
// # Notes
//
//   - Every embedded schema (request parts, bodies, responses, response
//     headers, $defs) is checked against the JSON Schema 2020-12
//     meta-schema, which jsonschema/v6 ships: compiling needs no network.
//   - The schema cannot express every rule; see [Parse] for the others.
//   - A contract may not carry a "$schema" key: the format has none.
//   - Callers must not modify the slice.
//
//go:embed contract.schema.json
var SchemaJSON []byte

// schemaID is the $id of contract.schema.json, read from the file itself.
var schemaID = sync.OnceValue(func() string {
	var head struct {
		ID string `json:"$id"`
	}
	if err := json.Unmarshal(SchemaJSON, &head); err != nil {
		return ""
	}
	return head.ID
})

// compiled holds the compiled contract schema and its decoded document, the
// latter to look up keyword values (allowed keys, descriptions) when an error
// is explained.
type compiled struct {
	schema *jsonschema.Schema
	doc    any
}

// compiledSchema compiles contract.schema.json once, on first use. The error
// is only possible if the embedded file is broken, which the tests rule out.
var compiledSchema = sync.OnceValues(func() (*compiled, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(SchemaJSON))
	if err != nil {
		return nil, fmt.Errorf("contract: contract.schema.json: %w", err)
	}
	id := schemaID()
	if id == "" {
		return nil, errors.New("contract: contract.schema.json: no $id")
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(offlineLoader{})
	if err := c.AddResource(id, doc); err != nil {
		return nil, fmt.Errorf("contract: contract.schema.json: %w", err)
	}
	s, err := c.Compile(id)
	if err != nil {
		return nil, fmt.Errorf("contract: contract.schema.json: %w", err)
	}
	return &compiled{schema: s, doc: doc}, nil
})

// offlineLoader refuses every URL: the contract schema references only
// itself and the draft 2020-12 meta-schemas built into jsonschema/v6, so
// compiling must never reach for the network or the file system.
type offlineLoader struct{}

// Load implements [jsonschema.URLLoader].
func (offlineLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("contract schema refers to %s, which is not built in", url)
}
