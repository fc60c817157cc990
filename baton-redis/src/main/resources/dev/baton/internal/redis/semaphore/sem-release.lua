-- Gives back the permits ARGV[1..] (see sem-acquire.lua for the keys) that are still held, and
-- publishes the count now available, as Redisson's release does. Returns how many were given back.
redis.replicate_commands()
local removed = redis.call('ZREM', KEYS[2], unpack(ARGV))
redis.call('HDEL', KEYS[7], unpack(ARGV))
if removed > 0 then
  local value = redis.call('INCRBY', KEYS[1], removed)
  redis.call('PUBLISH', KEYS[3], tostring(value))
end
return removed
