// Package schemedoc declares in the OpenAPI document the security schemes
// an app configures in endpoints.json "security", so that an app in any
// language declares a scheme by configuring its verifier, without a runtime
// declaration module:
//
//	"security": {"bearer": {"jwt": {"jwks": "auth/jwks.json"}}}
//
// gives components.securitySchemes.bearer = {"type": "http", "scheme":
// "bearer", "bearerFormat": "JWT", "description": ...}, whose description
// names the scopes the document's operations require of it. A document
// that already declares the scheme (the runtime declaration's openApi
// fragment, or the embedder's) keeps its declaration, which describes the
// scheme further (flows, its own description), provided it is a scheme the
// configured verifier checks: [Apply] refuses one that is not.
package schemedoc

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/wasmendpoints/endpoints/internal/auth"
	"github.com/wasmendpoints/endpoints/openapi"
)

// Apply adds to doc the security scheme of each configured verifier the
// document does not declare, and checks that each one it declares agrees
// with its configuration. configFile names endpoints.json in errors.
func Apply(doc *openapi.Document, security map[string]auth.Config, configFile string) error {
	if len(security) == 0 {
		return nil
	}
	scopes := requiredScopes(doc)
	var errs []string
	for _, name := range slices.Sorted(maps.Keys(security)) {
		cfg := security[name]
		var declared *openapi.SecurityScheme
		if doc.Components != nil {
			declared = doc.Components.SecuritySchemes[name]
		}
		if declared != nil {
			if err := agree(declared, cfg); err != nil {
				errs = append(errs, fmt.Sprintf("%s: security.%s: %v", configFile, name, err))
			}
			continue
		}
		s, err := Derive(cfg, scopes[name])
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: security.%s: %v", configFile, name, err))
			continue
		}
		if doc.Components == nil {
			doc.Components = &openapi.Components{}
		}
		if doc.Components.SecuritySchemes == nil {
			doc.Components.SecuritySchemes = map[string]*openapi.SecurityScheme{}
		}
		doc.Components.SecuritySchemes[name] = s
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// Derive is the Security Scheme Object of a configured verifier: an http
// bearer scheme for "jwt", http basic for "basic", an apiKey scheme for
// "apiKey" (where its In and Name say, by default the X-API-Key header).
// scopes, the scopes operations require of it, are named in the
// description, since only oauth2 schemes list scopes in OpenAPI.
func Derive(cfg auth.Config, scopes []string) (*openapi.SecurityScheme, error) {
	var s openapi.SecurityScheme
	var desc []string
	switch {
	case cfg.JWT != nil && cfg.APIKey == nil && cfg.Basic == nil:
		s = openapi.SecurityScheme{Type: "http", Scheme: "bearer", BearerFormat: "JWT"}
		d := "A JWT sent as `Authorization: Bearer <token>`"
		if cfg.JWT.Issuer != "" {
			d += ", issued by " + cfg.JWT.Issuer
		}
		if aud := []string(cfg.JWT.Audience); len(aud) > 0 {
			d += ", for the audience " + strings.Join(aud, " or ")
		}
		desc = append(desc, d+".")
		if len(scopes) > 0 {
			claim := "scope"
			if cfg.JWT.ScopesClaim != "" {
				claim = cfg.JWT.ScopesClaim
			}
			desc = append(desc, "Scopes operations require (in the token's "+claim+" claim): "+strings.Join(scopes, ", ")+".")
		}
	case cfg.Basic != nil && cfg.JWT == nil && cfg.APIKey == nil:
		s = openapi.SecurityScheme{Type: "http", Scheme: "basic"}
		desc = append(desc, "A user name and password sent as `Authorization: Basic <base64>` (RFC 7617).")
		if len(scopes) > 0 {
			desc = append(desc, "Scopes operations require (granted per user): "+strings.Join(scopes, ", ")+".")
		}
	case cfg.APIKey != nil && cfg.JWT == nil && cfg.Basic == nil:
		in, name := cfg.APIKey.In, cfg.APIKey.Name
		if in == "" {
			in = auth.DefaultAPIKeyIn
		}
		if name == "" {
			name = auth.DefaultAPIKeyName
		}
		if in != "header" && in != "query" && in != "cookie" {
			return nil, fmt.Errorf("apiKey.in: want \"header\", \"query\" or \"cookie\", got %q", in)
		}
		s = openapi.SecurityScheme{Type: "apiKey", In: in, Name: name}
		desc = append(desc, "An API key sent in the "+in+" "+name+".")
		if len(scopes) > 0 {
			desc = append(desc, "Scopes operations require (granted per key): "+strings.Join(scopes, ", ")+".")
		}
	default:
		return nil, fmt.Errorf("want exactly one of \"jwt\", \"apiKey\" or \"basic\"")
	}
	s.Description = strings.Join(desc, " ")
	return &s, nil
}

// agree checks that a declared scheme is one the configured verifier
// checks: jwt verifies http bearer, oauth2 and openIdConnect schemes,
// basic http basic ones, apiKey apiKey ones (where its in and name, when
// configured, say).
func agree(d *openapi.SecurityScheme, cfg auth.Config) error {
	if d.Ref != "" {
		return nil // a reference is resolved where the scheme is verified
	}
	declared := d.Type
	if d.Type == "http" {
		declared = "http " + strings.ToLower(d.Scheme)
	}
	var want []string
	switch {
	case cfg.JWT != nil:
		want = []string{"http bearer", "oauth2", "openIdConnect"}
	case cfg.Basic != nil:
		want = []string{"http basic"}
	case cfg.APIKey != nil:
		want = []string{"apiKey"}
	default:
		return nil // the verifier's own check names what is missing
	}
	if !slices.Contains(want, declared) {
		return fmt.Errorf("the document declares the scheme as %s, but the verifier configured here checks %s schemes: make them agree (or drop the document's declaration: the configuration declares the scheme by itself)", declared, strings.Join(want, " or "))
	}
	if k := cfg.APIKey; k != nil {
		if k.In != "" && k.In != d.In || k.Name != "" && k.Name != d.Name {
			return fmt.Errorf("apiKey says in %q, name %q, but the document declares the key in %q, name %q: make them agree", k.In, k.Name, d.In, d.Name)
		}
	}
	return nil
}

// requiredScopes maps each scheme name to the scopes the document's
// operations require of it, sorted and without repeats.
func requiredScopes(doc *openapi.Document) map[string][]string {
	out := map[string][]string{}
	add := func(reqs []openapi.SecurityRequirement) {
		for _, req := range reqs {
			for name, scopes := range req {
				for _, s := range scopes {
					if !slices.Contains(out[name], s) {
						out[name] = append(out[name], s)
					}
				}
			}
		}
	}
	doc.Operations(func(_, _ string, op *openapi.Operation) { add(doc.EffectiveSecurity(op)) })
	for name := range out {
		slices.Sort(out[name])
	}
	return out
}
