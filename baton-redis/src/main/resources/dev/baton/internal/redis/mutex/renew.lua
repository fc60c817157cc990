-- Extends the lock's expiry if ARGV's owner still holds it.
-- KEYS: as acquire.lua.  ARGV: 1 value (plain layout), 2 ttl ms, 3 'plain' | 'redisson', 4 owner id
-- Returns 1 if extended, 0 if the lock is gone or someone else's.
if ARGV[3] == 'redisson' then
  if redis.call('HEXISTS', KEYS[1], ARGV[4]) == 0 then return 0 end
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  redis.call('PEXPIRE', KEYS[5], ARGV[2])
  return 1
end
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
