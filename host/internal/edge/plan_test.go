package edge

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/internal/auth"
	"github.com/wasmendpoints/endpoints/openapi"
)

// planDoc is a document whose operations require the schemes the test
// names: GET /orders needs "keys", POST /orders "query", GET /admin
// "verifier", GET /files (a plain route) "keys", GET /open nothing.
const planDoc = `{"openapi":"3.1.0","info":{"title":"t","version":"1"},
"components":{"securitySchemes":{
  "keys":{"type":"apiKey","in":"header","name":"X-Key"},
  "query":{"type":"apiKey","in":"query","name":"api_key"},
  "verifier":{"type":"apiKey","in":"header","name":"X-Partner","x-endpoints-verifier":"%s"}}},
"paths":{
  "/orders":{"get":{"security":[{"keys":[]}],"responses":{"200":{"description":"ok"}}},
             "post":{"security":[{"query":[]}],"responses":{"200":{"description":"ok"}}}},
  "/admin":{"get":{"security":[{"verifier":[]}],"responses":{"200":{"description":"ok"}}}},
  "/files":{"get":{"security":[{"keys":[]}],"responses":{"200":{"description":"ok"}}}},
  "/open":{"get":{"responses":{"200":{"description":"ok"}}}}}}`

// TestPlanSecurity: the guards planned for a document, and every problem
// that leaves an operation closed rather than open.
func TestPlanSecurity(t *testing.T) {
	keyCfg := auth.Config{APIKey: &auth.APIKeyConfig{Keys: []auth.APIKey{{SHA256: strings.Repeat("ab", 32), Subject: "ci"}}}}
	configs := map[string]auth.Config{"keys": keyCfg, "query": {APIKey: &auth.APIKeyConfig{Keys: keyCfg.APIKey.Keys, In: "query", Name: "api_key"}}}
	verifying := &Middleware{File: "server/middleware/auth.wasm", Name: "auth", verifies: true}
	wrapping := &Middleware{File: "server/middleware/audit.wasm", Name: "audit", before: true}
	endpoints := map[string]bool{"GET /orders": true, "POST /orders": true, "GET /admin": true, "GET /open": true}
	for _, tc := range []struct {
		name      string
		verifier  string // x-endpoints-verifier
		configs   map[string]auth.Config
		plain     map[string]bool
		problems  []string
		closed    []string // operations whose guard lets nobody in
		unguarded []string
	}{
		{name: "all verified", verifier: "auth", configs: configs, unguarded: []string{"GET /open", "GET /files"}},
		{name: "no verifier configured", verifier: "auth", configs: map[string]auth.Config{"query": configs["query"]},
			// The first operation that names the scheme reports it.
			problems: []string{`GET /files requires security scheme "keys": endpoints.json configures no verifier for it`}, closed: []string{"GET /orders"}},
		{name: "a configured name misspelled", verifier: "auth", configs: map[string]auth.Config{"query": configs["query"], "kyes": keyCfg},
			// Not left to the deployment (an auth.UnsetError): the
			// misspelling is the app's.
			problems: []string{`GET /files requires security scheme "keys": endpoints.json configures no verifier for it, but configures "kyes", which no route requires: rename "kyes" to "keys"`}, closed: []string{"GET /orders"}},
		{name: "verifier module missing", verifier: "gone", configs: configs,
			problems: []string{`GET /admin requires security scheme "verifier": x-endpoints-verifier names "gone", but server/middleware/gone.wasm is not loaded`}, closed: []string{"GET /admin"}},
		{name: "module without verify", verifier: "audit", configs: configs,
			problems: []string{`x-endpoints-verifier names server/middleware/audit.wasm, which does not export endpoints_verify`}, closed: []string{"GET /admin"}},
		{name: "security on a plain route", verifier: "auth", configs: configs, plain: map[string]bool{"/files": true},
			problems: []string{`GET /files is a plain route, on which the host checks no credentials`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := openapi.ParseDocument([]byte(strings.Replace(planDoc, "%s", tc.verifier, 1)))
			if err != nil {
				t.Fatal(err)
			}
			logger := slog.New(slog.NewTextHandler(io.Discard, nil))
			plan, problems := PlanSecurity(SecurityConfig{Doc: doc, Endpoints: endpoints, Plain: tc.plain,
				Verifiers: auth.NewConfigs(tc.configs), Middleware: []*Middleware{wrapping, verifying}, Env: auth.Env{Logger: logger}}, nil)
			defer plan.CloseExcept(nil)
			var got []string
			for _, p := range problems {
				got = append(got, p.Error())
			}
			if len(got) != len(tc.problems) {
				t.Fatalf("problems %q, want %d: %q", got, len(tc.problems), tc.problems)
			}
			for i, want := range tc.problems {
				if !strings.Contains(got[i], want) {
					t.Errorf("problem %q, want it to say %q", got[i], want)
				}
				// Only a verifier left out is the deployment's to give.
				wantUnset := strings.HasSuffix(want, "configures no verifier for it")
				if _, unset := errors.AsType[*auth.UnsetError](problems[i]); unset != wantUnset {
					t.Errorf("problem %q: an auth.UnsetError %v, want %v", got[i], unset, wantUnset)
				}
			}
			for _, op := range tc.closed {
				method, path, _ := strings.Cut(op, " ")
				g := plan.Guard(method, path)
				if g == nil {
					t.Fatalf("%s has no guard: it would be served as if it required nothing", op)
				}
				r := httptest.NewRequest(method, path, nil)
				r.Header.Set("X-Key", "anything")
				r.Header.Set("X-Partner", "anything")
				if v := g.Check(r, &guardRequest{Context: context.Background(), ok: true}); v.Status != 401 {
					t.Errorf("%s: a request with credentials got %d, want 401 (closed)", op, v.Status)
				}
			}
			for _, op := range tc.unguarded {
				method, path, _ := strings.Cut(op, " ")
				if plan.Guard(method, path) != nil {
					t.Errorf("%s has a guard", op)
				}
			}
			if tc.name == "all verified" {
				if !slices.Equal(plan.SecretQuery, []string{"api_key"}) || !slices.Equal(plan.KeyHeaders, []string{"X-Key", "X-Partner"}) {
					t.Errorf("SecretQuery %q, KeyHeaders %q; want [api_key], [X-Key X-Partner]", plan.SecretQuery, plan.KeyHeaders)
				}
				if doc.Paths["/orders"].Get.Responses["401"] == nil {
					t.Error("the document does not list GET /orders' 401")
				}
			}
		})
	}
}

// TestPlanSecurityReuses: a plan made again with nothing changed keeps the
// previous plan's verifiers (their JWKS caches) and failure budgets.
func TestPlanSecurityReuses(t *testing.T) {
	keyCfg := auth.Config{APIKey: &auth.APIKeyConfig{Keys: []auth.APIKey{{SHA256: strings.Repeat("ab", 32), Subject: "ci"}}}}
	plan := func(prev *Security, sha string) *Security {
		doc, err := openapi.ParseDocument([]byte(strings.Replace(planDoc, "%s", "auth", 1)))
		if err != nil {
			t.Fatal(err)
		}
		cfg := keyCfg
		cfg.APIKey = &auth.APIKeyConfig{Keys: []auth.APIKey{{SHA256: sha, Subject: "ci"}}}
		p, _ := PlanSecurity(SecurityConfig{Doc: doc, Endpoints: map[string]bool{"GET /orders": true},
			Verifiers: auth.NewConfigs(map[string]auth.Config{"keys": cfg}), Env: auth.Env{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}}, prev)
		return p
	}
	first := plan(nil, strings.Repeat("ab", 32))
	same := plan(first, strings.Repeat("ab", 32))
	changed := plan(same, strings.Repeat("cd", 32))
	key := func(p *Security) *scheme { return p.Guard("GET", "/orders").alts[0][0].scheme }
	if key(same) != key(first) {
		t.Error("an unchanged scheme got a new verifier")
	}
	if key(changed) == key(same) {
		t.Error("a changed configuration kept the old verifier")
	}
	if same.failures != first.failures || changed.failures != first.failures {
		t.Error("the failure budgets were not kept across plans with the same settings")
	}
}

// TestPlanSecurityExamples: the document's examples of the host's 401 and
// 403 name the operation's own scheme and the scopes it requires, not
// another app's.
func TestPlanSecurityExamples(t *testing.T) {
	doc, err := openapi.ParseDocument([]byte(`{"openapi":"3.1.0","info":{"title":"t","version":"1"},
"components":{"securitySchemes":{"partnerKey":{"type":"apiKey","in":"header","name":"X-Key"}}},
"paths":{"/reports":{"post":{"security":[{"partnerKey":["reports:export","reports:read"]}],"responses":{"200":{"description":"ok"}}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	keys := auth.Config{APIKey: &auth.APIKeyConfig{Keys: []auth.APIKey{{SHA256: strings.Repeat("ab", 32), Subject: "ci"}}}}
	plan, problems := PlanSecurity(SecurityConfig{Doc: doc, Endpoints: map[string]bool{"POST /reports": true},
		Verifiers: auth.NewConfigs(map[string]auth.Config{"partnerKey": keys}), Env: auth.Env{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}}, nil)
	defer plan.CloseExcept(nil)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	for status, want := range map[string]string{
		"401": `{"statusCode":401,"statusMessage":"Unauthorized","data":{"schemes":["partnerKey"]}}`,
		"403": `{"statusCode":403,"statusMessage":"Forbidden","data":{"missingScopes":["reports:export","reports:read"],"scheme":"partnerKey"}}`,
	} {
		r := doc.Paths["/reports"].Post.Responses[status]
		if r == nil || r.Content["application/json"] == nil {
			t.Fatalf("the document lists no %s JSON body", status)
		}
		if got := string(r.Content["application/json"].Example); got != want {
			t.Errorf("the %s example = %s, want %s", status, got, want)
		}
	}
}
