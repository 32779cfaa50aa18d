
-- Set: Store.Set in redis.go. ARGV[2] the key, ARGV[3] the value, ARGV[4]
-- the TTL in ms (0: none), ARGV[5] the quota's keys, ARGV[6] its bytes.
-- Returns 1, or 0 when the quota has no room (nothing changed).
local value = ARGV[1] .. ARGV[2]
-- A value that expired but is still indexed is forgotten first.
if redis.call('EXISTS', value) == 0 then
  forget(ARGV[2])
end
local had = redis.call('EXISTS', value) == 1
local old = 0
if had then
  old = #ARGV[2] + redis.call('STRLEN', value)
end
local size = #ARGV[2] + #ARGV[3]
local used = redis.call('HMGET', KEYS[4], 'keys', 'bytes')
local keys, bytes = tonumber(used[1]) or 0, tonumber(used[2]) or 0
if not had and keys + 1 > tonumber(ARGV[5]) then
  return 0
end
if bytes + size - old > tonumber(ARGV[6]) then
  return 0
end
local ttl = tonumber(ARGV[4])
if ttl > 0 then
  redis.call('SET', value, ARGV[3], 'PX', ttl)
  redis.call('ZADD', KEYS[2], now + ttl, ARGV[2])
  redis.call('HSET', KEYS[3], ARGV[2], size)
else
  redis.call('SET', value, ARGV[3])
  redis.call('ZREM', KEYS[2], ARGV[2])
  redis.call('HDEL', KEYS[3], ARGV[2])
end
redis.call('ZADD', KEYS[1], 0, ARGV[2])
if not had then
  redis.call('HINCRBY', KEYS[4], 'keys', 1)
end
redis.call('HINCRBY', KEYS[4], 'bytes', size - old)
return 1
