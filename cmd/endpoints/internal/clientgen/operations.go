// Package clientgen generates typed clients (TypeScript, Go) for an app.
// Its input is the app's OpenAPI document as package openapi builds it
// from the loaded contracts in the same process (`endpoints client` loads
// the app and hands over the model, never a document fetched from a
// server), so a client declares exactly the statuses, schemas and media
// types the host validates and documents, framework answers included.
package clientgen

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/wasmendpoints/endpoints/openapi"
)

// Operation is one operation of the app, as the generators need it.
type Operation struct {
	Method      string // upper case
	Path        string // client form: /api/users/:id
	OpenAPIPath string // /api/users/{id}
	OperationID string
	Summary     string
	Description string
	Deprecated  bool

	Params  []Param // path parameters, in path order
	Query   []Param // sorted by name
	Headers []Param // sorted by name; Idempotency-Key is not one of them

	// Body is the request body, nil when the operation takes none.
	Body *Body

	// Responses by status, ascending; "default" is not listed.
	Responses []Response

	// Idempotency is set when the operation takes an Idempotency-Key;
	// IdempotencyRequired when it must have one.
	Idempotency, IdempotencyRequired bool
}

// Param is one path, query or header parameter.
type Param struct {
	Name     string
	Required bool
	Schema   json.RawMessage
	Doc      string
}

// Body is a request body: one entry per media type, in the document's
// (sorted) order.
type Body struct {
	Required bool
	Content  []Content
}

// Content is one media type of a body or response with its schema (nil
// when none is given).
type Content struct {
	MediaType string
	Schema    json.RawMessage
}

// Kinds of content, by media type.
const (
	KindJSON   = "json"   // application/json or a +json profile: a JSON value
	KindEvents = "events" // text/event-stream: Server-Sent Events, Schema is one event's data
	KindBytes  = "bytes"  // anything else: a byte stream
	KindForm   = "form"   // application/x-www-form-urlencoded (requests)
	KindMulti  = "multipart"
)

// Kind classifies the content's media type.
func (c Content) Kind() string {
	mt := strings.ToLower(strings.TrimSpace(strings.SplitN(c.MediaType, ";", 2)[0]))
	switch {
	case mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"):
		return KindJSON
	case mt == "text/event-stream":
		return KindEvents
	case mt == "application/x-www-form-urlencoded":
		return KindForm
	case mt == "multipart/form-data":
		return KindMulti
	}
	return KindBytes
}

// eventData is the schema of the data of one event of a text/event-stream
// media type, nil when the data is any text. The document describes one
// event as OpenAPI 3.2 does (openapi.MediaType.Item): an object whose
// "data" is a string, its JSON content described by "contentSchema". A
// document without an item schema, written by hand for OpenAPI 3.0 or
// 3.1, has the schema of the data in "schema".
func eventData(m *openapi.MediaType) json.RawMessage {
	item := m.Item()
	if item == nil {
		return m.Schema
	}
	var event struct {
		Properties struct {
			Data json.RawMessage `json:"data"`
		} `json:"properties"`
	}
	if jsonv2.Unmarshal(item, &event) != nil || event.Properties.Data == nil {
		return item
	}
	data := event.Properties.Data
	var content struct {
		ContentSchema json.RawMessage `json:"contentSchema"`
	}
	if jsonv2.Unmarshal(data, &content) == nil && content.ContentSchema != nil {
		return content.ContentSchema
	}
	if canonicalString(data) {
		return nil
	}
	return data
}

// canonicalString reports whether a schema is exactly {"type": "string"}:
// any text, as an event without a declared schema carries.
func canonicalString(s json.RawMessage) bool {
	var m map[string]any
	return jsonv2.Unmarshal(s, &m) == nil && len(m) == 1 && m["type"] == "string"
}

// Response is one status an operation answers with.
type Response struct {
	Status      int
	Description string
	// Content is empty for a response without a body, and for every
	// answer of a HEAD operation.
	Content []Content
}

// Model is the whole app for a generator.
type Model struct {
	Title, Version string
	// Schemas are the named schemas (components/schemas), referenced as
	// "#/components/schemas/Name".
	Schemas map[string]json.RawMessage
	// Operations sorted by path, then method.
	Operations []Operation
}

// SchemaRefPrefix is how schemas reference a named schema.
const SchemaRefPrefix = "#/components/schemas/"

// NewModel reads the operations of a document built by package openapi.
func NewModel(doc *openapi.Document) (*Model, error) {
	m := &Model{Title: doc.Info.Title, Version: doc.Info.Version}
	if doc.Components != nil {
		m.Schemas = doc.Components.Schemas
	}
	for _, path := range slices.Sorted(maps.Keys(doc.Paths)) {
		item := doc.Paths[path]
		for _, mo := range []struct {
			method string
			op     *openapi.Operation
		}{{"GET", item.Get}, {"PUT", item.Put}, {"POST", item.Post}, {"DELETE", item.Delete},
			{"OPTIONS", item.Options}, {"HEAD", item.Head}, {"PATCH", item.Patch}, {"TRACE", item.Trace}} {
			if mo.op == nil || string(mo.op.Extra[openapi.PlainExtension]) == "true" {
				// A plain route declares no request: a typed call cannot
				// be made for it (docs/spec.md §10).
				continue
			}
			op, err := newOperation(doc, mo.method, path, mo.op)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", mo.method, path, err)
			}
			m.Operations = append(m.Operations, op)
		}
	}
	return m, nil
}

func newOperation(doc *openapi.Document, method, path string, o *openapi.Operation) (Operation, error) {
	op := Operation{
		Method: method, OpenAPIPath: path, Path: openapi.ClientPath(path), OperationID: o.OperationID,
		Summary: o.Summary, Description: o.Description, Deprecated: o.Deprecated,
	}
	for _, p := range o.Parameters {
		if p.Ref != "" {
			return op, fmt.Errorf("parameter $ref %q is not supported", p.Ref)
		}
		param := Param{Name: p.Name, Required: p.Required, Schema: p.Schema, Doc: p.Description}
		switch p.In {
		case "path":
			op.Params = append(op.Params, param)
		case "query":
			op.Query = append(op.Query, param)
		case "header":
			if strings.EqualFold(p.Name, openapi.IdempotencyHeader) {
				op.Idempotency, op.IdempotencyRequired = true, p.Required
				continue
			}
			op.Headers = append(op.Headers, param)
		}
	}
	slices.SortFunc(op.Query, func(a, b Param) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(op.Headers, func(a, b Param) int { return strings.Compare(a.Name, b.Name) })
	if rb := o.RequestBody; rb != nil {
		op.Body = &Body{Required: rb.Required}
		for _, mt := range slices.Sorted(maps.Keys(rb.Content)) {
			op.Body.Content = append(op.Body.Content, Content{MediaType: mt, Schema: rb.Content[mt].Schema})
		}
	}
	for _, key := range slices.Sorted(maps.Keys(o.Responses)) {
		status, err := strconv.Atoi(key)
		if err != nil {
			continue // "default", "4XX": not a status a client can narrow on
		}
		// A shared response (the host's 500 and 503 every operation
		// gets) is typed as the operation's own.
		r := doc.ResolveResponse(o.Responses[key])
		if r == nil {
			return op, fmt.Errorf("response %s: $ref %q names no entry of components/responses", key, o.Responses[key].Ref)
		}
		resp := Response{Status: status, Description: r.Description}
		if method == "HEAD" {
			// A HEAD answer has no body (RFC 9110 §9.3.2): the host
			// strips the one its GET twin's contract may declare.
			op.Responses = append(op.Responses, resp)
			continue
		}
		for _, mt := range slices.Sorted(maps.Keys(r.Content)) {
			c := Content{MediaType: mt, Schema: r.Content[mt].Schema}
			if c.Kind() == KindEvents {
				c.Schema = eventData(r.Content[mt])
			}
			resp.Content = append(resp.Content, c)
		}
		op.Responses = append(op.Responses, resp)
	}
	return op, nil
}
