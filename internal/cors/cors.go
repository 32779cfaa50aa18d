// Package cors answers browsers' cross-origin requests for the host, as the
// Fetch standard's CORS protocol describes them: preflights (OPTIONS with
// Origin and Access-Control-Request-Method) are answered before routing,
// and other answers get the Access-Control-Allow-* headers of an allowed
// origin.
package cors

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"golang.org/x/net/http/httpguts"
)

// Config is the "cors" member of endpoints.json.
//
//	{"allowOrigins": ["http://localhost:5173", "https://*.example.com"],
//	 "allowCredentials": true, "maxAge": "10m"}
type Config struct {
	// AllowOrigins are the origins allowed: exact ("https://app.example"),
	// "*" (any, not with credentials), or with one wildcard label
	// ("https://*.example.com" matches https://a.example.com, not
	// https://a.b.example.com). Required.
	AllowOrigins []string `json:"allowOrigins"`
	// AllowMethods defaults to DefaultAllowMethods.
	AllowMethods []string `json:"allowMethods,omitzero"`
	// AllowHeaders are the request headers a page may send; "*" allows
	// any (not with credentials). Defaults to DefaultAllowHeaders.
	AllowHeaders []string `json:"allowHeaders,omitzero"`
	// ExposeHeaders are the response headers a page may read besides the
	// safelisted ones. Defaults to DefaultExposeHeaders.
	ExposeHeaders []string `json:"exposeHeaders,omitzero"`
	// AllowCredentials lets pages send cookies and Authorization and read
	// the answers.
	AllowCredentials bool `json:"allowCredentials,omitzero"`
	// MaxAge is how long a browser may cache a preflight's answer.
	// Defaults to DefaultMaxAge.
	MaxAge Duration `json:"maxAge,omitzero"`
}

// Defaults of [Config].
var (
	DefaultAllowMethods  = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"}
	DefaultAllowHeaders  = []string{"Content-Type", "Authorization", "Idempotency-Key", "X-Request-Id"}
	DefaultExposeHeaders = []string{"Location", "ETag", "Retry-After", "RateLimit", "RateLimit-Policy", "X-Request-Id", "Idempotent-Replayed", "WWW-Authenticate"}
)

// DefaultMaxAge is how long browsers cache a preflight by default.
const DefaultMaxAge = 10 * time.Minute

// Duration is a duration string in JSON ("10m").
type Duration time.Duration

// UnmarshalJSONFrom parses a duration string.
func (d *Duration) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	var s string
	if err := json.UnmarshalDecode(dec, &s); err != nil {
		return fmt.Errorf("want a duration string such as \"10m\"")
	}
	v, err := time.ParseDuration(s)
	if err != nil || v < 0 {
		return fmt.Errorf("%q is not a duration such as \"10m\"", s)
	}
	*d = Duration(v)
	return nil
}

// Policy is a checked Config, safe for concurrent use.
type Policy struct {
	any         bool // "*" among the origins
	exact       map[string]bool
	wildcards   []wildcard
	methods     []string
	methodsLine string
	headers     map[string]bool // lower case
	anyHeader   bool
	headersLine string
	// defaultHeaders: the config listed no allowHeaders, so WithHeaders
	// may add the app's own.
	defaultHeaders bool
	expose         string
	credentials    bool
	maxAge         string
}

type wildcard struct{ scheme, suffix, port string }

// New checks c. Errors name the member: cors.allowOrigins[1]: ...
func New(c Config) (*Policy, error) {
	if len(c.AllowOrigins) == 0 {
		return nil, fmt.Errorf("cors.allowOrigins: list the origins pages may call from, such as \"http://localhost:5173\"")
	}
	p := &Policy{exact: map[string]bool{}, headers: map[string]bool{}, credentials: c.AllowCredentials}
	for i, o := range c.AllowOrigins {
		switch {
		case o == "*":
			if c.AllowCredentials {
				return nil, fmt.Errorf("cors.allowOrigins[%d]: \"*\" with allowCredentials would let any site act as the signed-in user; list the origins", i)
			}
			p.any = true
		default:
			w, exact, err := parseOrigin(o)
			if err != nil {
				return nil, fmt.Errorf("cors.allowOrigins[%d]: %q: %v", i, o, err)
			}
			if w != nil {
				p.wildcards = append(p.wildcards, *w)
			} else {
				p.exact[exact] = true
			}
		}
	}
	p.methods = c.AllowMethods
	if len(p.methods) == 0 {
		p.methods = DefaultAllowMethods
	}
	for i, m := range p.methods {
		if m != strings.ToUpper(m) || m == "" || strings.ContainsAny(m, " ,") {
			return nil, fmt.Errorf("cors.allowMethods[%d]: %q: want an upper-case method such as \"PATCH\"", i, m)
		}
	}
	p.methodsLine = strings.Join(p.methods, ", ")
	headers := c.AllowHeaders
	if len(headers) == 0 {
		headers, p.defaultHeaders = DefaultAllowHeaders, true
	}
	for i, h := range headers {
		switch {
		case h == "*" && c.AllowCredentials:
			return nil, fmt.Errorf("cors.allowHeaders[%d]: \"*\" does not work with allowCredentials (browsers take it literally); list the headers", i)
		case h == "*":
			p.anyHeader = true
		case !httpguts.ValidHeaderFieldName(h):
			return nil, fmt.Errorf("cors.allowHeaders[%d]: %q is not a header name", i, h)
		default:
			p.headers[strings.ToLower(h)] = true
		}
	}
	p.headersLine = strings.Join(headers, ", ")
	expose := c.ExposeHeaders
	if expose == nil {
		expose = DefaultExposeHeaders
	}
	for i, h := range expose {
		if !httpguts.ValidHeaderFieldName(h) {
			return nil, fmt.Errorf("cors.exposeHeaders[%d]: %q is not a header name", i, h)
		}
	}
	p.expose = strings.Join(expose, ", ")
	maxAge := time.Duration(c.MaxAge)
	if maxAge == 0 {
		maxAge = DefaultMaxAge
	}
	p.maxAge = strconv.Itoa(int(maxAge / time.Second))
	return p, nil
}

// WithHeaders returns the policy with names added to the allowed request
// headers when the configuration left allowHeaders to its default: the
// host passes the headers its API-key security schemes read (X-API-Key),
// which a page must be allowed to send. A configuration that lists its
// allowHeaders keeps exactly those; p itself is never changed.
func (p *Policy) WithHeaders(names []string) *Policy {
	if p == nil || !p.defaultHeaders || p.anyHeader {
		return p
	}
	var add []string
	for _, n := range names {
		if l := strings.ToLower(n); !p.headers[l] && !slices.ContainsFunc(add, func(a string) bool { return strings.EqualFold(a, n) }) {
			add = append(add, n)
		}
	}
	if len(add) == 0 {
		return p
	}
	q := *p
	q.headers = make(map[string]bool, len(p.headers)+len(add))
	for h := range p.headers {
		q.headers[h] = true
	}
	for _, n := range add {
		q.headers[strings.ToLower(n)] = true
	}
	q.headersLine = p.headersLine + ", " + strings.Join(add, ", ")
	return &q
}

// parseOrigin reads an allowed origin: scheme://host[:port], the host
// possibly starting with "*.".
func parseOrigin(o string) (*wildcard, string, error) {
	u, err := url.Parse(o)
	if err != nil || u.Scheme == "" || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.User != nil {
		return nil, "", fmt.Errorf("want an origin: scheme://host[:port], without a path or a trailing \"/\"")
	}
	host := u.Hostname()
	if strings.Contains(host, "*") {
		rest, ok := strings.CutPrefix(host, "*.")
		if !ok || strings.Contains(rest, "*") || !strings.Contains(rest, ".") {
			return nil, "", fmt.Errorf("a wildcard stands for one whole label at the start: \"https://*.example.com\"")
		}
		return &wildcard{scheme: strings.ToLower(u.Scheme), suffix: "." + strings.ToLower(rest), port: u.Port()}, "", nil
	}
	return nil, strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host), nil
}

// allowed reports whether origin may call.
func (p *Policy) allowed(origin string) bool {
	if p.any {
		return true
	}
	o := strings.ToLower(origin)
	if p.exact[o] {
		return true
	}
	if len(p.wildcards) == 0 {
		return false
	}
	u, err := url.Parse(o)
	if err != nil || u.Host == "" {
		return false
	}
	for _, w := range p.wildcards {
		label, ok := strings.CutSuffix(u.Hostname(), w.suffix)
		if ok && u.Scheme == w.scheme && u.Port() == w.port && label != "" && !strings.Contains(label, ".") {
			return true
		}
	}
	return false
}

// allowOrigin is the Access-Control-Allow-Origin for an allowed origin.
func (p *Policy) allowOrigin(origin string) string {
	if p.any && !p.credentials {
		return "*"
	}
	return origin
}

// Preflight answers r when it is a CORS preflight and reports whether it
// did. A preflight always gets 204 (with Vary), and the Access-Control-
// Allow-* headers only when the origin, method and headers are allowed:
// without them the browser refuses to send the request, which is the
// answer. Any other request, OPTIONS included, is left to the routes.
func (p *Policy) Preflight(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	method := r.Header.Get("Access-Control-Request-Method")
	if r.Method != http.MethodOptions || origin == "" || method == "" {
		return false
	}
	h := w.Header()
	h.Add("Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
	if p.allowed(origin) && slices.Contains(p.methods, method) {
		if requested, ok := p.requestedHeaders(r); ok {
			h.Set("Access-Control-Allow-Origin", p.allowOrigin(origin))
			h.Set("Access-Control-Allow-Methods", p.methodsLine)
			if p.anyHeader {
				if requested != "" {
					h.Set("Access-Control-Allow-Headers", requested)
				}
			} else {
				h.Set("Access-Control-Allow-Headers", p.headersLine)
			}
			if p.credentials {
				h.Set("Access-Control-Allow-Credentials", "true")
			}
			h.Set("Access-Control-Max-Age", p.maxAge)
		}
	}
	w.WriteHeader(http.StatusNoContent)
	return true
}

// requestedHeaders checks Access-Control-Request-Headers.
func (p *Policy) requestedHeaders(r *http.Request) (string, bool) {
	line := strings.Join(r.Header.Values("Access-Control-Request-Headers"), ",")
	if p.anyHeader {
		return line, true
	}
	for _, name := range strings.Split(line, ",") {
		if name = strings.TrimSpace(name); name != "" && !p.headers[strings.ToLower(name)] {
			return "", false
		}
	}
	return line, true
}

// Apply adds the CORS headers of an answer to h: for an allowed Origin,
// Access-Control-Allow-Origin, -Allow-Credentials and -Expose-Headers;
// and Vary: Origin whenever the answer depends on the origin.
func (p *Policy) Apply(h http.Header, r *http.Request) {
	if !(p.any && !p.credentials) {
		h.Add("Vary", "Origin")
	}
	origin := r.Header.Get("Origin")
	if origin == "" || !p.allowed(origin) {
		return
	}
	h.Set("Access-Control-Allow-Origin", p.allowOrigin(origin))
	if p.credentials {
		h.Set("Access-Control-Allow-Credentials", "true")
	}
	if p.expose != "" {
		h.Set("Access-Control-Expose-Headers", p.expose)
	}
}
