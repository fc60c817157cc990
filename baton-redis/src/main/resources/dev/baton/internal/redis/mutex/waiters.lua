-- The live waiters in order, each with its arrival (server ms). Reads only.
-- KEYS: as acquire.lua.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local queued = redis.call('ZRANGE', KEYS[3], 0, -1, 'WITHSCORES')
local live = {}
for i = 1, #queued, 2 do
  local deadline = redis.call('ZSCORE', KEYS[4], queued[i])
  if deadline and tonumber(deadline) > now then
    live[#live + 1] = queued[i]
    live[#live + 1] = queued[i + 1]
  end
end
return live
