-- Releases one hold of a read-write lock (see rw-acquire.lua for the keys) if it is still this owner's,
-- and, once the lock is free or readable again, publishes Redisson's '1' (wake every waiter) on its channel.
-- ARGV: 1 'read' | 'write', 2 owner field, 3 the timeout keys' prefix ('{name}')
-- Returns 1 if released, 0 if the hold was not (or no longer) there.
redis.replicate_commands()
local kind, field, base = ARGV[1], ARGV[2], ARGV[3]
if redis.call('TYPE', KEYS[1])['ok'] ~= 'hash' then return 0 end
if kind == 'read' then
  if redis.call('HEXISTS', KEYS[1], field) == 0 then return 0 end
  local count = redis.call('HINCRBY', KEYS[1], field, -1)
  redis.call('DEL', base .. ':' .. field .. ':rwlock_timeout:' .. (count + 1))
  if count <= 0 then
    redis.call('HDEL', KEYS[1], field)
    redis.call('HDEL', KEYS[8], field)
  end
  if redis.call('HLEN', KEYS[1]) <= 1 then
    redis.call('DEL', KEYS[1])
    redis.call('PUBLISH', KEYS[6], '1')
  end
  return 1
end
if redis.call('HEXISTS', KEYS[1], field .. ':write') == 0 then return 0 end
redis.call('HDEL', KEYS[1], field .. ':write')
redis.call('HDEL', KEYS[8], field .. ':write')
redis.call('DEL', KEYS[7])
if redis.call('HLEN', KEYS[1]) <= 1 then
  redis.call('DEL', KEYS[1])
else
  redis.call('HSET', KEYS[1], 'mode', 'read') -- a downgraded read hold stays
end
redis.call('PUBLISH', KEYS[6], '1')
return 1
