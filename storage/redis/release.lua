-- Release an Idempotency-Key record: Store.Release in redis.go.
-- KEYS[1]: the record. ARGV: lease token.
-- Returns 1 when the record was held under the token and is deleted (and
-- its bytes given back to its client's share), else 0.
local rec = redis.call('HMGET', KEYS[1], 'lease', 'set', 'sum', 'size')
if ARGV[1] == '' or rec[1] ~= ARGV[1] then
  return 0
end
if rec[2] and rec[2] ~= '' then
  local size = rec[4] or '0'
  uncount(rec[2], rec[3], size .. ':' .. KEYS[1], size)
end
redis.call('DEL', KEYS[1])
return 1
