-- A token bucket, in microtokens (a token is 1e6), on the server's clock
-- so that hosts with skewed clocks share one bucket.
-- KEYS[1] the bucket (a hash: tokens, ts in microseconds)
-- ARGV[1] capacity in microtokens, ARGV[2] microtokens added per window,
-- ARGV[3] the window in microseconds
-- Returns {allowed (0/1), microtokens left, microseconds until full}.
local cap = tonumber(ARGV[1])
local per = tonumber(ARGV[2])
local win = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local s = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(s[1]) or cap
local ts = tonumber(s[2]) or now
if now > ts then
  tokens = math.min(cap, tokens + math.floor((now - ts) * per / win))
end
local allowed = 0
if tokens >= 1000000 then
  tokens = tokens - 1000000
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.0f', tokens), 'ts', string.format('%.0f', now))
local reset = math.ceil((cap - tokens) * win / per)
redis.call('PEXPIRE', KEYS[1], math.floor(reset / 1000) + 1000)
return {allowed, tokens, reset}
