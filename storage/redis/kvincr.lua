
-- Incr: Store.Incr in redis.go. ARGV[2] the key, ARGV[3] the delta,
-- ARGV[4] the quota's keys, ARGV[5] its bytes. Returns {1, the new value
-- as a string}, {0}
-- when the quota has no room, or INCRBY's error (not an integer, overflow).
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
local used = redis.call('HMGET', KEYS[4], 'keys', 'bytes')
local keys, bytes = tonumber(used[1]) or 0, tonumber(used[2]) or 0
-- An integer takes at most 20 bytes.
if not had and keys + 1 > tonumber(ARGV[4]) then
  return {0}
end
if bytes + #ARGV[2] + 20 - old > tonumber(ARGV[5]) then
  return {0}
end
local n = redis.pcall('INCRBY', value, ARGV[3])
if type(n) == 'table' and n.err then
  return n
end
-- Lua's numbers are doubles: the value goes back as the string Redis
-- keeps, exact.
local size = #ARGV[2] + redis.call('STRLEN', value)
if redis.call('PTTL', value) > 0 then
  redis.call('HSET', KEYS[3], ARGV[2], size)
end
redis.call('ZADD', KEYS[1], 0, ARGV[2])
if not had then
  redis.call('HINCRBY', KEYS[4], 'keys', 1)
end
redis.call('HINCRBY', KEYS[4], 'bytes', size - old)
return {1, redis.call('GET', value)}
