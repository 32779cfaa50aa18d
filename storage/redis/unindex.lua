-- Drop an expired key from its namespace's index: Store.unindex in redis.go.
-- KEYS[1]: the index (sorted set), KEYS[2]: the value's key. ARGV: the member.
-- Checks again that the value is gone, so that a key set again since the
-- caller looked stays listed. Returns 1 when the member was removed.
if redis.call('EXISTS', KEYS[2]) == 0 then
  return redis.call('ZREM', KEYS[1], ARGV[1])
end
return 0
