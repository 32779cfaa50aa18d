package host_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/storage"
)

// takeDownStore is a kvDownStore whose rate limits fail too while it is
// down, as a Redis that stopped.
type takeDownStore struct{ kvDownStore }

func (s *takeDownStore) Take(ctx context.Context, key string, rate storage.Rate) (storage.Decision, error) {
	if err := s.err(); err != nil {
		return storage.Decision{}, err
	}
	return s.Memory.Take(ctx, key, rate)
}

// TestUnavailable503IsDocumented: an operation the host may answer 503
// itself, because its credentials cannot be verified (API keys looked up
// in a store that is down) or its rate limit cannot be checked (the
// buckets' store down), lists that 503 in the document, with Retry-After
// and the body the host sends, and the real answers validate against
// what the document lists; an operation whose keys are all in the
// configuration lists none.
func TestUnavailable503IsDocumented(t *testing.T) {
	t.Parallel()
	object := `{"responses":{"200":{"schema":{"type":"object"}}}}`
	ok := watModule{handle: `(drop (call $write (i32.const 3000) (i32.const 2))) (i32.const 0)`, extra: "  (data (i32.const 3000) \"{}\")\n"}
	secured := func(scheme string) watModule {
		m := ok
		m.contract = `{"security":[{"` + scheme + `":[]}],"responses":{"200":{"schema":{"type":"object"}}}}`
		return m
	}
	limited := ok
	limited.contract = object
	store := &takeDownStore{kvDownStore{Memory: storage.NewMemory(storage.MemoryOptions{})}}
	h, logs := newApp(t).wat("server/api/stored.get.wasm", secured("partners")).
		wat("server/api/listed.get.wasm", secured("listed")).
		wat("server/api/limited.get.wasm", limited).
		file("endpoints.json", []byte(`{"security":{"partners":{"apiKey":{"store":true}},
			"listed":{"apiKey":{"keys":[{"sha256":"`+strings.Repeat("ab", 32)+`","subject":"ci"}]}}},
			"rateLimits":{"few":{"routes":["/api/limited"],"limit":100,"window":"1m"}}}`)).
		host(host.Options{Store: store, OpenAPI: config.OpenAPI{Document: []byte(`{"components":{"securitySchemes":{
			"partners":{"type":"apiKey","in":"header","name":"X-API-Key"},
			"listed":{"type":"apiKey","in":"header","name":"X-Listed-Key"}}}}`)}})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	doc := h.Document()
	schemas, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("file:///openapi.json", schemas); err != nil {
		t.Fatal(err)
	}
	var d struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Ref         string `json:"$ref"`
				Description string
				Headers     map[string]struct{ Required bool }
			}
		}
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}

	if r := do(t, srv, "GET", "/api/stored", "", "X-API-Key", "k"); r.status != 401 {
		t.Fatalf("the store up, an unknown key: %d %s, want 401\n%s", r.status, r.body, logs)
	}
	store.down.Store(true)
	tests := []struct {
		path, header string
		listed       bool // the document lists the 503 of credentials or limits
	}{
		{"/api/stored", "X-API-Key", true},
		{"/api/limited", "", true},
		{"/api/listed", "X-Listed-Key", false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			// Every operation lists the host's own 503 (no instance in
			// time, a shutdown), shared; one whose credentials or limits
			// may not be checked names that reason in its own.
			resp := d.Paths[tt.path]["get"].Responses["503"]
			if listed := strings.Contains(resp.Description, "cannot be"); listed != tt.listed {
				t.Fatalf("GET %s lists the 503 of its credentials or limits: %v, want %v\n%s", tt.path, listed, tt.listed, doc)
			}
			if !tt.listed {
				if resp.Ref != "#/components/responses/EndpointsServiceUnavailable" {
					t.Errorf("GET %s: its 503 is %+v, want the host's shared one", tt.path, resp)
				}
				return
			}
			if !resp.Headers["Retry-After"].Required {
				t.Errorf("GET %s: its 503 lists no required Retry-After: %+v", tt.path, resp.Headers)
			}
			var headers []string
			if tt.header != "" {
				headers = []string{tt.header, "some-key"}
			}
			r := do(t, srv, "GET", tt.path, "", headers...)
			if s, err := strconv.Atoi(r.header.Get("Retry-After")); r.status != 503 || err != nil || s < 1 {
				t.Fatalf("the store down: %d %s (Retry-After %q), want 503 with Retry-After\n%s", r.status, r.body, r.header.Get("Retry-After"), logs)
			}
			pointer := fmt.Sprintf("file:///openapi.json#/paths/%s/get/responses/503/content/application~1json/schema", strings.ReplaceAll(tt.path, "/", "~1"))
			s, err := c.Compile(pointer)
			if err != nil {
				t.Fatalf("compiling the 503's schema: %v", err)
			}
			body, err := jsonschema.UnmarshalJSON(strings.NewReader(r.body))
			if err != nil {
				t.Fatalf("the 503's body is not JSON: %v\n%s", err, r.body)
			}
			if err := s.Validate(body); err != nil {
				t.Errorf("the 503 the host sent does not validate against the document's: %v\n%s", err, r.body)
			}
		})
	}
}
