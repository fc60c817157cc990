-- Redisson's RCountDownLatch.trySetCount: sets the count only on a latch that is not counting.
-- KEYS[1] the latch (the count, as text); ARGV[1] the count; ARGV[2] the channel
-- (redisson_countdownlatch__channel__{name}), told '1' (Redisson's NEW_COUNT_MESSAGE). Returns 1 if set.
if redis.call('exists', KEYS[1]) == 0 then
  redis.call('set', KEYS[1], ARGV[1])
  redis.call('publish', ARGV[2], '1')
  return 1
end
return 0
