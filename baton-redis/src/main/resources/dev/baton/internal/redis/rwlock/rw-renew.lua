-- Extends one hold of a read-write lock (see rw-acquire.lua for the keys) if it is still this
-- owner's; with a TTL of '0' only checks that it is.
-- ARGV: 1 'read' | 'write', 2 owner field, 3 ttl ms or '0', 4 the timeout keys' prefix ('{name}')
-- Returns 1 if extended (or still held), 0 if the hold is gone.
local kind, field, ttl, base = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
if redis.call('TYPE', KEYS[1])['ok'] ~= 'hash' then return 0 end
if kind == 'read' then
  local count = tonumber(redis.call('HGET', KEYS[1], field))
  if not count or count < 1 then return 0 end
  if ttl == 0 then return redis.call('EXISTS', base .. ':' .. field .. ':rwlock_timeout:1') end
  -- Its first timeout key gone means Redis let the hold expire: lost, even if the field is still there.
  if redis.call('PEXPIRE', base .. ':' .. field .. ':rwlock_timeout:1', ttl) == 0 then return 0 end
  for i = 2, count do redis.call('PEXPIRE', base .. ':' .. field .. ':rwlock_timeout:' .. i, ttl) end
else
  if redis.call('HEXISTS', KEYS[1], field .. ':write') == 0 then return 0 end
  if ttl == 0 then return 1 end
  redis.call('PEXPIRE', KEYS[7], ttl)
end
local keep = math.max(redis.call('PTTL', KEYS[1]), ttl)
redis.call('PEXPIRE', KEYS[1], keep)
redis.call('PEXPIRE', KEYS[8], keep)
return 1
