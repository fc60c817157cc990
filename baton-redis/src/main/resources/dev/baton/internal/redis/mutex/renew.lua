-- Extends the lock's expiry if ARGV's owner still holds it; with a TTL of '0' (a fixed lease time,
-- as Redisson's lock(leaseTime)) only checks that it still does, and leaves the expiry as it was.
-- KEYS: as acquire.lua.  ARGV: 1 value (plain layout), 2 ttl ms or '0', 3 'plain' | 'redisson', 4 owner id
-- Returns 1 if extended (or still held), 0 if the lock is gone or someone else's.
local extend = ARGV[2] ~= '0'
if ARGV[3] == 'redisson' then
  if redis.call('HEXISTS', KEYS[1], ARGV[4]) == 0 then return 0 end
  if extend then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    redis.call('PEXPIRE', KEYS[5], ARGV[2])
  end
  return 1
end
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if extend then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1
