package redis

import (
	"context"
	_ "embed"
	"fmt"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/wasmendpoints/endpoints/storage"
)

var (
	//go:embed ratelimit.lua
	rateLimitSource string
	rateLimitScript = goredis.NewScript(rateLimitSource)
)

const microtoken = 1_000_000

// Take implements [storage.RateLimiter] with one Lua script: the bucket is
// a hash under endpoints:{namespace}:ratelimit:{key}, refilled on the
// server's clock (TIME), and expires once it would be full again. Every
// host on the server shares it.
func (s *Store) Take(ctx context.Context, key string, rate storage.Rate) (storage.Decision, error) {
	if rate.Limit <= 0 || rate.Window < time.Microsecond || rate.Burst < 0 || rate.Limit > 1<<30 || rate.Burst > 1<<30 {
		return storage.Decision{}, fmt.Errorf("storage/redis: rate %d per %s, burst %d: want a limit and burst of 1 to 2^30 and a window of at least 1µs", rate.Limit, rate.Window, rate.Burst)
	}
	burst := rate.Burst
	if burst == 0 {
		burst = rate.Limit
	}
	capacity, per, window := burst*microtoken, rate.Limit*microtoken, rate.Window.Microseconds()
	reply, err := rateLimitScript.Run(ctx, s.client, []string{s.rateLimit + key}, capacity, per, window).Int64Slice()
	if err != nil {
		return storage.Decision{}, s.fail("EVALSHA ratelimit", err)
	}
	allowed, tokens, reset := reply[0] == 1, reply[1], reply[2]
	d := storage.Decision{Allowed: allowed, Remaining: tokens / microtoken, Reset: time.Duration(reset) * time.Microsecond}
	if !allowed {
		need := microtoken - tokens
		d.RetryAfter = time.Duration((need*window+per-1)/per) * time.Microsecond
	}
	return d, nil
}

var _ storage.RateLimiter = (*Store)(nil)
