package endpoints

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/wasmendpoints/endpoints/abi"
)

// inputError is a request value that the input struct cannot hold though
// the host validated it: its schema allows more than the Go type (a
// schema of [Operation.Request] written by hand, or a host older than
// the derived bounds of numbers.go). It is the client's value that does
// not fit, so the SDK answers 400 like the host does for values that
// fail their schema (see refuseInput), instead of failing the call: a
// failed call is a 500 and costs the instance.
type inputError struct {
	part    string // params, query, headers or body; "" until known
	path    []any  // property names and array indexes within the part
	message string // in the words of the host's issues
}

func (e *inputError) Error() string {
	var b strings.Builder
	b.WriteString(e.part)
	for _, seg := range e.path {
		if i, ok := seg.(int); ok {
			b.WriteString("[" + strconv.Itoa(i) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(seg.(string))
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(e.message)
	return b.String()
}

// within places err at seg (a member name or an array index) of the value
// that holds it: an inputError gets seg in front of its path, other errors
// a prefix. inputErrors are never wrapped, so that a type assertion finds
// them (errors.As would link internal/reflectlite into every module).
func within(err error, seg any) error {
	ie, ok := err.(*inputError)
	if !ok {
		return fmt.Errorf("%v: %w", seg, err)
	}
	if s, ok := seg.(string); ok {
		// Member names may point into the envelope buffer.
		seg = strings.Clone(s)
	}
	ie.path = append([]any{seg}, ie.path...)
	return ie
}

// inPart says which request part err comes from.
func inPart(part string, err error) error {
	ie, ok := err.(*inputError)
	if !ok {
		return fmt.Errorf("%s: %w", part, err)
	}
	ie.part = part
	return ie
}

// validationError is the body of the host's 400 (docs/spec.md §4 step 7),
// which refuseInput answers with:
//
//	{"statusCode":400,"statusMessage":"Validation Error","data":{"query":[{"path":["limit"],"message":"..."}]}}
type validationError struct {
	StatusCode    int                    `json:"statusCode"`
	StatusMessage string                 `json:"statusMessage"`
	Data          map[string][]abi.Issue `json:"data"`
}

// refuseInput answers a request whose input could not be filled: an
// inputError is answered 400 with the host's Validation Error body, or by
// the module's validation-error hook ([OnValidationError]) when it has one
// that answers, as if the host had refused the value. The host counts
// that 400 as declared for an operation with request parameters or a body
// (the document lists it), so it is no Response Contract Error. Any other
// error is returned: the call fails.
func refuseInput(err error) (Reply, error) {
	ie, ok := err.(*inputError)
	if !ok {
		return Reply{}, err
	}
	hostLog(abi.LogWarn, "endpoints: answered 400: the request's "+ie.Error()+
		"; the host validated the value, but the input's Go type cannot hold it: make the schema of Operation.Request fit the type, or update the host")
	issues := map[string][]abi.Issue{ie.part: {{Path: ie.path, Message: ie.message}}}
	body := validationError{StatusCode: 400, StatusMessage: "Validation Error", Data: issues}
	if reg.hook != nil {
		f := &ValidationFailure{Kind: abi.FailureSchema, Status: 400, Part: ie.part, Issues: issues}
		f.Default, _ = json.Marshal(body)
		if reply, ok := reg.hook(f); ok && reply.status != 0 {
			return reply, nil
		}
	}
	return Respond(400, body), nil
}
