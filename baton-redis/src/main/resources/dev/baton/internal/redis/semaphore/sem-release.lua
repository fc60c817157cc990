-- Gives back the permits ARGV[2..] that are still held and, if ARGV[1] is not empty, takes that
-- waiter out of the queue (a withdrawal: a waiter that gave up, whose attempt may have been granted
-- after all, or granted by a release, its reply or notice lost or too late). See sem-grant.lua,
-- which comes before this text, for the keys. The permits freed (and any the waiter's leaving lets
-- through) go to the first in line at once; what is left is published on Redisson's channel, as
-- Redisson's release does, for Redisson's clients and for Baton waiters of older versions. Sent
-- again after a lost reply, it finds nothing to give back and does nothing. Returns the permits
-- given back.
local ids = {}
for i = 2, #ARGV do ids[#ids + 1] = ARGV[i] end
local raw = redis.pcall('GET', KEYS[1])
if type(raw) == 'table' and raw['err'] then return refuse(KEYS[1], 'a permit count') end
local available = tonumber(raw or '0')
if not available then
  return redis.error_reply('ERR the permit count ' .. KEYS[1] .. ' holds "' .. string.sub(raw, 1, 40)
    .. '", not a number: is the key used by something else? It was left as it is')
end
local removed = redis.call('ZREM', KEYS[2], unpack(ids))
if removed > 0 then redis.call('HDEL', KEYS[7], unpack(ids)) end
local left = 0
if ARGV[1] ~= '' then
  left = redis.call('ZREM', KEYS[4], ARGV[1])
  redis.call('ZREM', KEYS[5], ARGV[1])
end
if removed == 0 and left == 0 then return 0 end
local was = available
available = available + removed
if available > 0 then available = serveQueue(available, nil) end
if available ~= was then redis.call('SET', KEYS[1], available) end
if available > 0 then redis.call('PUBLISH', KEYS[3], tostring(available)) end
return removed
