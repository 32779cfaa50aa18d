package edge_test

import (
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host/internal/edge"
	"github.com/wasmendpoints/endpoints/openapi"
)

// TestDocumentedTooManyRequestsNamesEveryReason: an operation the host
// may answer 429 for several reasons (its Idempotency-Key records over
// the client's share, a rate limit, the failed-credentials budget) has a
// 429 whose description names each, whichever was documented first.
func TestDocumentedTooManyRequestsNamesEveryReason(t *testing.T) {
	const (
		quota  = "The client's Idempotency-Key records take its whole share of the store"
		limit  = "rate limit orders"
		budget = "too many failed credentials (" + edge.FailurePolicy + ")"
	)
	tests := []struct {
		name        string
		idempotency bool
		rateLimit   bool
		want        []string
	}{
		{name: "the budget alone", want: []string{budget}},
		{name: "a rate limit and the budget", rateLimit: true, want: []string{limit, budget}},
		{name: "Idempotency-Key records and the budget", idempotency: true, want: []string{quota, budget}},
		{name: "all three", idempotency: true, rateLimit: true, want: []string{quota, limit, budget}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &abi.Contract{Responses: map[string]*abi.Response{"201": {}}}
			if tt.idempotency {
				c.Idempotency = &abi.Idempotency{}
			}
			doc, err := openapi.Build([]openapi.Route{{Method: "POST", Path: "/api/orders", File: "server/api/orders.post.wasm", Contract: c}}, openapi.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var limits []string
			if tt.rateLimit {
				policies, _, err := edge.NewRateLimits(&config.App{RateLimits: map[string]config.RateLimit{
					"orders": {Routes: []string{"/api/orders"}, Limit: 2, Window: config.Duration(time.Minute)},
				}})
				if err != nil {
					t.Fatal(err)
				}
				if err := edge.DocumentRateLimits(doc, policies); err != nil {
					t.Fatal(err)
				}
				limits = []string{"orders"}
			}
			o := doc.Paths["/api/orders"].Post
			if err := edge.DocumentGuard(doc, o, edge.GuardDoc{Schemes: []string{"bearer"}, Budget: true}, limits); err != nil {
				t.Fatal(err)
			}
			got := o.Responses["429"].Description
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("429 description %q does not name %q", got, w)
				}
			}
			if strings.Count(got, limit) > 1 {
				t.Errorf("429 description %q names the rate limit twice", got)
			}
			// Retry-After is sent for each reason: its description says
			// what it counts for each.
			retry := o.Responses["429"].Headers["Retry-After"].Description
			if !strings.Contains(retry, "Seconds until a request may pass") {
				t.Errorf("429 Retry-After description %q does not say what it counts for a rate limit or the budget", retry)
			}
			if tt.idempotency && !strings.Contains(retry, "Seconds until the client's oldest record expires") {
				t.Errorf("429 Retry-After description %q does not say what it counts for the Idempotency-Key records", retry)
			}
		})
	}
}
