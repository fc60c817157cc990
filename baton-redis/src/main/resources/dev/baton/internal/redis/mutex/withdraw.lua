-- Takes a waiter that gave up out of the queue. If an attempt of it was granted after all (its
-- reply lost or too late), the lock is released too. Either way the next in line is woken.
-- KEYS: as acquire.lua.  ARGV: 1 member, 2 'plain' | 'redisson', 3 owner id
-- Returns 1 if a hold of the member was released, else 0.
redis.replicate_commands()
local member, layout, id = ARGV[1], ARGV[2], ARGV[3]
local prefix = string.sub(member, 1, -2) .. ',"token":'
local released = 0
if layout == 'redisson' then
  if redis.call('HEXISTS', KEYS[1], id) == 1 then
    redis.call('DEL', KEYS[1], KEYS[5])
    released = 1
  end
else
  local current = redis.call('GET', KEYS[1])
  if current and string.sub(current, 1, #prefix) == prefix then
    redis.call('DEL', KEYS[1])
    released = 1
  end
end
local wasFirst = redis.call('ZRANGE', KEYS[3], 0, 0)[1] == member
redis.call('ZREM', KEYS[3], member)
redis.call('ZREM', KEYS[4], member)
if released == 1 or wasFirst then
  if layout == 'redisson' then
    redis.call('PUBLISH', KEYS[6], '0')
  else
    local head = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
    if head then redis.call('PUBLISH', KEYS[6], head) end
  end
end
return released
