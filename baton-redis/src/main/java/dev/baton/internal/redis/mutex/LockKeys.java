package dev.baton.internal.redis.mutex;

import dev.baton.redis.RedisLockLayout;

/**
 * The keys of one lock in one layout, in the order every script takes them: lock, fencing counter,
 * queue, waiter deadlines, holder record, release channel.
 */
final class LockKeys {
  private final String name;
  private final RedisLockLayout layout;
  private final String[] keys;

  LockKeys(String name, RedisLockLayout layout) {
    this.name = name;
    this.layout = layout;
    boolean redisson = layout == RedisLockLayout.REDISSON;
    this.keys = new String[] {
        name,
        tagged(redisson ? "redisson_lock_token" : "baton_lock_token", name),
        tagged("baton_lock_queue", name),
        tagged("baton_lock_alive", name),
        tagged("baton_lock_holder", name),
        tagged(redisson ? "redisson_lock__channel" : "baton_lock_channel", name)};
  }

  /**
   * {@code prefix:{name}}, so that Redis Cluster puts it in the lock's slot; a name that has braces
   * already keeps its own hash tag ({@code prefix:name}), as Redisson names its keys.
   */
  static String tagged(String prefix, String name) {
    return name.contains("{") ? prefix + ":" + name : prefix + ":{" + name + "}";
  }

  String name() {
    return name;
  }

  RedisLockLayout layout() {
    return layout;
  }

  /** {@code plain} or {@code redisson}, as the scripts take it. */
  String layoutArg() {
    return layout == RedisLockLayout.REDISSON ? "redisson" : "plain";
  }

  String[] all() {
    return keys;
  }

  String lock() {
    return keys[0];
  }

  String holderRecord() {
    return keys[4];
  }

  String channel() {
    return keys[5];
  }
}
