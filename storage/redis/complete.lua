-- Complete an Idempotency-Key record: Store.Complete in redis.go.
-- KEYS[1]: the record. ARGV: lease token, answer (JSON), ttl in ms.
-- Returns 1, or 0 (and changes nothing) when the token is not the record's
-- lease: it expired, or the record is completed (it has no lease then).
if redis.call('HGET', KEYS[1], 'lease') ~= ARGV[1] then
  return 0
end
redis.call('HDEL', KEYS[1], 'lease')
redis.call('HSET', KEYS[1], 'state', 'done', 'answer', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
