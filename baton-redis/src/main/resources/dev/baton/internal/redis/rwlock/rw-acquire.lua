-- Grants the read or write half of a read-write lock kept in Redisson's RReadWriteLock layout, or
-- queues for it (mode 'queue').
-- Redisson's layout: the hash KEYS[1] has 'mode' = 'read' | 'write', a field per reader '<owner>' =
-- its reentrant count, and the writer's '<owner>:write' = its count; each reader's hold is kept alive
-- by '{name}:<owner>:rwlock_timeout:<i>' keys (PX ttl), the hash's own expiry being the longest.
-- Baton adds, beside it: KEYS[2] fencing counter, KEYS[3] queue (member -> arrival order), KEYS[4]
-- the waiting writers (same scores), KEYS[5] waiter deadlines, KEYS[6] release channel (Redisson's),
-- KEYS[7] the writer's record ('<owner> <token>', PX ttl), KEYS[8] holder records (hash field ->
-- the owner's JSON with its token, for holders()). A reader's timeout key holds its token.
-- ARGV: 1 'read' | 'write', 2 owner field, 3 ttl ms, 4 'try' | 'queue', 5 waiter lease ms,
--       6 member (the queue entry), 7 the write holder's owner field to downgrade from, or '',
--       8 the downgraded lease's token, 9 the timeout keys' prefix ('{name}')
-- Fairness among Baton's clients: first come first served, and a waiting writer keeps the readers
-- that came after it out. Redisson's own clients do not queue: their readers may pass a waiting
-- writer, as they do among themselves.
-- Returns {1, token} when granted, else {0, the lock's pttl, the member's rank or -1}.
redis.replicate_commands()
local kind, field, ttl, mode, member = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], ARGV[6]
local base = ARGV[9]
local function timeoutKey(f, i) return base .. ':' .. f .. ':rwlock_timeout:' .. i end

local keyType = redis.call('TYPE', KEYS[1])['ok']
if keyType ~= 'none' and keyType ~= 'hash' then
  return redis.error_reply('WRONGTYPE the key ' .. KEYS[1] .. ' holds a ' .. keyType
    .. ', not a read-write lock: it was left as it is')
end
local state = redis.call('HGET', KEYS[1], 'mode')
if keyType == 'hash' and not state then
  return redis.error_reply('WRONGTYPE the key ' .. KEYS[1] .. ' holds a hash without a mode field, not a'
    .. ' read-write lock (is it a mutex, RLock?): it was left as it is')
end

-- The counter as a number, nil if none yet; a key of another kind or a non-number is refused, naming
-- it, and kept (as the mutex's acquire.lua does).
local function lastToken()
  local raw = redis.call('MGET', KEYS[2])[1]
  if not raw then
    local other = redis.call('TYPE', KEYS[2])['ok']
    if other ~= 'none' then
      return nil, redis.error_reply('WRONGTYPE the fencing counter ' .. KEYS[2] .. ' holds a ' .. other
        .. ', not a number: is the key used by something else? It was left as it is')
    end
    return nil
  end
  local n = tonumber(raw)
  if not n then
    return nil, redis.error_reply('ERR the fencing counter ' .. KEYS[2] .. ' holds "' .. string.sub(raw, 1, 40)
      .. '", not a number: is the key used by something else? It was left as it is')
  end
  return n
end

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

-- An earlier attempt of this owner was granted with its reply lost: it holds already.
if kind == 'read' and state and redis.call('HEXISTS', KEYS[1], field) == 1 then
  local token = redis.call('GET', timeoutKey(field, 1))
  if token then
    redis.call('PEXPIRE', timeoutKey(field, 1), ttl)
    redis.call('PEXPIRE', KEYS[1], math.max(redis.call('PTTL', KEYS[1]), ttl))
    return {1, tonumber(token)}
  end
end
if kind == 'write' and state == 'write' and redis.call('HEXISTS', KEYS[1], field .. ':write') == 1 then
  local record = redis.call('GET', KEYS[7])
  if record and string.sub(record, 1, #field + 1) == field .. ' ' then
    redis.call('PEXPIRE', KEYS[1], math.max(redis.call('PTTL', KEYS[1]), ttl))
    redis.call('PEXPIRE', KEYS[7], ttl)
    return {1, tonumber(string.sub(record, #field + 2))}
  end
end

-- Readers whose timeout keys are all gone died holding (a crashed client): their fields go, so a
-- writer is not kept out for good by live readers that keep renewing the hash.
if state == 'read' and kind == 'write' then
  local fields = redis.call('HKEYS', KEYS[1])
  for _, f in ipairs(fields) do
    if f ~= 'mode' then
      local count = tonumber(redis.call('HGET', KEYS[1], f)) or 0
      local alive = false
      for i = 1, count do
        if redis.call('EXISTS', timeoutKey(f, i)) == 1 then alive = true break end
      end
      if not alive then
        redis.call('HDEL', KEYS[1], f)
        redis.call('HDEL', KEYS[8], f)
      end
    end
  end
  if redis.call('HLEN', KEYS[1]) <= 1 then
    redis.call('DEL', KEYS[1])
    state = false
  end
end

-- Waiters whose deadline passed (or that have none) leave the queue.
if redis.call('EXISTS', KEYS[3]) == 1 then
  local dead = redis.call('ZRANGEBYSCORE', KEYS[5], '-inf', now)
  for i = 1, #dead do
    redis.call('ZREM', KEYS[3], dead[i])
    redis.call('ZREM', KEYS[4], dead[i])
    redis.call('ZREM', KEYS[5], dead[i])
  end
  local head = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
  while head and head ~= member and not redis.call('ZSCORE', KEYS[5], head) do
    redis.call('ZREM', KEYS[3], head)
    redis.call('ZREM', KEYS[4], head)
    head = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
  end
end

local downgrade = ARGV[7] ~= '' and state == 'write' and redis.call('HEXISTS', KEYS[1], ARGV[7] .. ':write') == 1
local can
if kind == 'read' then
  if downgrade then
    can = true
  elseif state == 'write' then
    can = false
  else
    local writer = redis.call('ZRANGE', KEYS[4], 0, 0, 'WITHSCORES')
    if writer[1] then
      local mine = redis.call('ZSCORE', KEYS[3], member)
      can = mine ~= false and mine ~= nil and tonumber(mine) < tonumber(writer[2])
    else
      can = true
    end
  end
else
  if state then
    can = false
  else
    local head = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
    can = head == nil or head == member
  end
end

if can then
  local token
  if downgrade then
    token = tonumber(ARGV[8])
  else
    local last, refused = lastToken()
    if refused then return refused end
    token = math.max((last or 0) + 1, tonumber(t[1]) * 1000000 + tonumber(t[2]))
    redis.call('SET', KEYS[2], string.format('%.0f', token))
  end
  if kind == 'read' then
    if not state then redis.call('HSET', KEYS[1], 'mode', 'read') end
    local ind = redis.call('HINCRBY', KEYS[1], field, 1)
    redis.call('SET', timeoutKey(field, ind), string.format('%.0f', token), 'PX', ttl)
    redis.call('PEXPIRE', KEYS[1], math.max(redis.call('PTTL', KEYS[1]), ttl))
  else
    redis.call('HSET', KEYS[1], 'mode', 'write', field .. ':write', 1)
    redis.call('PEXPIRE', KEYS[1], ttl)
    redis.call('SET', KEYS[7], field .. ' ' .. string.format('%.0f', token), 'PX', ttl)
  end
  -- Who holds, for holders(): the owner's JSON with its token and grant time, kept as long as the hash.
  local record = string.format('%s,"token":%.0f,"at":%.0f}', string.sub(member, 1, -2), token, now)
  redis.call('HSET', KEYS[8], kind == 'write' and field .. ':write' or field, record)
  redis.call('PEXPIRE', KEYS[8], math.max(redis.call('PTTL', KEYS[1]), ttl))
  redis.call('ZREM', KEYS[3], member)
  redis.call('ZREM', KEYS[4], member)
  redis.call('ZREM', KEYS[5], member)
  return {1, token}
end

local pttl = redis.call('PTTL', KEYS[1])
local rank = -1
if mode == 'queue' then
  local waiterLease = tonumber(ARGV[5])
  if not redis.call('ZSCORE', KEYS[3], member) then
    local last = redis.call('ZRANGE', KEYS[3], -1, -1, 'WITHSCORES')
    local order = now
    if last[2] and tonumber(last[2]) >= order then order = tonumber(last[2]) + 1 end
    redis.call('ZADD', KEYS[3], string.format('%.0f', order), member)
    if kind == 'write' then redis.call('ZADD', KEYS[4], string.format('%.0f', order), member) end
  end
  redis.call('ZADD', KEYS[5], string.format('%.0f', now + waiterLease), member)
  redis.call('PEXPIRE', KEYS[3], waiterLease)
  redis.call('PEXPIRE', KEYS[4], waiterLease)
  redis.call('PEXPIRE', KEYS[5], waiterLease)
  rank = redis.call('ZRANK', KEYS[3], member)
end
return {0, pttl, rank}
