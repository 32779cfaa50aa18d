// Package openapi builds the OpenAPI 3.1 (or 3.2) document of an
// Endpoints app from the contracts of its route modules (docs/spec.md §7),
// and models OpenAPI documents so that an application can add to the
// result.
//
// The host hands [Build] one [Route] per method of each route module, with the
// parsed routes configuration ([ParseRoutesConfig]); the result is a
// [Document] that a runtime declaration deep-merges a fragment into
// ([Document.Merge]) and that is served as [Document.MarshalIndent]
// encodes it:
//
//	cfg, err := openapi.ParseRoutesConfig("server/routes.config.json", data)
//	...
//	doc, err := openapi.Build(ops, openapi.Options{Title: "Users API", Version: "1.0.0", Routes: cfg})
//	...
//	err = doc.Merge(fragment)
//	...
//	body, err := doc.MarshalIndent()
//
// # The document
//
// For every operation the document holds what its contract declares
// (parameters, request body, responses, summary, tags), the responses the
// routes configuration adds to it, and the responses the host itself makes
// for it (400, 406, 415), each described by a component schema that
// matches the host's error bodies exactly. The $defs of every contract are
// lifted into components/schemas. The schema of a stream
// (text/event-stream, JSON Lines) describes one item: "itemSchema" in an
// OpenAPI 3.2 document ([Version32]), the [ItemSchemaExtension] beside a
// string "schema" in a 3.1 one ([Version31], the default). Plain routes,
// modules without a contract, are operations that validate nothing,
// described by the routes configuration's "plainRoutes" ([PlainRoute]).
// See [Build] for every rule.
//
// # Determinism
//
// The same contracts give the same bytes: Build does not depend on the
// order of its operations, and [Document.MarshalIndent] sorts the members
// of every map and raw JSON object. The document can be compared, cached
// with an ETag and committed as a golden file.
//
// # Lossless model
//
// Every type of the model keeps the members it does not name in its Extra
// field ("x-" extensions included), so a document decoded with
// [ParseDocument], changed by an openApi.extend hook or merged with any
// fragment is encoded without losing anything. Schemas are raw JSON
// (JSON Schema 2020-12, which OpenAPI 3.1 uses as it is): like examples,
// links, callbacks and the members of Extra, they are
// [encoding/json.RawMessage] values, the JSON text as it was given.
// Encode and decode a document with [Document.MarshalIndent] and
// [ParseDocument], not with encoding/json, which does not know that the
// members of Extra belong to the object that holds it.
//
// # Checking
//
// [Document.Validate] checks what makes a document invalid: references
// that do not resolve, schemas that do not compile, path parameters that
// do not match their template, operations without responses. Merge runs it
// on its result.
package openapi
