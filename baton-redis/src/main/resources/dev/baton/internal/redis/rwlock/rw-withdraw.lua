-- Takes a waiter of a read-write lock that gave up out of the queue (see rw-acquire.lua for the keys);
-- if an attempt of it was granted after all (its reply lost or too late), that hold is released too.
-- Wakes every waiter if anything changed: readers kept out by a writer that gave up may come in.
-- ARGV: 1 'read' | 'write', 2 owner field, 3 member, 4 the timeout keys' prefix ('{name}')
-- Returns 1 if a hold was released, else 0.
redis.replicate_commands()
local kind, field, member, base = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local released = 0
if redis.call('TYPE', KEYS[1])['ok'] == 'hash' then
  if kind == 'read' and redis.call('HEXISTS', KEYS[1], field) == 1 then
    local count = tonumber(redis.call('HGET', KEYS[1], field)) or 1
    for i = 1, count do redis.call('DEL', base .. ':' .. field .. ':rwlock_timeout:' .. i) end
    redis.call('HDEL', KEYS[1], field)
    released = 1
  elseif kind == 'write' and redis.call('HEXISTS', KEYS[1], field .. ':write') == 1 then
    redis.call('HDEL', KEYS[1], field .. ':write')
    redis.call('DEL', KEYS[7])
    released = 1
    if redis.call('HLEN', KEYS[1]) > 1 then redis.call('HSET', KEYS[1], 'mode', 'read') end
  end
  if released == 1 and redis.call('HLEN', KEYS[1]) <= 1 then redis.call('DEL', KEYS[1]) end
end
if released == 1 then redis.call('HDEL', KEYS[8], kind == 'write' and field .. ':write' or field) end
local removed = redis.call('ZREM', KEYS[3], member)
redis.call('ZREM', KEYS[4], member)
redis.call('ZREM', KEYS[5], member)
if released == 1 or removed == 1 then redis.call('PUBLISH', KEYS[6], '1') end
return released
