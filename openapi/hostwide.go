package openapi

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"strings"
)

// Names of the components/responses the document shares among its
// operations: the answers the host gives for any operation a guest
// serves, whatever its contract (docs/spec.md §4, §7). An operation
// that has no other answer of the status refers to them ({"$ref":
// "#/components/responses/EndpointsInternalServerError"}); one that has
// (its contract or routes configuration declares the status, or another
// host answer shares it) lists the host's body and reason beside its
// own, as for the other framework responses.
const (
	// ResponseInternalServerError is the 500 of a guest that failed:
	// it trapped, ran past its deadline, broke a limit or returned an
	// error; a middleware that failed; an answer that broke its contract
	// where answers are checked (responseValidation). Its body is
	// [SchemaInternalServerError].
	ResponseInternalServerError = "EndpointsInternalServerError"
	// ResponseServiceUnavailable is the 503, with Retry-After, of a
	// request the host cannot serve now: no instance of the route's
	// module came free before its deadline, its code is still loading,
	// the server is shutting down, or a bundle's route refuses a client
	// whose last calls all trapped. Its body is [SchemaServiceUnavailable].
	ResponseServiceUnavailable = "EndpointsServiceUnavailable"
)

// SchemaInternalServerError is the body of the host's 500: in
// production without data, in development with why (host.FrameworkError
// with a guestfail or ContractErrorData):
//
//	{"statusCode":500,"statusMessage":"Internal Server Error"}
//	{"statusCode":500,"statusMessage":"Response Contract Error","data":{"status":201,"issues":[{"path":[],"message":"status 201 is not declared"}]}}
const SchemaInternalServerError = "EndpointsInternalServerError"

// responsesPrefix is how an operation refers to a shared response.
const responsesPrefix = "#/components/responses/"

// hostWideResponse is an answer the host gives for every operation a
// guest serves (hostWideResponses).
type hostWideResponse struct {
	status int
	// name is its components/responses entry.
	name        string
	description string
	// schema names the framework schema of its body; uses are the
	// framework schemas it needs, itself included.
	schema string
	uses   []string
	// headers are the headers the host sends with it.
	headers map[string]*Header
	// example is the body the host sends in production.
	example json.RawMessage
}

// hostWideResponses are the answers of every operation, documented
// after its own and the framework's.
var hostWideResponses = []hostWideResponse{
	{
		status: http.StatusInternalServerError, name: ResponseInternalServerError,
		description: "The guest or a middleware failed (it trapped, ran past its deadline, broke a limit or returned an error), or its answer broke its contract where answers are checked (responseValidation); in development, data says why",
		schema:      SchemaInternalServerError, uses: []string{SchemaInternalServerError, SchemaValidationIssue},
		example: hostErrorExample(http.StatusInternalServerError, nil),
	},
	{
		status: http.StatusServiceUnavailable, name: ResponseServiceUnavailable,
		description: "No instance of the route's module came free before the request's deadline, its code is still loading, or the server is shutting down (on a bundle's route, also: the client's last calls all trapped, and its calls are refused for a while); try again after Retry-After seconds",
		schema:      SchemaServiceUnavailable, uses: []string{SchemaServiceUnavailable},
		// Every 503 of these carries it; a guest's 503 in the host's
		// shape passes the answer check only with it too.
		headers: map[string]*Header{"Retry-After": {Description: "Seconds to wait before trying again", Required: true,
			Schema: json.RawMessage(`{"type": "integer", "minimum": 1}`)}},
		example: hostErrorExample(http.StatusServiceUnavailable, nil),
	},
}

// addHostWide documents the host's answers of every operation on one
// whose other responses rs holds: where rs has the status already, the
// host's body and reason join it (its headers not required where the app
// declares the status); the others are returned, for referHostWide to
// refer to once the operation's responses are made.
func (b *builder) addHostWide(rs *responseSet, declared map[string]bool) []hostWideResponse {
	var refer []hostWideResponse
	for _, hr := range hostWideResponses {
		status := fmt.Sprint(hr.status)
		p := rs.byStatus[status]
		if p == nil {
			refer = append(refer, hr)
			continue
		}
		// Beside other bodies, even the host's own of another reason (a
		// database's 503), the description names this reason too; a
		// status declared without a body describes the host's answer.
		hadBody := len(p.content) > 0
		headers := hr.headers
		if declared[status] {
			headers = optionalHeaders(headers)
		}
		rs.add(status, hr.description, headers, mediaJSON, json.RawMessage(`{"$ref":"`+componentPrefix+hr.schema+`"}`))
		if hadBody {
			p.description = joinDescription(statusSummary(status), p.description, hr.description)
		}
		for _, u := range hr.uses {
			b.framework[u] = true
		}
	}
	return refer
}

// referHostWide makes each of refer a reference to its shared response
// in responses, and gives the host's body where another answer of its
// status joined it (addHostWide) the host's example, when that body is
// the status's only JSON one.
func (b *builder) referHostWide(responses map[string]*Response, refer []hostWideResponse) {
	for _, hr := range hostWideResponses {
		r := responses[fmt.Sprint(hr.status)]
		if r == nil {
			continue
		}
		if mt := r.Content[mediaJSON]; mt != nil && string(mt.Schema) == `{"$ref":"`+componentPrefix+hr.schema+`"}` {
			mt.Example = hr.example
		}
	}
	for _, hr := range refer {
		responses[fmt.Sprint(hr.status)] = &Response{Ref: responsesPrefix + hr.name}
		b.sharedResponses[hr.name] = true
		for _, u := range hr.uses {
			b.framework[u] = true
		}
	}
}

// OwnResponse returns the response op lists for status, made op's own
// when it refers to one the host shares among operations (the 500 and
// 503 of components/responses every operation gets): a copy op then
// holds, to which what is true of op alone (a header its rate limits
// add to every answer, another reason for the status) may be added
// without changing the other operations'. Another reference is returned
// as it is; nil when op lists no such status.
func (d *Document) OwnResponse(op *Operation, status string) *Response {
	r := op.Responses[status]
	if r == nil || r.Ref == "" {
		return r
	}
	if name, ok := strings.CutPrefix(r.Ref, responsesPrefix); ok {
		if shared := hostWideComponent(name); shared != nil {
			op.Responses[status] = shared
			return shared
		}
	}
	return r
}

// hostWideComponent is the components/responses entry of a shared host
// answer, named name, a copy of its own; nil for any other name.
func hostWideComponent(name string) *Response {
	for _, hr := range hostWideResponses {
		if hr.name == name {
			return &Response{Description: hr.description, Headers: maps.Clone(hr.headers),
				Content: map[string]*MediaType{mediaJSON: {Schema: json.RawMessage(`{"$ref":"` + componentPrefix + hr.schema + `"}`), Example: hr.example}}}
		}
	}
	return nil
}

// ResolveResponse returns the response r stands for: r itself, or,
// when it refers to one of the document's components/responses, that
// one (nil when the document has no such entry). Clients of the document
// read an operation's answers through it.
func (d *Document) ResolveResponse(r *Response) *Response {
	if r == nil || r.Ref == "" {
		return r
	}
	name, ok := strings.CutPrefix(r.Ref, responsesPrefix)
	if !ok || d.Components == nil {
		return nil
	}
	return d.Components.Responses[name]
}
