package dev.baton.redis;

/**
 * How a Redis mutex keeps its lock in Redis, so that clients of other libraries working on the same
 * name exclude correctly against Baton's. Either way Baton adds, beside the lock key, a fencing
 * counter (kept for good, so tokens survive the lock key's expiry), a queue of its waiters with
 * their deadlines (removed by Redis once no waiter refreshes them), and a channel on which each
 * release wakes the first waiter.
 *
 * <p>Key names put the lock name in a hash tag ({@code prefix:{name}}, or {@code prefix:name} if the
 * name has braces already, as Redisson does), so every key of one lock falls in one slot.
 */
public enum RedisLockLayout {
  /**
   * The scheme written by hand: the lock is a string key named as the lock, set with {@code SET
   * name value NX PX ttl} and deleted only by the owner whose value it holds. A process that locks
   * that way on the same key excludes correctly against Baton (it does not queue, so it may come
   * before Baton's waiters). The value Baton writes is a JSON object naming the owner: {@code id},
   * {@code host}, {@code pid}, {@code start} (the process's start, epoch ms), {@code thread},
   * {@code token} and {@code at} (when granted, by the server's clock). Its fencing counter is
   * {@code baton_lock_token:{name}} and its channel {@code baton_lock_channel:{name}}.
   */
  PLAIN,
  /**
   * Redisson's {@code RLock}: a hash named as the lock with one field per holder ({@code
   * <client id>:<thread id>} for Redisson, Baton's owner id for Baton) holding the reentrant count,
   * and the release announced as {@code 0} on {@code redisson_lock__channel:{name}}, so Redisson's
   * waiters wake on Baton's releases and Baton's on Redisson's. The fencing counter is {@code
   * redisson_lock_token:{name}}, the one Redisson's {@code RFencedLock} increments, so tokens
   * grow across both. Baton records its owner's details in {@code baton_lock_holder:{name}}.
   */
  REDISSON
}
