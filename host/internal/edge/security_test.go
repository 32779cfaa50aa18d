package edge_test

import (
	"testing"

	"github.com/wasmendpoints/endpoints/host/internal/edge"
	"github.com/wasmendpoints/endpoints/internal/auth"
)

// TestRedactQuery: a credential's value is replaced wherever the query
// parser would read its name (escaped, after ';'), the rest kept as sent.
func TestRedactQuery(t *testing.T) {
	secret := []string{"api_key"}
	tests := []struct{ raw, want string }{
		{"", ""},
		{"page=2", "page=2"},
		{"api_key=s3cret&page=2", "api_key=REDACTED&page=2"},
		{"page=2;api_key=s3cret", "page=2;api_key=REDACTED"},
		{"api%5Fkey=s3cret", "api%5Fkey=REDACTED"},
		{"api_key", "api_key=REDACTED"},
		{"api_keys=kept", "api_keys=kept"},
	}
	for _, tt := range tests {
		if got := edge.RedactQuery(tt.raw, secret); got != tt.want {
			t.Errorf("RedactQuery(%q) = %q, want %q", tt.raw, got, tt.want)
		}
	}
	if got := edge.RedactQuery("api_key=s3cret", nil); got != "api_key=s3cret" {
		t.Errorf("with no secret parameter: %q, want the query as sent", got)
	}
}

// TestChallengeScheme: the auth-scheme of a middleware-verified scheme's
// challenge.
func TestChallengeScheme(t *testing.T) {
	tests := []struct {
		s    auth.Scheme
		want string
	}{
		{auth.Scheme{Type: "http", HTTPScheme: "basic"}, "Basic"},
		{auth.Scheme{Type: "http", HTTPScheme: "bearer"}, "Bearer"},
		{auth.Scheme{Type: "oauth2"}, "Bearer"},
		{auth.Scheme{Type: "openIdConnect"}, "Bearer"},
		{auth.Scheme{Type: "apiKey", In: "header", ParamName: "X-Key"}, "ApiKey"},
	}
	for _, tt := range tests {
		if got := edge.ChallengeScheme(tt.s); got != tt.want {
			t.Errorf("ChallengeScheme(%+v) = %q, want %q", tt.s, got, tt.want)
		}
	}
}
