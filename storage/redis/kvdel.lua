
-- Delete: Store.Delete in redis.go. ARGV[2] the key. Returns 1 when it
-- existed.
local value = ARGV[1] .. ARGV[2]
if redis.call('EXISTS', value) == 0 then
  forget(ARGV[2])
  return 0
end
local size = #ARGV[2] + redis.call('STRLEN', value)
redis.call('DEL', value)
redis.call('ZREM', KEYS[1], ARGV[2])
redis.call('ZREM', KEYS[2], ARGV[2])
redis.call('HDEL', KEYS[3], ARGV[2])
redis.call('HINCRBY', KEYS[4], 'keys', -1)
redis.call('HINCRBY', KEYS[4], 'bytes', -size)
return 1
