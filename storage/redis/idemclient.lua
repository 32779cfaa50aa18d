-- The part the Idempotency-Key scripts start with (claim.lua, complete.lua
-- and release.lua are this text followed by their own): a client's share
-- of the records. Each client's records are a sorted set whose members are
-- "size:key" (the bytes the record counts, and its Redis key) scored by
-- the record's expiry in ms on the server's clock, beside a string holding
-- the sum of their sizes. Both expire with the client's last record (their
-- TTL is the set's highest score), so a client that holds none leaves
-- nothing behind.
--
-- Claim and Complete run on every request with an Idempotency-Key, so they
-- make few calls and pass Redis strings, not Lua numbers: Redis 7.0 writes
-- a number argument with "%.17g", which costs more than most commands
-- here (int below writes integers with '%d'), and a score it answers is
-- written the same way (only expire_with_last and refusal, off the common
-- path, read scores). Keeping the sum in the set, as a member scored by
-- it, would save a PEXPIREAT a script but costs more: ZINCRBY answers a
-- score.

-- int writes the integer n for redis.call.
local function int(n)
  return string.format('%d', n)
end

-- server_ms is the server's clock in ms.
local function server_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- release_expired drops the members of the client's set whose records
-- expired by now (a string), takes their sizes from the sum, which is
-- total and stays positive (it counts a record that has not expired), and
-- returns the new sum.
local function release_expired(set, sum, now, total)
  local gone = redis.call('ZRANGE', set, '-inf', now, 'BYSCORE')
  if #gone == 0 then
    return total
  end
  local freed = 0
  for _, member in ipairs(gone) do
    freed = freed + tonumber(string.match(member, '^(%d+):'))
  end
  redis.call('ZREMRANGEBYSCORE', set, '-inf', now)
  return redis.call('DECRBY', sum, int(freed))
end

-- expire_with_last makes the set and the sum expire with the set's last
-- record, or deletes them when it holds none.
local function expire_with_last(set, sum)
  local last = redis.call('ZRANGE', set, '-1', '-1', 'WITHSCORES')
  if last[2] then
    redis.call('PEXPIREAT', set, last[2])
    redis.call('PEXPIREAT', sum, last[2])
  else
    redis.call('DEL', set, sum)
  end
end

-- expire_at makes the set and the sum expire at expires (a string), the
-- score of a member just added, when it is their only one (alone), else
-- when that is later than their expiry (PEXPIREAT GT, Redis 7.0): their
-- expiry stays their highest score without reading it.
local function expire_at(set, sum, expires, alone)
  if alone then
    redis.call('PEXPIREAT', set, expires)
    redis.call('PEXPIREAT', sum, expires)
  else
    redis.call('PEXPIREAT', set, expires, 'GT')
    redis.call('PEXPIREAT', sum, expires, 'GT')
  end
end

-- uncount takes member (size bytes, a string) out of the client's share.
local function uncount(set, sum, member, size)
  if redis.call('ZREM', set, member) == 1 then
    if redis.call('DECRBY', sum, size) <= 0 then
      redis.call('DEL', set, sum)
      return
    end
  end
  expire_with_last(set, sum)
end

-- refusal is the claim script's answer past the client's share: {2, used, need, ms until the client's first record expires,
-- the share, the client's id}.
local function refusal(set, now, used, need, quota, client)
  local first = redis.call('ZRANGE', set, '0', '0', 'WITHSCORES')
  local retry = 0
  if first[2] then
    retry = math.max(tonumber(first[2]) - now, 0)
  end
  return {2, used, need, retry, quota, client}
end
