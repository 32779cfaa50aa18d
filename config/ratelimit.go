package config

// RateLimit is one entry of endpoints.json's "rateLimits": a token
// bucket per client, kept in the app's store, so that hosts sharing a Redis
// store share the buckets. The entry's name names the policy in the
// RateLimit headers.
//
//	"rateLimits": {"orders": {"routes": ["/api/orders"], "methods": ["POST"],
//	                          "limit": 10, "window": "1m", "key": "subject"}}
//
// A request over the limit gets 429 with Retry-After, and every answer of
// a limited operation carries RateLimit-Policy and RateLimit
// (draft-ietf-httpapi-ratelimit-headers).
type RateLimit struct {
	// Routes are route patterns as in server/routes.config.json
	// ("/api/orders", "/api/**"). Empty: every route.
	Routes []string `json:"routes,omitzero"`
	// Methods are upper-case methods. Empty: every method.
	Methods []string `json:"methods,omitzero"`
	// Limit is how many requests a client may make per Window. Required.
	Limit int64 `json:"limit"`
	// Window is the period Limit counts over ("1m"). Required.
	Window Duration `json:"window"`
	// Burst is how many requests a client may make at once, after a
	// quiet spell. Defaults to Limit.
	Burst int64 `json:"burst,omitzero"`
	// Key says who a client is: "ip" (the default: the client's address,
	// see trustedProxies; an IPv6 address by its /64), "subject" (the
	// authenticated principal, else the address) or "header:NAME" (a
	// request header, else the address).
	Key string `json:"key,omitzero"`
}
