package document

import (
	stdjson "encoding/json"
	"errors"
	"fmt"

	"github.com/go-json-experiment/json"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/openapi"
)

// ProblemsExtension is the member of the served OpenAPI document that
// lists, in Development, what the document was built without because it
// could not be built whole (docs/spec.md §9): one object per problem,
// with the file (and, for a bundle's route left out alone, the route), the
// field of it the problem is about, and the error.
const ProblemsExtension = "x-endpoints-problems"

// LeftOutError is a part of the app left out of a development version
// because the OpenAPI document could not be built with it.
type LeftOutError struct {
	// File is the route module, or the runtime declaration
	// (abi.RuntimeModule).
	File string
	// Route is the route of a bundle left out alone, as
	// "GET /api/users/:id", while the bundle's other routes serve; empty
	// when the whole file is left out.
	Route string
	// Field is what of it the problem is about: "$defs", "operationId",
	// "contract" (see [ContractField]), or "openApi" for the runtime
	// declaration.
	Field string
	// Err is why the document could not be built with it.
	Err error
}

func (e *LeftOutError) Error() string {
	if e.File == abi.RuntimeModule {
		return fmt.Sprintf("%s: /%s: left out (its document fragment and extend step; the security they declare is not enforced) until the document builds with it: %v", e.File, e.Field, e.Err)
	}
	name := e.File
	if e.Route != "" {
		name += " (" + e.Route + ")"
	}
	return fmt.Sprintf("%s: %s: not served until the OpenAPI document builds with it: %v", name, e.Field, e.Err)
}

// Unwrap returns why the document could not be built with it.
func (e *LeftOutError) Unwrap() error { return e.Err }

// ContractField is the member of a route's contract a document error is
// about: "$defs" for a schema that conflicts with another's,
// "operationId" for an operation or its id declared twice, else
// "contract".
func ContractField(err error) string {
	switch {
	case errors.Is(err, openapi.ErrSchemaConflict):
		return "$defs"
	case errors.Is(err, openapi.ErrDuplicateOperationID), errors.Is(err, openapi.ErrDuplicateOperation):
		return "operationId"
	}
	return "contract"
}

// NoteLeftOut lists in doc (its [ProblemsExtension] member) the
// *LeftOutError among problems, for the docs page and every reader of the
// development document; the others are not listed. It changes nothing
// when none is one.
func NoteLeftOut(doc *openapi.Document, problems []error) error {
	type problem struct {
		File  string `json:"file"`
		Route string `json:"route,omitempty"`
		Field string `json:"field"`
		Error string `json:"error"`
	}
	var list []problem
	for _, p := range problems {
		if lo := (*LeftOutError)(nil); errors.As(p, &lo) {
			list = append(list, problem{File: lo.File, Route: lo.Route, Field: lo.Field, Error: p.Error()})
		}
	}
	if len(list) == 0 {
		return nil
	}
	b, err := json.Marshal(list, json.Deterministic(true))
	if err != nil {
		return fmt.Errorf("encoding %s: %w", ProblemsExtension, err)
	}
	if doc.Extra == nil {
		doc.Extra = map[string]stdjson.RawMessage{}
	}
	doc.Extra[ProblemsExtension] = b
	return nil
}
