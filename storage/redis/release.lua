-- Release an Idempotency-Key record: Store.Release in redis.go.
-- KEYS[1]: the record. ARGV: lease token.
-- Returns 1 when the record was held under the token and is deleted, else 0.
if redis.call('HGET', KEYS[1], 'lease') ~= ARGV[1] then
  return 0
end
redis.call('DEL', KEYS[1])
return 1
