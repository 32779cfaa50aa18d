package openapi

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"encoding/json"
)

// Names of the component schemas of the answers the host gives for an
// operation's security and rate limits: documented on an operation by
// [Document.AddHostResponse] once the document is complete, since the
// runtime declaration may set security last.
const (
	// SchemaUnauthorized is the 401 body, sent with WWW-Authenticate:
	//	{"statusCode":401,"statusMessage":"Unauthorized","data":{"schemes":["bearer"],"error":"the token expired at 2026-11-23T10:00:00Z"}}
	SchemaUnauthorized = "EndpointsUnauthorized"
	// SchemaForbidden is the 403 body of a client that lacks a scope:
	//	{"statusCode":403,"statusMessage":"Forbidden","data":{"scheme":"bearer","missingScopes":["users:write"]}}
	SchemaForbidden = "EndpointsForbidden"
	// SchemaTooManyRequests is the 429 body of a rate limit, sent with
	// Retry-After:
	//	{"statusCode":429,"statusMessage":"Too Many Requests","data":{"policy":"orders","retryAfter":12}}
	SchemaTooManyRequests = "EndpointsTooManyRequests"
	// SchemaServiceUnavailable is the 503 body of a request whose
	// credentials cannot be verified now (a JWKS URL that does not
	// answer, the store of API keys down, a verifier that failed), whose
	// rate limits cannot be checked (their store down) or whose database
	// is down or waits for its migrations, sent with Retry-After:
	//	{"statusCode":503,"statusMessage":"Service Unavailable","data":{"error":"credentials cannot be verified now; try again later"}}
	SchemaServiceUnavailable = "EndpointsServiceUnavailable"
)

// Operations calls f for each operation of the document, by path, then in
// the order GET, PUT, POST, DELETE, OPTIONS, HEAD, PATCH, TRACE; method is
// in upper case.
func (d *Document) Operations(f func(path, method string, op *Operation)) {
	for _, path := range slices.Sorted(maps.Keys(d.Paths)) {
		item := d.Paths[path]
		if item == nil {
			continue
		}
		for _, m := range item.methods() {
			if *m.op != nil {
				f(path, strings.ToUpper(m.name), *m.op)
			}
		}
	}
}

// EffectiveSecurity returns the security requirements that apply to op:
// its own when it has any list (an empty one means none), else the
// document's. Each requirement is an alternative; an empty requirement
// ({}) is met without credentials.
func (d *Document) EffectiveSecurity(op *Operation) []SecurityRequirement {
	if op.Security != nil {
		return op.Security
	}
	return d.Security
}

// HostResponse is an answer the host gives for an operation without its
// guest, documented with [Document.AddHostResponse].
type HostResponse struct {
	// Status is the status code (401, 403, 429, 503).
	Status int
	// Description describes when it is sent.
	Description string
	// Schema names the framework schema of the JSON body
	// ([SchemaUnauthorized], [SchemaForbidden], [SchemaTooManyRequests],
	// [SchemaServiceUnavailable]).
	Schema string
	// Headers are the response headers it carries.
	Headers map[string]*Header
	// Example is the body this operation's answer would carry (its own
	// scopes, schemes or limit), the media type's example; nil takes the
	// framework schema's generic one.
	Example json.RawMessage
}

// AddHostResponse documents on op an answer the host gives itself, and
// adds the component schema of its body. When op already declares the
// status, the declared JSON schema and the host's combine with anyOf (a
// document must never reject a body the host sends), the declared
// description stays, followed by the host's when the status has other
// bodies (so a status the host answers for several reasons names each), and
// headers are united, a header both send describing both, one only one of
// them sends required by neither; a status declared by
// reference to the author's components/responses is left alone, one to the
// host's own ([ResponseServiceUnavailable]) becomes a copy it adds to. It fails when the document
// holds another schema under the framework schema's name.
func (d *Document) AddHostResponse(op *Operation, r HostResponse) error {
	if _, ok := frameworkSchemas[r.Schema]; !ok {
		return fmt.Errorf("openapi: %q is not a framework schema", r.Schema)
	}
	if d.Components == nil {
		d.Components = &Components{}
	}
	if d.Components.Schemas == nil {
		d.Components.Schemas = map[string]json.RawMessage{}
	}
	if have, ok := d.Components.Schemas[r.Schema]; !ok {
		d.Components.Schemas[r.Schema] = json.RawMessage(frameworkCanonical[r.Schema])
	} else if c, err := canonical(have); err != nil || c != frameworkCanonical[r.Schema] {
		return fmt.Errorf("components/schemas/%s is the host's own %d body and must keep the framework's schema; rename your schema", r.Schema, r.Status)
	}
	ref := json.RawMessage(`{"$ref":"` + componentPrefix + r.Schema + `"}`)
	status := fmt.Sprint(r.Status)
	if op.Responses == nil {
		op.Responses = map[string]*Response{}
	}
	// The host's own shared answer of the status: this operation's gains
	// a reason, so it gets a copy of its own.
	resp := d.OwnResponse(op, status)
	switch {
	case resp == nil:
		desc := r.Description
		if desc == "" {
			desc = http.StatusText(r.Status)
		}
		op.Responses[status] = &Response{Description: desc, Headers: maps.Clone(r.Headers), Content: map[string]*MediaType{mediaJSON: {Schema: ref, Example: r.Example}}}
		fillContent(op.Responses[status].Content, d.Components.Schemas, status)
		return nil
	case resp.Ref != "":
		// Another shared response (components/responses) is the
		// author's to keep in step with the host's answer.
		return nil
	}
	resp.Headers = mergeHeaders(oneSidedOptional(resp.Headers, r.Headers), oneSidedOptional(r.Headers, resp.Headers))
	if resp.Content == nil {
		resp.Content = map[string]*MediaType{}
	}
	mt := resp.Content[mediaJSON]
	switch {
	case mt == nil && len(resp.Content) == 0:
		// Declared without a body: its description is the host's answer's.
		resp.Content[mediaJSON] = &MediaType{Schema: ref, Example: r.Example}
		return nil
	case mt == nil:
		resp.Content[mediaJSON] = &MediaType{Schema: ref, Example: r.Example}
	case len(mt.Schema) == 0:
		// Any JSON body is declared: the host's is one.
		return nil
	case canonicalOrRaw(mt.Schema) == canonicalOrRaw(ref):
		// The host's body for another reason (a 503 of a database down
		// and of credentials that cannot be verified): the description
		// names both.
		resp.Description = joinDescription(statusSummary(status), resp.Description, r.Description)
		return nil
	default:
		mt.Schema = withAlternative(mt.Schema, ref)
	}
	resp.Description = joinDescription(statusSummary(status), resp.Description, r.Description)
	return nil
}

// oneSidedOptional returns headers with none required that other lacks:
// of a status two answers share (the app's own and the host's, or the
// host's for two reasons), a header only one of them sends is not on
// every answer of the status (a guest's own 401 has no WWW-Authenticate,
// its own 429 no Retry-After). headers itself is returned when nothing
// changes; its Header values are never changed (they may be shared).
func oneSidedOptional(headers, other map[string]*Header) map[string]*Header {
	var out map[string]*Header
	for name, h := range headers {
		if _, both := other[name]; both || h == nil || !h.Required {
			continue
		}
		if out == nil {
			out = maps.Clone(headers)
		}
		c := *h
		c.Required = false
		out[name] = &c
	}
	if out == nil {
		return headers
	}
	return out
}

// withAlternative returns schema extended to accept ref too: schema itself
// when it is an anyOf that lists ref already (a status the host answers
// for two reasons with one body, a 503 of security and of rate limits),
// the anyOf with ref added when it is one (no nesting), else
// {"anyOf": [schema, ref]}.
func withAlternative(schema, ref json.RawMessage) json.RawMessage {
	var v map[string][]json.RawMessage
	if err := json.Unmarshal(schema, &v); err != nil || len(v) != 1 || v["anyOf"] == nil {
		return anyOf([]json.RawMessage{schema, ref})
	}
	alts := v["anyOf"]
	want := canonicalOrRaw(ref)
	for _, a := range alts {
		if canonicalOrRaw(a) == want {
			return schema
		}
	}
	return anyOf(append(alts, ref))
}
