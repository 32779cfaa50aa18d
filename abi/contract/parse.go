// Package contract parses and checks the contract a route module exports
// (docs/spec.md §3): the JSON Schema of the format, [SchemaJSON], and [Parse],
// which enforces it together with the rules a schema cannot express.
//
//	c, err := contract.Parse("server/api/users/[id].get.wasm", data, contract.Options{Method: "GET"})
//
// The result is an [abi.Contract]. A contract that fails is reported whole,
// as an [*Error]: every [Issue], each with a JSON pointer, the rule broken
// and what was expected, so a module author fixes everything in one pass:
//
//	server/api/users/[id].get.wasm: contract: /request/query/properties/limit/minimum: type: got string, want number
//	server/api/users/[id].get.wasm: contract: /respones: additionalProperties: unknown key "respones" at the top level (did you mean "responses"?); allowed: ...
package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wasmendpoints/endpoints/abi"
)

// Options are what [Parse] needs to know about the module beyond its
// contract.
type Options struct {
	// Method is the method of the route's file-name suffix in upper case
	// ("GET" for users/[id].get.wasm; lower case is accepted too), or "" for
	// a module without suffix, whose contract may declare "methods".
	// Defaults to "".
	Method string
}

// Parse decodes and checks the contract data exported by the module file.
// It returns the contract, or an [*Error] listing every issue found:
//
//   - malformed JSON ([RuleJSON], with line and column);
//   - every failure against contract.schema.json ([SchemaJSON]): unknown keys,
//     wrong types, statuses that are not three digits, embedded schemas that
//     are not valid JSON Schema 2020-12; the Rule is the keyword that failed;
//   - the rules of this package (Rule... constants): the +json profile of
//     contentType, media types, methods against the file-name suffix,
//     idempotency on safe methods, $ref to missing $defs, object schemas for
//     request params, query and headers, lower-case header names, body with
//     exactly one of schema or content.
//
// For example:
//
//	c, err := contract.Parse("server/api/users/[id].get.wasm", data, contract.Options{Method: "GET"})
//
// # Notes
//
//   - Parse returns a plain error, not an [*Error], only for mistakes that
//     are not the module's: an opts.Method that is not a method of docs/spec.md
//     §2, or a broken contract.schema.json.
//   - A response status that is not three digits from 100 to 599 is
//     reported with Rule "pattern" at the key ("/responses/2xx").
//   - A "$ref": "#/$defs/Name" may name a def of the embedded schema itself,
//     of its entry in methods, or of the contract.
//   - The request params are not checked against the route's parameters
//     here; the host does that, knowing the route.
//   - Parse is safe for concurrent use; the schema is compiled once.
func Parse(file string, data []byte, opts Options) (*abi.Contract, error) {
	method := strings.ToUpper(opts.Method)
	if method != "" && !slices.Contains(methodNames, method) {
		return nil, fmt.Errorf("%s: contract: unknown method %q in Options; want one of %s or \"\"",
			file, opts.Method, strings.Join(methodNames, ", "))
	}
	sch, err := compiledSchema()
	if err != nil {
		return nil, err
	}

	var raw json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, &Error{File: file, Issues: []Issue{syntaxIssue(data, err)}}
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, &Error{File: file, Issues: []Issue{syntaxIssue(data, err)}}
	}

	var issues []Issue
	if err := sch.schema.Validate(doc); err != nil {
		var verr *jsonschema.ValidationError
		if !errors.As(err, &verr) {
			return nil, fmt.Errorf("%s: contract: %w", file, err)
		}
		issues = append(issues, explainSchemaError(verr)...)
	}
	var c checker
	c.contract(doc, method)
	issues = append(issues, c.issues...)
	if len(issues) > 0 {
		return nil, &Error{File: file, Issues: sortIssues(issues)}
	}

	var out abi.Contract
	if err := json.Unmarshal(data, &out); err != nil {
		// The schema admits only what abi.Contract can hold; this is a bug
		// in contract.schema.json, reported rather than hidden.
		return nil, &Error{File: file, Issues: []Issue{{Rule: RuleJSON, Message: err.Error()}}}
	}
	return &out, nil
}

// syntaxIssue reports malformed JSON with the line and column (1-based, in
// characters) where decoding stopped.
func syntaxIssue(data []byte, err error) Issue {
	msg := err.Error()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		at := int(se.Offset)
		// The offset counts the offending byte; at the end of the input
		// there is none, and the position is just past the last byte.
		if at > 0 && at <= len(data) && !strings.Contains(msg, "end of JSON input") {
			at--
		}
		line, col := position(data, min(at, len(data)))
		msg = fmt.Sprintf("line %d, column %d: %s", line, col, msg)
	}
	return Issue{Rule: RuleJSON, Message: msg}
}

// position converts a byte offset into a 1-based line and column, the column
// counted in characters.
func position(data []byte, offset int) (line, col int) {
	before := data[:offset]
	line = 1 + bytes.Count(before, []byte("\n"))
	if i := bytes.LastIndexByte(before, '\n'); i >= 0 {
		before = before[i+1:]
	}
	return line, 1 + utf8.RuneCount(before)
}
