package host_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
)

// TestObjectQueryParameters: an object query parameter is read as the
// document spells it (style form with and without explode, deepObject),
// its members coerced and validated by their schemas.
func TestObjectQueryParameters(t *testing.T) {
	const member = `{"type": "object", "properties": {"color": {"type": "string"}, "size": {"type": "integer", "format": "int32"}}, "additionalProperties": false}`
	contract := `{"request": {"query": {"type": "object", "properties": {
		"filter": ` + member + `, "pick": ` + member + `, "deep": ` + member + `, "limit": {"type": "integer"}}},
		"queryStyles": {"pick": {"style": "form", "explode": false}, "deep": {"style": "deepObject"}}}}`
	srv, _ := newApp(t).
		wat("server/api/items.get.wasm", watModule{contract: contract, handle: echoEnvelope}).
		serve(host.Options{})
	tests := []struct {
		name, query string
		wantStatus  int
		want        string // the envelope's query, or the 400's data.query
	}{
		{"form explode (the default) gathers the members", "?color=red&size=2&limit=5", 200,
			`{"filter":{"color":"red","size":2},"limit":5}`},
		{"form without explode reads name,value pairs", "?pick=color,blue,size,3", 200,
			`{"pick":{"color":"blue","size":3}}`},
		{"deepObject reads param[member]", "?deep[color]=green&deep[size]=4", 200,
			`{"deep":{"color":"green","size":4}}`},
		{"a member is validated by its schema", "?deep[size]=big", 400,
			`[{"path":["deep","size"],"message":"expected integer, received string"}]`},
		{"a member's format is asserted", "?size=2147483648", 400,
			`[{"path":["filter","size"],"message":"must be an integer from -2147483648 to 2147483647 (int32)"}]`},
		{"an undeclared deepObject member is refused by the schema", "?deep[shape]=round", 400,
			`[{"path":["deep","shape"],"message":"is not an allowed property"}]`},
		{"the exploded object's schema judges the query's undeclared pairs", "?color=red&shape=round", 400,
			`[{"path":["filter","shape"],"message":"is not an allowed property"}]`},
		{"form without explode needs pairs", "?pick=color", 400,
			`[{"path":["pick"],"message":"pick=color is not a list of name,value pairs (it has 1 items); as style form without explode write pick=name,value,name,value"}]`},
		{"deepObject needs one level of brackets", "?deep[a][b]=1", 400,
			`[{"path":["deep"],"message":"\"deep[a][b]\" is not a member of deep as style deepObject spells it: write deep[member]=value (one level of brackets)"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := do(t, srv, "GET", "/api/items"+tt.query, "")
			if res.status != tt.wantStatus {
				t.Fatalf("status %d, want %d; body %s", res.status, tt.wantStatus, res.body)
			}
			var got struct {
				Query json.RawMessage `json:"query"`
				Data  struct {
					Query json.RawMessage `json:"query"`
				} `json:"data"`
			}
			if err := json.Unmarshal([]byte(res.body), &got); err != nil {
				t.Fatalf("answer %q: %v", res.body, err)
			}
			part := got.Query
			if res.status != 200 {
				part = got.Data.Query
			}
			if !jsonEqual(t, string(part), tt.want) {
				t.Errorf("query = %s\nwant    %s", part, tt.want)
			}
		})
	}
}

// TestQueryStylesLoadErrors: a style the host could not honour fails the
// load, naming the contract's member.
func TestQueryStylesLoadErrors(t *testing.T) {
	tests := []struct {
		name, contract, want string
	}{
		{"a style for a parameter that is not an object",
			`{"request": {"query": {"type": "object", "properties": {"n": {"type": "integer"}}}, "queryStyles": {"n": {"style": "deepObject"}}}}`,
			`/request/queryStyles/n: "n" is not a query parameter whose schema is an object`},
		{"an exploded member that is a parameter of its own",
			`{"request": {"query": {"type": "object", "properties": {"limit": {"type": "integer"}, "filter": {"type": "object", "properties": {"limit": {"type": "integer"}}}}}}}`,
			`/request/query/properties/filter: member "limit" is also a query parameter of its own`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newApp(t).wat("server/api/items.get.wasm", watModule{contract: tt.contract, handle: echoEnvelope})
			_, err := host.New(context.Background(), a.dir, host.Options{Logger: discardLogger()})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("load error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestExplodedObjectLeavesTheQueryAPIKey: an API key sent in the query is
// no member of the exploded object, whose schema would refuse it.
func TestExplodedObjectLeavesTheQueryAPIKey(t *testing.T) {
	sum := sha256.Sum256([]byte("k3y"))
	contract := `{"security": [{"partners": []}], "request": {"query": {"type": "object", "properties": {
		"filter": {"type": "object", "properties": {"color": {"type": "string"}}, "additionalProperties": false}}}}}`
	srv, _ := newApp(t).
		wat("server/api/items.get.wasm", watModule{contract: contract, handle: echoEnvelope}).
		file("endpoints.json", []byte(`{"security": {"partners": {"apiKey": {"keys": [{"sha256": "`+hex.EncodeToString(sum[:])+`"}]}}}}`)).
		serve(host.Options{OpenAPI: config.OpenAPI{Document: []byte(`{"components":{"securitySchemes":{"partners":{"type":"apiKey","in":"query","name":"api_key"}}}}`)}})
	res := do(t, srv, "GET", "/api/items?color=red&api_key=k3y", "")
	if res.status != 200 || !strings.Contains(res.body, `"filter":{"color":"red"}`) {
		t.Errorf("got %d %s, want 200 with the filter and no api_key member", res.status, res.body)
	}
	if res := do(t, srv, "GET", "/api/items?color=red&shape=round&api_key=k3y", ""); res.status != 400 {
		t.Errorf("an undeclared pair got %d %s, want 400", res.status, res.body)
	}
}
