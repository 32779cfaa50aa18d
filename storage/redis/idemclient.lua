-- The part the Idempotency-Key scripts start with (claim.lua, complete.lua
-- and release.lua are this text followed by their own): a client's share
-- of the records. Each client's records are a sorted set whose members are
-- "size:key" (the bytes the record counts, and its Redis key) scored by
-- the record's expiry in ms on the server's clock, beside a string holding
-- the sum of their sizes. Both expire with the client's last record, so a
-- client that holds none leaves nothing behind.

-- release_expired drops the members of the client's set whose records
-- expired by now, takes their sizes from the sum, and returns the sum.
local function release_expired(set, sum, now)
  local gone = redis.call('ZRANGE', set, '-inf', now, 'BYSCORE')
  if #gone > 0 then
    local freed = 0
    for _, member in ipairs(gone) do
      freed = freed + tonumber(string.match(member, '^(%d+):'))
    end
    redis.call('ZREMRANGEBYSCORE', set, '-inf', now)
    if redis.call('DECRBY', sum, freed) <= 0 then
      redis.call('DEL', sum)
    end
  end
  return tonumber(redis.call('GET', sum)) or 0
end

-- expire_with_last makes the set and the sum expire with the set's last
-- record, or deletes them when it holds none.
local function expire_with_last(set, sum)
  local last = redis.call('ZRANGE', set, -1, -1, 'WITHSCORES')
  if last[2] then
    redis.call('PEXPIREAT', set, last[2])
    redis.call('PEXPIREAT', sum, last[2])
  else
    redis.call('DEL', set, sum)
  end
end

-- count adds member (size bytes, expiring at the score expires) to the
-- client's share.
local function count(set, sum, member, expires, size)
  -- A member left by an earlier record of the same key, size and client
  -- that Redis expired a millisecond before its score: counted once.
  local old = redis.call('ZSCORE', set, member)
  redis.call('ZADD', set, expires, member)
  if not old then
    redis.call('INCRBY', sum, size)
  end
  expire_with_last(set, sum)
end

-- uncount takes member (size bytes) out of the client's share.
local function uncount(set, sum, member, size)
  if redis.call('ZREM', set, member) == 1 then
    if redis.call('DECRBY', sum, size) <= 0 then
      redis.call('DEL', sum)
    end
  end
  expire_with_last(set, sum)
end

-- refusal is the claim script's answer past the client's share: {2, used, need, ms until the client's first record expires,
-- the share, the client's id}.
local function refusal(set, now, used, need, quota, client)
  local first = redis.call('ZRANGE', set, 0, 0, 'WITHSCORES')
  local retry = 0
  if first[2] then
    retry = math.max(tonumber(first[2]) - now, 0)
  end
  return {2, used, need, retry, quota, client}
end

local function server_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

