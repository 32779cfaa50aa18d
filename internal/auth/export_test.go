package auth

// Loaded returns the channel closed once the JWKS URL of a jwt verifier
// was first fetched, for tests that must not race its background fetch.
func Loaded(v Verifier) <-chan struct{} { return v.(*jwtVerifier).keys.remote.loaded }

// RetryAfter is retryAfter, for its table test.
var RetryAfter = retryAfter
