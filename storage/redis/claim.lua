-- Claim an Idempotency-Key record: Store.Claim in redis.go.
-- KEYS[1]: the record, a hash. KEYS[2]: the client's records, a sorted set
-- (member "size:key", score the record's expiry in ms by the server's
-- clock). KEYS[3]: the bytes the client's records take, a string.
-- ARGV: fingerprint, lease token, lease in ms, the client's id ('' for
-- none: KEYS[2] and KEYS[3] are then unused), the client's share in bytes
-- (0: none), the overhead a record counts beside its strings. The record
-- keeps the names of KEYS[2] and KEYS[3] ('set', 'sum'; '' without a
-- client), the bytes it counts ('size') and the score of its member
-- ('until', the lease's end) for Complete and Release.
-- Returns {1} when the key was free and is now held under the token (the
-- record vanishes when the lease runs out), {2, used, need, retry in ms}
-- when the client's share has no room (nothing changed: see refusal in
-- idemclient.lua), else the record
-- found: {0, fingerprint, state, answer, pttl}.
--
-- The record is counted first (INCRBY), and the members whose records
-- expired are dropped only when the sum then passes the share, or the
-- client has none (nothing else would drop them): the sum counts the
-- expired ones too, so a claim it admits fits, and the set and sum hold at
-- most a share's bytes either way.
local found = redis.call('HMGET', KEYS[1], 'fp', 'state', 'answer')
if found[1] then
  return {0, found[1], found[2] or '', found[3] or '', redis.call('PTTL', KEYS[1])}
end
local client = ARGV[4]
local size = tonumber(ARGV[6]) + #KEYS[1] + #ARGV[1] + #ARGV[2] + #client
local sizes = int(size)
local set, sum, expires = '', '', ''
if client ~= '' then
  set, sum = KEYS[2], KEYS[3]
  local now = server_ms()
  local quota = tonumber(ARGV[5])
  local total = redis.call('INCRBY', sum, sizes)
  if quota <= 0 or total > quota then
    total = release_expired(set, sum, int(now), total)
    if quota > 0 and total > quota then
      if redis.call('DECRBY', sum, sizes) <= 0 then
        redis.call('DEL', sum)
      end
      return refusal(set, now, total - size, size, quota, client)
    end
  end
  expires = int(now + tonumber(ARGV[3]))
  if redis.call('ZADD', set, expires, sizes .. ':' .. KEYS[1]) == 1 then
    expire_at(set, sum, expires, total == size)
  else
    -- A member left by an earlier record of the same key, size and client
    -- that Redis expired a millisecond before its score: counted once,
    -- its score changed.
    redis.call('DECRBY', sum, sizes)
    expire_with_last(set, sum)
  end
end
redis.call('HSET', KEYS[1], 'fp', ARGV[1], 'state', 'flight', 'lease', ARGV[2],
  'set', set, 'sum', sum, 'size', sizes, 'until', expires)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {1}
