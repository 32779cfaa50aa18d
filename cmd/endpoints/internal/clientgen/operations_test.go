package clientgen

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/openapi"
)

// exampleModel reads the example app's document, as the host builds it.
func exampleModel(t *testing.T) *Model {
	t.Helper()
	return modelOf(t, "../../../../host/testdata/users.openapi.json")
}

// modelOf reads the model of a document file.
func modelOf(t *testing.T, file string) *Model {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi.ParseDocument(data)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(doc)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestNewModel(t *testing.T) {
	m := exampleModel(t)
	find := func(method, path string) *Operation {
		for i := range m.Operations {
			if o := &m.Operations[i]; o.Method == method && o.Path == path {
				return o
			}
		}
		t.Fatalf("no %s %s in %d operations", method, path, len(m.Operations))
		return nil
	}
	get := find("GET", "/api/users/:id")
	if len(get.Params) != 1 || get.Params[0].Name != "id" || !get.Params[0].Required || get.Body != nil {
		t.Errorf("GET /api/users/:id params %+v body %+v", get.Params, get.Body)
	}
	var statuses []int
	for _, r := range get.Responses {
		statuses = append(statuses, r.Status)
	}
	if len(statuses) < 3 || statuses[0] != 200 {
		t.Errorf("statuses %v, want 200 first and the declared and framework ones", statuses)
	}
	order := find("POST", "/api/orders")
	if !order.Idempotency || !order.IdempotencyRequired {
		t.Errorf("POST /api/orders idempotency = %v required %v", order.Idempotency, order.IdempotencyRequired)
	}
	for _, h := range order.Headers {
		if h.Name == "Idempotency-Key" {
			t.Errorf("the Idempotency-Key is listed as an ordinary header")
		}
	}
	clock := find("GET", "/api/clock")
	if k := clock.Responses[0].Content[0].Kind(); k != KindEvents {
		t.Errorf("the clock's 200 is %s, want %s", k, KindEvents)
	}
}

func TestEventData(t *testing.T) {
	const tick = `{"$ref":"#/components/schemas/Tick"}`
	event := func(data string) string {
		return `{"type":"object","properties":{"data":` + data + `,"event":{"type":"string"},"id":{"type":"string"},"retry":{"type":"integer","minimum":0}}}`
	}
	jsonData := event(`{"type":"string","contentMediaType":"application/json","contentSchema":` + tick + `}`)
	for _, tt := range []struct {
		name string
		m    *openapi.MediaType
		want string
	}{
		{"OpenAPI 3.2 itemSchema, JSON data", &openapi.MediaType{ItemSchema: json.RawMessage(jsonData)}, tick},
		{"OpenAPI 3.1 extension, JSON data", &openapi.MediaType{Schema: json.RawMessage(`{"type":"string"}`),
			Extra: map[string]json.RawMessage{openapi.ItemSchemaExtension: json.RawMessage(jsonData)}}, tick},
		{"text data with a constraint", &openapi.MediaType{ItemSchema: json.RawMessage(event(`{"type":"string","maxLength":5}`))}, `{"type":"string","maxLength":5}`},
		{"any text", &openapi.MediaType{ItemSchema: json.RawMessage(event(`{"type":"string"}`))}, ``},
		{"an item schema without data", &openapi.MediaType{ItemSchema: json.RawMessage(`{"type":"object"}`)}, `{"type":"object"}`},
		{"a hand-written document: the data in schema", &openapi.MediaType{Schema: json.RawMessage(tick)}, tick},
		{"no schema at all", &openapi.MediaType{}, ``},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(eventData(tt.m)); got != tt.want {
				t.Errorf("eventData = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestNewModelLeavesOutPlainRoutes(t *testing.T) {
	doc, err := openapi.Build([]openapi.Route{
		{Method: "GET", Path: "/feed.xml", File: "server/routes/feed.xml.get.wasm", Plain: true},
	}, openapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Operations) != 0 {
		t.Errorf("operations: got %+v, want none: a plain route has no typed call", m.Operations)
	}
}

// TestNewModelHeadAnswersHaveNoBody: a HEAD answer never carries a body
// (RFC 9110 §9.3.2), even when its GET twin's contract declares one, so
// the clients must not try to decode one (the Go client failed with
// "unexpected end of JSON input" on every HEAD call).
func TestNewModelHeadAnswersHaveNoBody(t *testing.T) {
	doc, err := openapi.ParseDocument([]byte(`{"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {"/api/ping": {
		"head": {"operationId": "headPing", "responses": {"200": {"description": "pong", "content": {"application/json": {"schema": {"type": "object"}}}}}},
		"get": {"operationId": "getPing", "responses": {"200": {"description": "pong", "content": {"application/json": {"schema": {"type": "object"}}}}}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range m.Operations {
		if len(op.Responses) != 1 || op.Responses[0].Status != 200 {
			t.Fatalf("%s %s: responses %+v, want one 200", op.Method, op.Path, op.Responses)
		}
		if got, want := len(op.Responses[0].Content), map[string]int{"GET": 1, "HEAD": 0}[op.Method]; got != want {
			t.Errorf("%s %s: the 200 has %d media types, want %d", op.Method, op.Path, got, want)
		}
	}
}

// TestNewModelSharedResponses: an answer an operation lists by reference
// to components/responses (the host's 500 and 503 every operation gets,
// or an author's shared response) is typed with its content, as if the
// operation declared it; a reference to no entry is an error.
func TestNewModelSharedResponses(t *testing.T) {
	doc, err := openapi.ParseDocument([]byte(`{"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {"/api/ping": {
		"get": {"operationId": "getPing", "responses": {"200": {"description": "pong"}, "503": {"$ref": "#/components/responses/Busy"}}}}},
		"components": {"responses": {"Busy": {"description": "Busy now", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Busy"}}}}},
			"schemas": {"Busy": {"type": "object"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(doc)
	if err != nil {
		t.Fatal(err)
	}
	r := m.Operations[0].Responses[1]
	if r.Status != 503 || r.Description != "Busy now" || len(r.Content) != 1 || string(r.Content[0].Schema) != `{"$ref": "#/components/schemas/Busy"}` {
		t.Errorf("the shared 503 = %+v, want its description and content", r)
	}
	doc.Paths["/api/ping"].Get.Responses["503"].Ref = "#/components/responses/Gone"
	if _, err := NewModel(doc); err == nil || !strings.Contains(err.Error(), "Gone") {
		t.Errorf("a reference to no response: %v, want an error naming it", err)
	}
}
