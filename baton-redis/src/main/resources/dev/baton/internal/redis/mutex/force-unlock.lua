-- An operator's forced release: deletes the lock whoever holds it, in either layout, and wakes the
-- waiters. The fencing counter is kept, so the next holder's token is larger than the old one's and
-- the old holder's fenced writes are refused; the old holder's lease turns LOST at its next renewal.
-- KEYS: 1 lock, 2 queue (plain layout), 3 release channel (plain), 4 holder record (Redisson layout),
--       5 release channel (Redisson's RLock), 6 release channel (Redisson's RReadWriteLock)
-- Returns {1, what named the holder} if a lock was deleted, {0} if there was none. A key of another
-- kind is not a lock: refused, naming it, and kept.
redis.replicate_commands()
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'none' then return {0} end
if kind == 'string' then
  local value = redis.call('GET', KEYS[1])
  redis.call('DEL', KEYS[1])
  local head = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  if head then redis.call('PUBLISH', KEYS[3], head) end
  return {1, value}
end
if kind == 'hash' then
  -- Redisson's RLock (fields: owner -> count) or RReadWriteLock (a 'mode' field beside them).
  local record = redis.call('MGET', KEYS[4])[1]
  local holders = table.concat(redis.call('HKEYS', KEYS[1]), ',')
  redis.call('DEL', KEYS[1], KEYS[4])
  redis.call('PUBLISH', KEYS[5], '0')
  redis.call('PUBLISH', KEYS[6], '0')
  return {1, record or holders}
end
return redis.error_reply('WRONGTYPE the key ' .. KEYS[1] .. ' holds a ' .. kind .. ', not a lock: it was left as it is')
