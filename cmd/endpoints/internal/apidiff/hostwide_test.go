package apidiff

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/openapi"
)

// TestHostAnswersAreNotBreaking: the host's own answers every operation
// lists (its 500 and 503, shared in components/responses or beside the
// operation's own answers of the status, with Retry-After) break no
// client between two versions of one app: neither their first
// appearance, against a document built before they were listed, nor an
// operation whose 503 gains a reason (its module starts using a
// database, a rate limit applies) or loses it, nor a 500 the app starts
// or stops declaring.
func TestHostAnswersAreNotBreaking(t *testing.T) {
	route := func(contract string, db bool) openapi.Route {
		var c abi.Contract
		if err := json.Unmarshal([]byte(contract), &c); err != nil {
			t.Fatal(err)
		}
		return openapi.Route{Method: "GET", Path: "/api/items/{id}", File: "server/api/items/[id].get.wasm", Contract: &c, Database: db}
	}
	const plain = `{"responses": {"200": {"schema": {"type": "object", "properties": {"id": {"type": "integer"}}}}}}`
	const own500 = `{"responses": {"200": {"schema": {"type": "object", "properties": {"id": {"type": "integer"}}}},
		"500": {"description": "Ours", "schema": {"type": "object", "properties": {"code": {"type": "string"}}}}}}`
	build := func(r openapi.Route, rateLimited bool) []byte {
		doc, err := openapi.Build([]openapi.Route{r}, openapi.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if rateLimited {
			err := doc.AddHostResponse(doc.Paths[r.Path].Get, openapi.HostResponse{Status: 503, Description: "The rate limit cannot be checked",
				Schema: openapi.SchemaServiceUnavailable, Headers: map[string]*openapi.Header{"Retry-After": {Description: "Seconds until the store is tried again", Required: true}}})
			if err != nil {
				t.Fatal(err)
			}
		}
		b, err := doc.MarshalIndent()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// before is the document as built before the host's 500 and 503 were
	// listed: without them.
	before := func(r openapi.Route) []byte {
		doc, err := openapi.Build([]openapi.Route{r}, openapi.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, status := range []string{"500", "503"} {
			resp := doc.Paths[r.Path].Get.Responses[status]
			if resp.Ref != "" {
				delete(doc.Paths[r.Path].Get.Responses, status)
				continue
			}
			// A status the app declares: its schema alone.
			var s struct{ AnyOf []json.RawMessage }
			mt := resp.Content["application/json"]
			if err := json.Unmarshal(mt.Schema, &s); err != nil || len(s.AnyOf) != 2 {
				t.Fatalf("the %s of %s: %s, want an anyOf of the declared schema and the host's", status, r.Path, mt.Schema)
			}
			mt.Schema, mt.Example = s.AnyOf[0], nil
		}
		doc.Components.Responses = nil
		for _, name := range []string{openapi.SchemaInternalServerError, openapi.SchemaServiceUnavailable, openapi.SchemaValidationIssue} {
			delete(doc.Components.Schemas, name)
		}
		b, err := doc.MarshalIndent()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	versions := map[string][]byte{
		"before":         before(route(plain, false)),
		"before own 500": before(route(own500, false)),
		"shared":         build(route(plain, false), false),
		"database":       build(route(plain, true), false),
		"rate limited":   build(route(plain, false), true),
		"own 500":        build(route(own500, false), false),
	}
	for _, tt := range []struct {
		from, to string
		breaks   bool
	}{
		{"before", "shared", false},
		// The host's 500 joins the app's own: the app's is the same.
		{"before own 500", "own 500", false},
		{"shared", "database", false}, {"database", "shared", false},
		{"shared", "rate limited", false}, {"rate limited", "shared", false},
		{"own 500", "shared", false},
		// The app's new 500 body is one a client typed on the host's
		// alone cannot read: a change of the app's, judged as any.
		{"shared", "own 500", true},
	} {
		t.Run(fmt.Sprintf("%s to %s", tt.from, tt.to), func(t *testing.T) {
			changes, err := Compare(Document{Name: tt.from, Data: versions[tt.from]}, Document{Name: tt.to, Data: versions[tt.to]})
			if err != nil {
				t.Fatal(err)
			}
			if got := Breaking(changes, Warn) > 0; got != tt.breaks {
				t.Errorf("breaking: %v, want %v", got, tt.breaks)
				for _, c := range changes {
					t.Errorf("%s %s %s: %s", c.Level, c.ID, c.Operation(), c.Text)
				}
			}
		})
	}
}
