-- Takes ARGV[6] permits of a semaphore at once (all or nothing), or queues for them (mode 'queue'),
-- in Redisson's RPermitExpirableSemaphore layout: KEYS[1] the available count (a string number),
-- KEYS[2] '{name}:timeout', a sorted set of permit ids scored by the time (ms) they expire, KEYS[3]
-- Redisson's channel 'redisson_sc:{name}', on which a release publishes the count now available.
-- Baton adds: KEYS[4] queue (member -> arrival order), KEYS[5] waiter deadlines, KEYS[6] fencing
-- counter, KEYS[7] holder records (permit id -> owner JSON).
-- ARGV: 1 member, 2 ttl ms, 3 'try' | 'queue', 4 waiter lease ms, 5 the semaphore's permits (set as
--       the count when there is none yet, less the permits held), 6 permits wanted, 7.. their ids
-- Expired permits (a crashed holder's) come back first. Among Baton's clients the first in line is
-- served first, whatever it asks for; Redisson's clients do not queue.
-- Returns {1, token} when granted, else {0, available, -1, the first in line before this attempt
-- or ''}: a waiter refused because another is first passes its wake-up on to it if that one is of
-- its own client.
-- Most attempts under contention are refusals of a waiter already queued, woken by a release that
-- another took: they cost the expiry sweep, the count and the waiter's own deadline, nothing more.
-- The key kinds are checked only when a read fails, and the queue is looked at only when the
-- permits would do.
redis.replicate_commands()
local member, ttl, mode, waiterLease, wanted = ARGV[1], tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[6])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local function refuse(key, what)
  return redis.error_reply('WRONGTYPE the key ' .. key .. ' holds a ' .. redis.call('TYPE', key)['ok'] .. ', not '
    .. what .. ': is it used by something else? It was left as it is')
end

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
  if available then available = redis.call('INCRBY', KEYS[1], #expired) end
end
if not available then
  available = tonumber(ARGV[5]) - redis.call('ZCARD', KEYS[2])
  redis.call('SET', KEYS[1], available)
end

if available < wanted then
  if mode ~= 'queue' then return {0, available, -1, ''} end
  queue()
  -- Some permits free: a waiter of this client asking fewer may be first in line, and need the
  -- wake-up this attempt took.
  if available > 0 then return {0, available, -1, redis.call('ZRANGE', KEYS[4], 0, 0)[1] or ''} end
  return {0, available, -1, ''}
end

-- Enough permits: the first in line (after waiters whose lease ran out) is served first. The next
-- in line comes with it, to tell whether anyone is left to wake.
local queued = redis.call('ZRANGE', KEYS[4], 0, 1)
while queued[1] and queued[1] ~= member do
  local deadline = redis.call('ZSCORE', KEYS[5], queued[1])
  if deadline and tonumber(deadline) > now then break end
  redis.call('ZREM', KEYS[4], queued[1])
  redis.call('ZREM', KEYS[5], queued[1])
  queued = redis.call('ZRANGE', KEYS[4], 0, 1)
end
local head = queued[1]

if head == nil or head == member then
  local rawToken = redis.call('MGET', KEYS[6])[1]
  local last = 0
  if rawToken then
    last = tonumber(rawToken)
    if not last then
      return redis.error_reply('ERR the fencing counter ' .. KEYS[6] .. ' holds "' .. string.sub(rawToken, 1, 40)
        .. '", not a number: is the key used by something else? It was left as it is')
    end
  elseif redis.call('EXISTS', KEYS[6]) == 1 then
    return refuse(KEYS[6], 'a fencing counter')
  end
  local token = math.max(last + 1, tonumber(t[1]) * 1000000 + tonumber(t[2]))
  redis.call('SET', KEYS[6], string.format('%.0f', token))
  redis.call('DECRBY', KEYS[1], wanted)
  -- Who holds, for holders(): the owner's JSON with its token and grant time, per permit.
  local record = string.format('%s,"token":%.0f,"at":%.0f}', string.sub(member, 1, -2), token, now)
  local expiries, records = {}, {}
  for i = 7, #ARGV do
    expiries[#expiries + 1] = now + ttl
    expiries[#expiries + 1] = ARGV[i]
    records[#records + 1] = ARGV[i]
    records[#records + 1] = record
  end
  redis.call('ZADD', KEYS[2], unpack(expiries))
  redis.call('HSET', KEYS[7], unpack(records))
  if head == member then
    redis.call('ZREM', KEYS[4], member)
    redis.call('ZREM', KEYS[5], member)
    -- Permits left and someone next in line: wake it, so several waiters come in on one release.
    if available > wanted and queued[2] then
      redis.call('PUBLISH', KEYS[3], tostring(available - wanted))
    end
  end
  return {1, token}
end

if mode == 'queue' then
  queue()
end
return {0, available, -1, head}
