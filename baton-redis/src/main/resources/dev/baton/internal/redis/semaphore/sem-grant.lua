-- What the semaphore's scripts share (each script is this text followed by its own): the server's
-- time, and the grant of permits to the first in line, so that a release (or a withdrawal, or an
-- attempt that found permits free) hands them over itself rather than waking a waiter to come and
-- take them: a hand-over then costs the waiter no round trip.
-- Keys (every script takes all of them), in Redisson's RPermitExpirableSemaphore layout: KEYS[1] the
-- available count (a string number), KEYS[2] '{name}:timeout', a sorted set of permit ids scored by
-- the time (ms) they expire, KEYS[3] Redisson's channel 'redisson_sc:{name}', on which the count now
-- available is published. Baton adds: KEYS[4] queue (member -> arrival order), KEYS[5] waiter
-- deadlines, KEYS[6] fencing counter, KEYS[7] holder records (permit id -> owner JSON), KEYS[8] the
-- channel a grant to a waiter is told on: '<token> <expiry ms> <member>'.
-- A member (a waiter's queue entry) is its owner JSON ending in '"permits":<n>,"ttl":<ms>}': what
-- it waits for, and how long its permits live unless renewed; permit i of it is '<id>:<i>'.
redis.replicate_commands()
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local function refuse(key, what)
  return redis.error_reply('WRONGTYPE the key ' .. key .. ' holds a ' .. redis.call('TYPE', key)['ok'] .. ', not '
    .. what .. ': is it used by something else? It was left as it is')
end

-- The last fencing token given, read once per script; nil and an error reply if the counter is not one.
local lastToken
local function readLastToken()
  if lastToken then return lastToken end
  local raw = redis.call('MGET', KEYS[6])[1]
  if raw then
    lastToken = tonumber(raw)
    if not lastToken then
      return nil, redis.error_reply('ERR the fencing counter ' .. KEYS[6] .. ' holds "' .. string.sub(raw, 1, 40)
        .. '", not a number: is the key used by something else? It was left as it is')
    end
  elseif redis.call('EXISTS', KEYS[6]) == 1 then
    return nil, refuse(KEYS[6], 'a fencing counter')
  else
    lastToken = 0
  end
  return lastToken
end

-- Grants `member` (owner id `id`) its `wanted` permits for `ttl` ms: the permits scored by their
-- expiry, a holder record per permit (for holders()), the next token. Returns the token, or nil and
-- an error reply when the fencing counter is not one (nothing written then).
local function grant(member, id, wanted, ttl)
  local last, err = readLastToken()
  if not last then return nil, err end
  local token = math.max(last + 1, tonumber(t[1]) * 1000000 + tonumber(t[2]))
  lastToken = token
  redis.call('SET', KEYS[6], string.format('%.0f', token))
  local record = string.format('%s,"token":%.0f,"at":%.0f}', string.sub(member, 1, -2), token, now)
  local expiries, records = {}, {}
  for i = 1, wanted do
    local permit = id .. ':' .. i
    expiries[#expiries + 1] = now + ttl
    expiries[#expiries + 1] = permit
    records[#records + 1] = permit
    records[#records + 1] = record
  end
  redis.call('ZADD', KEYS[2], unpack(expiries))
  redis.call('HSET', KEYS[7], unpack(records))
  return token
end

-- Serves the queue from its head while the `available` permits do: each waiter served is granted
-- (with its own TTL: the permits of a waiter whose client died expire as a holder's would) and told
-- on KEYS[8]; a waiter whose deadline has passed (its client stopped refreshing it) is dropped, not
-- served. `except` (the member of the attempt running, which is told by its reply) is granted
-- without a notice. Stops at a waiter that wants more than is left, keeping the order (all or
-- nothing, first come first served), and at an entry without what it waits for (an older Baton's,
-- which takes its permits itself when woken). Returns the permits left, whether the queue is known
-- to be empty now, the token of `except` if it was served, and an error reply if the fencing counter is not one.
local function serveQueue(available, except)
  local exceptToken
  while true do
    -- None left: whether anyone is still waiting does not matter (every waiter wants one or more).
    if available <= 0 then return available, false, exceptToken end
    local head = redis.call('ZRANGE', KEYS[4], 0, 0)[1]
    if not head then return available, true, exceptToken end
    local deadline = redis.call('ZSCORE', KEYS[5], head)
    if deadline and tonumber(deadline) > now then
      local id, wanted, ttl = string.match(head, '^{"id":"([^"]+)".*,"permits":(%d+),"ttl":(%d+)}$')
      if not id or tonumber(wanted) > available then return available, false, exceptToken end
      local token, err = grant(head, id, tonumber(wanted), tonumber(ttl))
      if not token then return available, false, exceptToken, err end
      available = available - tonumber(wanted)
      if head == except then
        exceptToken = token
      else
        redis.call('PUBLISH', KEYS[8], string.format('%.0f %.0f ', token, now + tonumber(ttl)) .. head)
      end
    end
    redis.call('ZREM', KEYS[4], head)
    redis.call('ZREM', KEYS[5], head)
  end
end
