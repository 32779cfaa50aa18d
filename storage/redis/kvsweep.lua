-- The part every key-value script starts with (kvset.lua, kvincr.lua,
-- kvdel.lua and unindex.lua are this text followed by their own): drop
-- from a namespace's index the keys whose values expired, and give their
-- bytes back to the app's quota. KEYS[1] the index (sorted set, score 0),
-- KEYS[2] the expiry index (sorted set: score = expiry in ms on the
-- server's clock), KEYS[3] the sizes of the keys that expire (hash),
-- KEYS[4] the app's usage (hash: keys, bytes). ARGV[1] the prefix of the
-- namespace's value keys.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

-- forget removes member from the indexes and the quota, once its value is
-- gone.
local function forget(member)
  if redis.call('ZREM', KEYS[1], member) == 0 then
    return
  end
  local size = tonumber(redis.call('HGET', KEYS[3], member)) or 0
  redis.call('ZREM', KEYS[2], member)
  redis.call('HDEL', KEYS[3], member)
  redis.call('HINCRBY', KEYS[4], 'keys', -1)
  redis.call('HINCRBY', KEYS[4], 'bytes', -size)
end

-- At most 64 a call: each write adds at most one key that expires, so the
-- sweep keeps up; a value Redis has not yet expired (clocks agree to the
-- millisecond) waits for the next call.
for _, member in ipairs(redis.call('ZRANGE', KEYS[2], '-inf', now, 'BYSCORE', 'LIMIT', 0, 64)) do
  if redis.call('EXISTS', ARGV[1] .. member) == 0 then
    forget(member)
  end
end
