-- Sets KEYS[1] to ARGV[1] only if the fencing token ARGV[2] is not lower than the highest one a write
-- to it carried before, kept in KEYS[2] (never expiring, like a lock's counter). An equal token is
-- let through: one holder writes as often as it likes.
-- Returns {1, token} if written, {0, the highest token seen} if refused as stale. A key of another
-- kind under either name is refused, naming it, and nothing is written.
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind ~= 'none' and kind ~= 'string' then
  return redis.error_reply('WRONGTYPE the key ' .. KEYS[1] .. ' holds a ' .. kind
    .. ', not a string: a fenced write sets strings; it was left as it is')
end
local raw = redis.call('MGET', KEYS[2])[1]
local last
if raw then
  last = tonumber(raw)
  if not last then
    return redis.error_reply('ERR the fence ' .. KEYS[2] .. ' holds "' .. string.sub(raw, 1, 40)
      .. '", not a token: is the key used by something else? It was left as it is')
  end
elseif redis.call('EXISTS', KEYS[2]) == 1 then
  return redis.error_reply('WRONGTYPE the fence ' .. KEYS[2] .. ' holds a ' .. redis.call('TYPE', KEYS[2])['ok']
    .. ', not a token: is the key used by something else? It was left as it is')
end
if last and tonumber(ARGV[2]) < last then return {0, raw} end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], ARGV[2])
return {1, ARGV[2]}
