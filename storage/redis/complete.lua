-- Complete an Idempotency-Key record: Store.Complete in redis.go.
-- KEYS[1]: the record. ARGV: lease token, answer (JSON), ttl in ms.
-- Returns 1, or 0 (and changes nothing) when the token is not the record's
-- lease: it expired, or the record is completed (it has no lease then).
-- The answer counts against the claiming client's share, even past it;
-- the client's set and sum are named by the record (claim.lua), not by
-- KEYS: the store is a single server.
local rec = redis.call('HMGET', KEYS[1], 'lease', 'set', 'sum', 'size')
if rec[1] ~= ARGV[1] then
  return 0
end
local old = tonumber(rec[4]) or 0
local size = old - #ARGV[1] + #ARGV[2]
local set, sum = rec[2], rec[3]
if set and set ~= '' then
  local now = server_ms()
  release_expired(set, sum, now)
  uncount(set, sum, old .. ':' .. KEYS[1], old)
  count(set, sum, size .. ':' .. KEYS[1], now + tonumber(ARGV[3]), size)
end
redis.call('HDEL', KEYS[1], 'lease')
redis.call('HSET', KEYS[1], 'state', 'done', 'answer', ARGV[2], 'size', size)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
