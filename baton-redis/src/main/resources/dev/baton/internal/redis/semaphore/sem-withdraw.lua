-- Takes a waiter that gave up out of the queue (see sem-acquire.lua for the keys); if an attempt of it
-- was granted after all (its reply lost or too late), its permits ARGV[2..] are given back too.
-- Wakes the next in line if anything changed. ARGV: 1 member, 2.. permit ids. Returns permits given back.
redis.replicate_commands()
local ids = {}
for i = 2, #ARGV do ids[#ids + 1] = ARGV[i] end
local removed = redis.call('ZREM', KEYS[2], unpack(ids))
redis.call('HDEL', KEYS[7], unpack(ids))
local value = nil
if removed > 0 then value = redis.call('INCRBY', KEYS[1], removed) end
local left = redis.call('ZREM', KEYS[4], ARGV[1])
redis.call('ZREM', KEYS[5], ARGV[1])
if removed > 0 or left == 1 then
  redis.call('PUBLISH', KEYS[3], tostring(value or redis.call('GET', KEYS[1]) or '0'))
end
return removed
