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
-- Returns {1, token} when granted, else {0, available, the member's rank or -1, the first in line
-- before this attempt or ''}: a waiter refused because another is first passes its wake-up on to it
-- if that one is of its own client.
redis.replicate_commands()
local member, ttl, mode, wanted = ARGV[1], tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[6])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local function refuse(key, what)
  return redis.error_reply('WRONGTYPE the key ' .. key .. ' holds ' .. what .. ': is it used by something else? It was left as it is')
end
local countType = redis.call('TYPE', KEYS[1])['ok']
if countType ~= 'none' and countType ~= 'string' then return refuse(KEYS[1], 'a ' .. countType .. ', not a permit count') end
local timeoutType = redis.call('TYPE', KEYS[2])['ok']
if timeoutType ~= 'none' and timeoutType ~= 'zset' then return refuse(KEYS[2], 'a ' .. timeoutType .. ', not the permits held') end

-- A crashed holder's permits come back once they expire.
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], 0, now)
if #expired > 0 then
  redis.call('ZREM', KEYS[2], unpack(expired))
  redis.call('HDEL', KEYS[7], unpack(expired))
  if countType ~= 'none' then redis.call('INCRBY', KEYS[1], #expired) end
end

local raw = redis.call('GET', KEYS[1])
local available
if not raw then
  available = tonumber(ARGV[5]) - redis.call('ZCARD', KEYS[2])
  redis.call('SET', KEYS[1], available)
else
  available = tonumber(raw)
  if not available then
    return redis.error_reply('ERR the permit count ' .. KEYS[1] .. ' holds "' .. string.sub(raw, 1, 40)
      .. '", not a number: is the key used by something else? It was left as it is')
  end
end

local head
if redis.call('EXISTS', KEYS[4]) == 1 then
  local dead = redis.call('ZRANGEBYSCORE', KEYS[5], '-inf', now)
  for i = 1, #dead do
    redis.call('ZREM', KEYS[4], dead[i])
    redis.call('ZREM', KEYS[5], dead[i])
  end
  head = redis.call('ZRANGE', KEYS[4], 0, 0)[1]
  while head and head ~= member and not redis.call('ZSCORE', KEYS[5], head) do
    redis.call('ZREM', KEYS[4], head)
    head = redis.call('ZRANGE', KEYS[4], 0, 0)[1]
  end
end

if available >= wanted and (head == nil or head == member) then
  local rawToken = redis.call('MGET', KEYS[6])[1]
  local last = 0
  if rawToken then
    last = tonumber(rawToken)
    if not last then
      return redis.error_reply('ERR the fencing counter ' .. KEYS[6] .. ' holds "' .. string.sub(rawToken, 1, 40)
        .. '", not a number: is the key used by something else? It was left as it is')
    end
  elseif redis.call('EXISTS', KEYS[6]) == 1 then
    return refuse(KEYS[6], 'a ' .. redis.call('TYPE', KEYS[6])['ok'] .. ', not a fencing counter')
  end
  local token = math.max(last + 1, tonumber(t[1]) * 1000000 + tonumber(t[2]))
  redis.call('SET', KEYS[6], string.format('%.0f', token))
  redis.call('DECRBY', KEYS[1], wanted)
  -- Who holds, for holders(): the owner's JSON with its token and grant time, per permit.
  local record = string.format('%s,"token":%.0f,"at":%.0f}', string.sub(member, 1, -2), token, now)
  for i = 7, #ARGV do
    redis.call('ZADD', KEYS[2], now + ttl, ARGV[i])
    redis.call('HSET', KEYS[7], ARGV[i], record)
  end
  redis.call('ZREM', KEYS[4], member)
  redis.call('ZREM', KEYS[5], member)
  -- Permits left and someone next in line: wake it, so several waiters come in on one release.
  if available > wanted and redis.call('EXISTS', KEYS[4]) == 1 then
    redis.call('PUBLISH', KEYS[3], tostring(available - wanted))
  end
  return {1, token}
end

local rank = -1
if mode == 'queue' then
  local waiterLease = tonumber(ARGV[4])
  if not redis.call('ZSCORE', KEYS[4], member) then
    local last = redis.call('ZRANGE', KEYS[4], -1, -1, 'WITHSCORES')
    local order = now
    if last[2] and tonumber(last[2]) >= order then order = tonumber(last[2]) + 1 end
    redis.call('ZADD', KEYS[4], string.format('%.0f', order), member)
  end
  redis.call('ZADD', KEYS[5], string.format('%.0f', now + waiterLease), member)
  redis.call('PEXPIRE', KEYS[4], waiterLease)
  redis.call('PEXPIRE', KEYS[5], waiterLease)
  rank = redis.call('ZRANK', KEYS[4], member)
end
return {0, available, rank, head or ''}
