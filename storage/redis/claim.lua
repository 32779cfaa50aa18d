-- Claim an Idempotency-Key record: Store.Claim in redis.go.
-- KEYS[1]: the record, a hash. ARGV: fingerprint, lease token, lease in ms.
-- Returns {1} when the key was free and is now held under the token (the
-- record vanishes when the lease runs out), else the record found:
-- {0, fingerprint, state, answer, pttl}.
local found = redis.call('HMGET', KEYS[1], 'fp', 'state', 'answer')
if found[1] then
  return {0, found[1], found[2] or '', found[3] or '', redis.call('PTTL', KEYS[1])}
end
redis.call('HSET', KEYS[1], 'fp', ARGV[1], 'state', 'flight', 'lease', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {1}
