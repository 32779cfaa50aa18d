
-- Drop expired keys a List met: Store.unindex in redis.go. ARGV[2...] the
-- members. Checks again that each value is gone, so that a key set again
-- since the caller looked stays listed. Returns how many were removed.
local removed = 0
for i = 2, #ARGV do
  if redis.call('EXISTS', ARGV[1] .. ARGV[i]) == 0 and redis.call('ZSCORE', KEYS[1], ARGV[i]) then
    forget(ARGV[i])
    removed = removed + 1
  end
end
return removed
