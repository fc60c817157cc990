-- Takes ARGV[6] permits of a semaphore at once (all or nothing), or queues for them (see
-- sem-grant.lua, which comes before this text, for the keys and the member).
-- ARGV: 1 member, 2 ttl ms, 3 'try' | 'queue' | 'again' (queued before: a release may have granted
--       it meanwhile), 4 waiter lease ms, 5 the semaphore's permits (set as the count when there is
--       none yet, less the permits held), 6 permits wanted, 7 the owner id (permit i is '<id>:<i>')
-- Expired permits (a crashed holder's) come back first. Among Baton's clients the first in line is
-- served first, whatever it asks for; Redisson's clients do not queue.
-- Returns {1, token, expiry ms, now ms} when granted (by this attempt or, for 'again', by a release
-- whose notice has not come), else {0, available, now ms, the first in line or ''}: a waiter refused
-- with permits free passes its wake-up on to the first in line if that one is of its own client.
-- Most attempts under contention queue a waiter for want of permits: they cost the expiry sweep and
-- the count, and the queue entry's writes. The key kinds are checked only when a read fails.
local member, ttl, mode, waiterLease, wanted, id = ARGV[1], tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4]),
  tonumber(ARGV[6]), ARGV[7]

-- Puts the member at the end of the queue unless it has a place, and refreshes its deadline and
-- the queue's expiry, unless it did so within the last sixth of its lease: a waiter refused again
-- and again by wake-ups it could not use costs no writes. Its re-check, a third of the lease after
-- its last refusal, refreshes it at the latest half a lease before its deadline.
local function queue()
  local deadline = redis.call('ZSCORE', KEYS[5], member)
  if deadline and tonumber(deadline) - now >= waiterLease * 5 / 6 then return end
  if not deadline then
    local last = redis.call('ZRANGE', KEYS[4], -1, -1, 'WITHSCORES')
    local order = now
    if last[2] and tonumber(last[2]) >= order then order = tonumber(last[2]) + 1 end
    redis.call('ZADD', KEYS[4], 'NX', string.format('%.0f', order), member)
  end
  redis.call('ZADD', KEYS[5], string.format('%.0f', now + waiterLease), member)
  redis.call('PEXPIRE', KEYS[4], waiterLease)
  redis.call('PEXPIRE', KEYS[5], waiterLease)
end

-- A crashed holder's permits come back once they expire.
local expired = redis.pcall('ZRANGEBYSCORE', KEYS[2], 0, now)
if expired['err'] then return refuse(KEYS[2], 'the permits held') end
local raw = redis.pcall('GET', KEYS[1])
if type(raw) == 'table' and raw['err'] then return refuse(KEYS[1], 'a permit count') end
local available
if raw then
  available = tonumber(raw)
  if not available then
    return redis.error_reply('ERR the permit count ' .. KEYS[1] .. ' holds "' .. string.sub(raw, 1, 40)
      .. '", not a number: is the key used by something else? It was left as it is')
  end
end
if #expired > 0 then
  redis.call('ZREM', KEYS[2], unpack(expired))
  redis.call('HDEL', KEYS[7], unpack(expired))
end
local was = available
if not available then
  available = tonumber(ARGV[5]) - redis.call('ZCARD', KEYS[2])
elseif #expired > 0 then
  available = available + #expired
end

-- Queued before: a release may have granted this waiter its permits already (its notice on the way,
-- or lost with a dropped connection).
if mode == 'again' then
  local expires = redis.call('ZSCORE', KEYS[2], id .. ':1')
  if expires then
    if was ~= available then redis.call('SET', KEYS[1], available) end
    local record = redis.call('HGET', KEYS[7], id .. ':1')
    return {1, tonumber(string.match(record or '', '"token":(%d+)') or '0'), tonumber(expires), now}
  end
end

-- Permits free: the queue is served first, in its order (this waiter too, if its turn has come).
local empty, token, err = true, nil, nil
if available > 0 then
  available, empty, token, err = serveQueue(available, member)
end
if not token and not err and empty and available >= wanted then
  token, err = grant(member, id, wanted, ttl)
  if token then available = available - wanted end
end
if was ~= available then redis.call('SET', KEYS[1], available) end
if err then return err end
if token then
  return {1, token, now + ttl, now}
end
if mode ~= 'try' then queue() end
local head = ''
if available > 0 then head = redis.call('ZRANGE', KEYS[4], 0, 0)[1] or '' end
return {0, available, now, head}
