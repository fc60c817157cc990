-- Redisson's RCountDownLatch.countDown: the key goes at zero, and the channel hears '0'
-- (Redisson's ZERO_COUNT_MESSAGE), which wakes every waiter of either client.
-- KEYS[1] the latch; ARGV[1] the channel. Returns the count after it.
local v = redis.call('decr', KEYS[1])
if v <= 0 then
  redis.call('del', KEYS[1])
end
if v == 0 then
  redis.call('publish', ARGV[1], '0')
end
return v
