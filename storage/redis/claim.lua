-- Claim an Idempotency-Key record: Store.Claim in redis.go.
-- KEYS[1]: the record, a hash. KEYS[2]: the client's records, a sorted set
-- (member "size:key", score the record's expiry in ms by the server's
-- clock). KEYS[3]: the bytes the client's records take, a string.
-- ARGV: fingerprint, lease token, lease in ms, the client's id ('' for
-- none: KEYS[2] and KEYS[3] are then unused), the client's share in bytes
-- (0: none), the overhead a record counts beside its strings. The record
-- keeps the client ('client'), the names of KEYS[2] and KEYS[3] ('set',
-- 'sum') and the bytes it counts ('size') for Complete and Release.
-- Returns {1} when the key was free and is now held under the token (the
-- record vanishes when the lease runs out), {2, used, need, retry in ms}
-- when the client's share has no room (nothing changed: see refusal in
-- idemclient.lua), else the record
-- found: {0, fingerprint, state, answer, pttl}.
local found = redis.call('HMGET', KEYS[1], 'fp', 'state', 'answer')
if found[1] then
  return {0, found[1], found[2] or '', found[3] or '', redis.call('PTTL', KEYS[1])}
end
local client = ARGV[4]
local size = tonumber(ARGV[6]) + #KEYS[1] + #ARGV[1] + #ARGV[2] + #client
if client ~= '' then
  local now = server_ms()
  local used = release_expired(KEYS[2], KEYS[3], now)
  local quota = tonumber(ARGV[5])
  if quota > 0 and used + size > quota then
    return refusal(KEYS[2], now, used, size, quota, client)
  end
  count(KEYS[2], KEYS[3], size .. ':' .. KEYS[1], now + tonumber(ARGV[3]), size)
end
redis.call('HSET', KEYS[1], 'fp', ARGV[1], 'state', 'flight', 'lease', ARGV[2],
  'client', client, 'set', KEYS[2], 'sum', KEYS[3], 'size', size)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {1}
