-- Complete an Idempotency-Key record: Store.Complete in redis.go.
-- KEYS[1]: the record. ARGV: lease token, answer (JSON), ttl in ms.
-- Returns 1, or 0 (and changes nothing) when the token is not the record's
-- lease: it expired, or the record is completed (its lease is '' then).
-- The answer counts against the claiming client's share, even past it;
-- the client's set and sum are named by the record (claim.lua), not by
-- KEYS: the store is a single server.
local rec = redis.call('HMGET', KEYS[1], 'lease', 'set', 'sum', 'size', 'until')
if ARGV[1] == '' or rec[1] ~= ARGV[1] then
  return 0
end
local old = rec[4] or '0'
local oldsize = tonumber(old)
local size = oldsize - #ARGV[1] + #ARGV[2]
local sizes = int(size)
local set, sum = rec[2], rec[3]
if set and set ~= '' then
  local expires = server_ms() + tonumber(ARGV[3])
  local score = int(expires)
  local delta = 0
  if redis.call('ZREM', set, old .. ':' .. KEYS[1]) == 1 then
    delta = -oldsize
  end
  if redis.call('ZADD', set, score, sizes .. ':' .. KEYS[1]) == 1 then
    delta = delta + size
  end
  local total = redis.call('INCRBY', sum, int(delta))
  if total == size or (rec[5] and rec[5] ~= '' and expires >= tonumber(rec[5])) then
    -- The answer's member is the only one, or it expires no earlier than
    -- the lease's did: the set's last score is the answer's or was before.
    expire_at(set, sum, score, total == size)
  else
    expire_with_last(set, sum)
  end
end
redis.call('HSET', KEYS[1], 'state', 'done', 'lease', '', 'answer', ARGV[2], 'size', sizes)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
