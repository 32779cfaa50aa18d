package auth

// Loaded returns the channel closed once the JWKS URL of a jwt verifier
// was first fetched, for tests that must not race its background fetch.
func Loaded(v Verifier) <-chan struct{} { return v.(*jwtVerifier).keys.loaded.loaded }

// RetryAfter is retryAfter, for its table test.
var RetryAfter = retryAfter

// SetCompare replaces the bcrypt comparison of a basic verifier.
func SetCompare(v Verifier, compare func(hash, password []byte) error) {
	v.(*basicVerifier).compare = compare
}

// HashSlots is how many password checks may run at once.
func HashSlots() int { return cap(hashSlots) }

// HashWaiting is how many password checks wait for a slot.
func HashWaiting() int64 { return hashWaiting.Load() }
