package routes

import (
	"fmt"
	"math"
	"net/http"
	"sync"

	"github.com/wasmendpoints/endpoints/internal/jsonvalue"
	"github.com/wasmendpoints/endpoints/internal/validation"
	"github.com/wasmendpoints/endpoints/openapi"
)

// CheckAnswer returns what is wrong with an answer of the operation (its
// status, headers and buffered body) against the statuses the contract
// and the routes configuration declare, or nil when nothing is.
//
// A 400 in the shape of the framework's own Validation Error body passes
// for an operation that declares a request part, as the OpenAPI document
// lists that response for it (docs/spec.md §7): the document and the check
// agree on what the operation may answer. Guests send it when they
// refuse a value the host passed but their types cannot hold (the Go
// SDK's inputs), and hooks that keep the default body. So do a 500 and a
// 503 in the shape of the host's own (openapi.SchemaInternalServerError,
// openapi.SchemaServiceUnavailable, the 503 with Retry-After), which the
// document lists for every operation: a guest may answer as the host
// would.
func (op *Operation) CheckAnswer(status int, header http.Header, body []byte) []validation.Issue {
	issues := op.checkDeclared(status, header, body)
	if issues == nil || len(body) == 0 {
		return issues
	}
	framework := op.ValidationError
	if status != http.StatusBadRequest {
		framework = hostAnswers()[status]
	}
	if status == http.StatusServiceUnavailable && header.Get("Retry-After") == "" {
		// The document's 503 requires it, as the host always sends it.
		framework = nil
	}
	if framework != nil {
		if v, _, err := jsonvalue.Decode(body, answerLimits); err == nil && framework.Validate(v) == nil {
			return nil
		}
	}
	return issues
}

// hostAnswers holds the schemas of the host's own 500 and 503 bodies,
// compiled once.
var hostAnswers = sync.OnceValue(func() map[int]*validation.Schema {
	m := map[int]*validation.Schema{}
	for status, name := range map[int]string{http.StatusInternalServerError: openapi.SchemaInternalServerError, http.StatusServiceUnavailable: openapi.SchemaServiceUnavailable} {
		raw, _ := openapi.FrameworkSchema(name)
		comp, err := validation.NewContract("framework "+name, raw)
		if err != nil {
			panic(fmt.Sprintf("routes: the framework schema %s: %v", name, err))
		}
		if m[status], err = comp.Compile(""); err != nil {
			panic(fmt.Sprintf("routes: the framework schema %s: %v", name, err))
		}
	}
	return m
})

// answerLimits bound the decoding of an answer's body only by depth: its
// size is bounded by limits.responseBytes as the guest writes it.
var answerLimits = jsonvalue.Limits{MaxDepth: jsonvalue.MaxDepthLimit, MaxValues: math.MaxInt}

// declareHint ends the issue of an undeclared status: what to do about it.
const declareHint = ": declare it in the operation's responses (Go: Operation.Responses) or, for many routes, in server/routes.config.json"

// checkDeclared is CheckAnswer without the framework's 400.
func (op *Operation) checkDeclared(status int, header http.Header, body []byte) []validation.Issue {
	d, ok := op.Responses[status]
	if !ok {
		return []validation.Issue{{Path: []any{}, Message: fmt.Sprintf("status %d is not declared in the contract (declared: %s)"+declareHint, status, op.Statuses)}}
	}
	if issues := d.CheckHeaders(status, header); issues != nil {
		return issues
	}
	if d.Schema == nil {
		return nil
	}
	if len(body) == 0 {
		return []validation.Issue{{Path: []any{}, Message: fmt.Sprintf("the body is empty, but the contract declares a JSON body for status %d", status)}}
	}
	v, _, err := jsonvalue.Decode(body, answerLimits)
	if err != nil {
		issue := validation.DecodeIssue(err)
		issue.Message = "the body is not valid JSON: " + issue.Message
		return []validation.Issue{issue}
	}
	return d.Schema.Validate(v)
}
