-- Grants the lock to ARGV[1] if it is free and nobody queues ahead; else queues it (mode 'queue').
-- KEYS: 1 lock, 2 fencing counter (kept for good), 3 queue (member -> arrival order), 4 waiter deadlines,
--       5 holder record (Redisson layout), 6 release channel
-- ARGV: 1 member (the owner's JSON), 2 ttl ms, 3 'try' | 'queue', 4 waiter lease ms,
--       5 'plain' | 'redisson', 6 owner id (the hash field in the Redisson layout), 7 tokens wanted:
--       a client that hands the lock between its threads gives each the next token
-- Returns {1, token, value, tokens reserved} when granted, else {0, the lock's pttl, the member's
-- rank or -1}. The counter ends at the last token reserved; the release gives back unused ones.
-- The uncontended grant is the path every cycle takes, so it reads as little as it can: the
-- queue's sweep of dead waiters runs only when somebody queues.
redis.replicate_commands()
local member, ttl, mode, layout, id = ARGV[1], ARGV[2], ARGV[3], ARGV[5], ARGV[6]
local prefix = string.sub(member, 1, -2) .. ',"token":'

-- The fencing counter as a number, nil if there is none yet (raw: what MGET read, false for a key
-- that is missing or of another kind; nil if not read yet). A key of another kind, or a string that is not a
-- number, is somebody else's: refused, naming that key, and kept as it is; read as 0, it would be
-- overwritten and the tokens of this lock would start again below those handed out before.
local function counter(raw)
  if raw == nil then raw = redis.call('MGET', KEYS[2])[1] end
  if not raw then
    local kind = redis.call('TYPE', KEYS[2])['ok']
    if kind ~= 'none' then
      return nil, redis.error_reply('WRONGTYPE the fencing counter ' .. KEYS[2] .. ' holds a ' .. kind
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

-- An earlier attempt of this member was granted with its reply lost (a reset, a command timeout):
-- it holds already. Its TTL ran from that grant, and the caller counts the lease from this
-- attempt: the expiry starts again now, or the key could expire while the lease still reads valid.
-- The token is nil when the Redisson layout's holder record is gone (evicted, deleted).
local function grantedAgain(token, value)
  local last, refused = counter(nil)
  if refused then return refused end
  if not token then
    local t = redis.call('TIME')
    token = math.max(last or 0, tonumber(t[1]) * 1000000 + tonumber(t[2]))
    value = string.format('%s%.0f,"at":%.0f}', prefix, token, tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
    last = nil
  end
  redis.call('PEXPIRE', KEYS[1], ttl)
  if layout == 'redisson' then redis.call('SET', KEYS[5], value, 'PX', ttl) end
  -- The tokens reserved are up to the counter; a counter lost since is set again, so that the
  -- next grant's token is larger than this one.
  if last and last >= token then
    return {1, token, value, math.min(last - token + 1, tonumber(ARGV[7]))}
  end
  redis.call('SET', KEYS[2], string.format('%.0f', token))
  return {1, token, value, 1}
end

local taken, last
if layout == 'redisson' then
  if redis.call('HEXISTS', KEYS[1], id) == 1 then
    local mine = redis.call('GET', KEYS[5])
    return grantedAgain(mine and tonumber(string.match(mine, '"token":(%d+)')), mine)
  end
  taken = redis.call('EXISTS', KEYS[1]) == 1
else
  -- The lock and the last token in one read. MGET reads a key of another kind as missing: the
  -- grant's SET NX below tells that case apart.
  local read = redis.call('MGET', KEYS[1], KEYS[2])
  local current = read[1]
  if current and string.sub(current, 1, #prefix) == prefix then
    return grantedAgain(tonumber(string.match(current, '"token":(%d+)')), current)
  end
  taken, last = current ~= false, read[2]
end

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
-- The deadlines are kept with the queue and expire with it: an empty queue has no dead waiters.
-- EXISTS first: on the uncontended path there is no queue, and its answer is a number, not a list.
local head
if redis.call('EXISTS', KEYS[3]) == 1 then head = redis.call('ZRANGE', KEYS[3], 0, 0)[1] end
if head and head ~= member then
  local dead = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now)
  for i = 1, #dead do
    redis.call('ZREM', KEYS[3], dead[i])
    redis.call('ZREM', KEYS[4], dead[i])
  end
  if #dead > 0 then head = redis.call('ZRANGE', KEYS[3], 0, 0)[1] end
  -- A head with no deadline (the deadlines key evicted or deleted) is never swept above, and the
  -- live waiters behind it, refreshing the queue, would starve: it counts as dead, as in waiters.lua.
  while head and head ~= member and not redis.call('ZSCORE', KEYS[4], head) do
    redis.call('ZREM', KEYS[3], head)
    head = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
  end
end

if not taken then
  if head == nil or head == member then
    -- The next token is the larger of the last one plus one and the server's clock in
    -- microseconds: tokens keep growing even after a restart without persistence lost the counter.
    local clock = tonumber(t[1]) * 1000000 + tonumber(t[2])
    -- A counter MGET did not find may be missing (the lock's first grant) or of another kind:
    -- counter() refuses the latter, and a non-number, rather than letting the SET below overwrite it.
    local lastToken, refused = counter(last)
    if refused then return refused end
    local token = math.max((lastToken or 0) + 1, clock)
    -- Reserved tokens may run ahead of the clock by one grant's worth at most, so that the clock,
    -- should the counter be lost, soon passes every token handed out (a counter already ahead,
    -- from grants faster than a microsecond each, gets fewer).
    local wanted = tonumber(ARGV[7])
    local reserved = math.max(1, math.min(wanted, clock + wanted - token))
    local value = string.format('%s%.0f,"at":%.0f}', prefix, token, now)
    if layout == 'redisson' then
      redis.call('HSET', KEYS[1], id, 1)
      redis.call('PEXPIRE', KEYS[1], ttl)
      redis.call('SET', KEYS[5], value, 'PX', ttl)
    elseif not redis.call('SET', KEYS[1], value, 'PX', ttl, 'NX') then
      return redis.error_reply('WRONGTYPE the key ' .. KEYS[1] .. ' holds a value that is not a lock of this layout')
    end
    redis.call('SET', KEYS[2], string.format('%.0f', token + reserved - 1))
    if head then
      redis.call('ZREM', KEYS[3], member)
      redis.call('ZREM', KEYS[4], member)
    end
    return {1, token, value, reserved}
  end
  -- Free, with another first in line: it may have missed its wake-up, so send it again. Not in the
  -- Redisson layout: its notice names nobody, so it would wake this same waiter (and every Redisson
  -- subscriber) to try again and publish again, a loop; there the head's own re-check finds the lock free.
  if mode == 'queue' and layout ~= 'redisson' then
    redis.call('PUBLISH', KEYS[6], head)
  end
end

local pttl = redis.call('PTTL', KEYS[1])
local rank = -1
if mode == 'queue' then
  local waiterLease = tonumber(ARGV[4])
  if not redis.call('ZSCORE', KEYS[3], member) then
    local last = redis.call('ZRANGE', KEYS[3], -1, -1, 'WITHSCORES')
    local order = now
    if last[2] and tonumber(last[2]) >= order then order = tonumber(last[2]) + 1 end
    redis.call('ZADD', KEYS[3], string.format('%.0f', order), member)
  end
  redis.call('ZADD', KEYS[4], string.format('%.0f', now + waiterLease), member)
  redis.call('PEXPIRE', KEYS[3], waiterLease)
  redis.call('PEXPIRE', KEYS[4], waiterLease)
  rank = redis.call('ZRANK', KEYS[3], member)
end
return {0, pttl, rank}
