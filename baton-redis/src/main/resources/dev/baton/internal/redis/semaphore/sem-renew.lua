-- Moves the expiry of permits ARGV[2..] to now + ARGV[1] ms (see sem-acquire.lua for the keys) if
-- every one of them is still held and unexpired; ARGV[1] = '0' only checks. Returns 1 if so, else 0.
redis.replicate_commands()
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i = 2, #ARGV do
  local expires = redis.call('ZSCORE', KEYS[2], ARGV[i])
  if not expires or tonumber(expires) <= now then return 0 end
end
if ARGV[1] ~= '0' then
  for i = 2, #ARGV do redis.call('ZADD', KEYS[2], 'XX', now + tonumber(ARGV[1]), ARGV[i]) end
end
return 1
