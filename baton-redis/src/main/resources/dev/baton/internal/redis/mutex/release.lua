-- Releases the lock if ARGV's owner still holds it, and wakes the first in line.
-- KEYS: as acquire.lua.  ARGV: 1 value (plain layout), 2 'plain' | 'redisson', 3 owner id,
--       4 the last token the grant reserved, 5 the last token handed out
-- Returns 1 if released, 0 if the lock was not (or no longer) this owner's.
redis.replicate_commands()

-- Tokens reserved but not handed out go back, so the counter does not run ahead of the clock that
-- takes over should it be lost. Only while the lock is still this owner's (nobody else has drawn
-- since), and only if the counter still ends at this grant's reservation.
local function giveBack()
  if ARGV[4] ~= ARGV[5] and redis.call('GET', KEYS[2]) == ARGV[4] then
    redis.call('SET', KEYS[2], ARGV[5])
  end
end

if ARGV[2] == 'redisson' then
  if redis.call('HEXISTS', KEYS[1], ARGV[3]) == 0 then return 0 end
  giveBack()
  redis.call('DEL', KEYS[1], KEYS[5])
  redis.call('PUBLISH', KEYS[6], '0')
  return 1
end
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
giveBack()
redis.call('DEL', KEYS[1])
-- Nobody queues on most releases: the clock and the sweep are needed only when somebody does.
if redis.call('EXISTS', KEYS[3]) == 0 then return 1 end
local head = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local dead = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now)
for i = 1, #dead do
  redis.call('ZREM', KEYS[3], dead[i])
  redis.call('ZREM', KEYS[4], dead[i])
end
if #dead > 0 then head = redis.call('ZRANGE', KEYS[3], 0, 0)[1] end
if head then redis.call('PUBLISH', KEYS[6], head) end
return 1
