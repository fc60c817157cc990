-- Compare-and-set of a counter kept as a plain string, as Redisson's RAtomicLong keeps it.
-- KEYS[1] the counter; ARGV[1] the value expected, as the key's text ('0' also matches a missing key);
-- ARGV[2] the update. Returns {1, expected} when applied, else {0, the text found ('0' when missing)}.
local current = redis.call('get', KEYS[1])
if current == ARGV[1] or (current == false and ARGV[1] == '0') then
  redis.call('set', KEYS[1], ARGV[2])
  return {1, ARGV[1]}
end
if current == false then
  current = '0'
end
return {0, current}
