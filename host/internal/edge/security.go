package edge

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/wasmendpoints/endpoints/internal/answer"
	"github.com/wasmendpoints/endpoints/internal/auth"
	"github.com/wasmendpoints/endpoints/openapi"
)

// The security policy's parts that need no request: the names and
// challenges its answers carry, what the document lists of a guard, and
// the redaction of credentials sent in a query. The host's guards verify;
// these say.

// FailurePolicy names the failure budget in the body of its 429, where a
// rate limit's answer names its policy.
const FailurePolicy = "authFailures"

// ChallengeScheme is the auth-scheme of a challenge for a scheme a
// middleware verifies: its HTTP scheme, Bearer for tokens, else the
// scheme's type.
func ChallengeScheme(s auth.Scheme) string {
	switch {
	case s.Type == "http" && s.HTTPScheme != "":
		return strings.ToUpper(s.HTTPScheme[:1]) + s.HTTPScheme[1:]
	case s.Type == "oauth2" || s.Type == "openIdConnect":
		return "Bearer"
	}
	return "ApiKey"
}

// GuardDoc is what the document shows of an operation's guard.
type GuardDoc struct {
	// Schemes names the schemes the guard accepts, in order.
	Schemes []string
	// Budget: the failed credentials of the app's clients are counted
	// (endpoints.json's authFailures), so 429 is reachable; BudgetWait
	// is how long a client address's budget takes to give back one
	// attempt, what its first refusal is told to wait.
	Budget     bool
	BudgetWait time.Duration
	// Scoped: some alternative requires scopes, so 403 is reachable.
	Scoped bool
	// ScopeScheme and Scopes are the first scheme of an alternative that
	// requires scopes, and those scopes: what the document's 403 example
	// names as missing.
	ScopeScheme string
	Scopes      []string
	// ScopeChallenge: a scheme that requires scopes is a bearer scheme
	// the host verifies itself, whose 403 carries a WWW-Authenticate
	// challenge naming them.
	ScopeChallenge bool
	// Unavailable: a scheme's verifier may be unable to tell (a JWKS URL,
	// the store of API keys, a middleware's verify export: see
	// auth.MayBeUnavailable), so 503 is reachable.
	Unavailable bool
}

// retryAfter is the Retry-After header of the host's 503 and 429 answers,
// as the document lists it.
func retryAfter(what string) *openapi.Header {
	return &openapi.Header{Description: what, Required: true, Schema: []byte(`{"type":"integer","minimum":1}`)}
}

// DocumentGuard lists on op the answers its guard g gives: 401 with
// WWW-Authenticate, 429 past the failure budget (its description also
// names the rate limits of the operation, limits, which share the
// status), 403 when scopes are required, and 503 with Retry-After when a
// verifier may be unable to tell (the host's refusal then:
// host/security.go).
func DocumentGuard(doc *openapi.Document, op *openapi.Operation, g GuardDoc, limits []string) error {
	names := g.Schemes
	err := doc.AddHostResponse(op, openapi.HostResponse{
		Example:     hostExample(http.StatusUnauthorized, map[string]any{"schemes": names}),
		Status:      http.StatusUnauthorized,
		Description: "No valid credential for " + strings.Join(names, " or "),
		Schema:      openapi.SchemaUnauthorized,
		Headers: map[string]*openapi.Header{"WWW-Authenticate": {
			Description: "How to authenticate (RFC 9110 §11.6.1): a challenge per scheme the operation accepts.",
			Required:    true,
			Schema:      []byte(`{"type":"string"}`),
		}},
	})
	if err == nil && g.Budget {
		desc := "Too many requests: too many failed credentials (" + FailurePolicy + ")"
		if len(limits) > 0 {
			desc = limitsDescription(limits) + ", or too many failed credentials (" + FailurePolicy + ")"
			// The rate limits documented their 429 first
			// (DocumentRateLimits), maybe after another reason (the
			// Idempotency-Key records' share): their words now name both
			// reasons of this body.
			if r := op.Responses["429"]; r != nil && r.Ref == "" {
				r.Description = strings.Replace(r.Description, limitsDescription(limits), desc, 1)
			}
		}
		err = doc.AddHostResponse(op, openapi.HostResponse{
			Status:      http.StatusTooManyRequests,
			Description: desc,
			Schema:      openapi.SchemaTooManyRequests,
			Headers: map[string]*openapi.Header{
				"Retry-After": {Description: "Seconds until a request may pass.", Required: true, Schema: []byte(`{"type":"integer","minimum":1}`)},
			},
			Example: hostExample(http.StatusTooManyRequests, map[string]any{"policy": FailurePolicy, "retryAfter": RetrySeconds(g.BudgetWait)}),
		})
	}
	if err == nil && g.Scoped {
		var headers map[string]*openapi.Header
		if g.ScopeChallenge {
			headers = map[string]*openapi.Header{"WWW-Authenticate": {
				Description: "For a bearer scheme: Bearer with error=\"insufficient_scope\" and the scopes required (RFC 6750 §3.1).",
				Schema:      []byte(`{"type":"string"}`),
			}}
		}
		err = doc.AddHostResponse(op, openapi.HostResponse{
			Status:      http.StatusForbidden,
			Description: "The credential lacks a required scope",
			Schema:      openapi.SchemaForbidden,
			Headers:     headers,
			Example:     hostExample(http.StatusForbidden, map[string]any{"scheme": g.ScopeScheme, "missingScopes": g.Scopes}),
		})
	}
	if err == nil && g.Unavailable {
		err = doc.AddHostResponse(op, openapi.HostResponse{
			Status:      http.StatusServiceUnavailable,
			Description: "Credentials for " + strings.Join(names, " or ") + " cannot be verified now (an identity provider's key set, the store of API keys or a verifier unavailable)",
			Schema:      openapi.SchemaServiceUnavailable,
			Headers:     map[string]*openapi.Header{"Retry-After": retryAfter(RetryAfterUnavailableDescription)},
		})
	}
	return err
}

// hostExample is the body of the host's answer of status with data, byte
// for byte as the host writes it (answer.ErrorBody): a document's example
// of it.
func hostExample(status int, data any) json.RawMessage {
	b, err := answer.ErrorBody(status, "", data)
	if err != nil {
		panic(err) // strings, numbers and lists of strings
	}
	return b
}

// RetryAfterUnavailableDescription describes the Retry-After of the
// host's 503 answers in the document.
const RetryAfterUnavailableDescription = "Seconds until the request may be tried again."

// RedactedValue replaces a credential in what the host reports of a
// query.
const RedactedValue = "REDACTED"

// RedactQuery returns raw with the value of each parameter named in
// secret replaced by REDACTED, the rest as sent. A name is compared as
// the query parser reads it (percent-decoded, '+' a space), so an
// escaped name is redacted too; pairs are split at ';' as well as '&', so
// a key the parser refused to read is not logged either.
func RedactQuery(raw string, secret []string) string {
	if raw == "" || len(secret) == 0 {
		return raw
	}
	var b strings.Builder
	for len(raw) > 0 {
		end := strings.IndexAny(raw, "&;")
		if end < 0 {
			end = len(raw)
		}
		pair := raw[:end]
		nameEnd := strings.IndexByte(pair, '=')
		if nameEnd < 0 {
			nameEnd = len(pair)
		}
		name := pair[:nameEnd]
		if decoded, err := url.QueryUnescape(name); err == nil {
			name = decoded
		}
		if slices.Contains(secret, name) {
			b.WriteString(pair[:nameEnd] + "=" + RedactedValue)
		} else {
			b.WriteString(pair)
		}
		if end < len(raw) {
			b.WriteByte(raw[end])
			end++
		}
		raw = raw[end:]
	}
	return b.String()
}
