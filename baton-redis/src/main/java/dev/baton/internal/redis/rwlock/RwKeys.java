package dev.baton.internal.redis.rwlock;

/**
 * The keys of one read-write lock, in the order every script takes them: Redisson's hash ({@code
 * name}), then Baton's fencing counter, queue, waiting writers, waiter deadlines, Redisson's release
 * channel ({@code redisson_rwlock:{name}}), the writer's record and the holder records; and the prefix of Redisson's
 * reader timeout keys ({@code {name}}, as Redisson's {@code suffixName} makes it). All share the
 * name's hash tag, so a cluster keeps them on one master.
 */
final class RwKeys {
  private final String[] keys;
  private final String timeoutPrefix;

  RwKeys(String name) {
    this.keys = new String[] {
        name,
        tagged("baton_rwlock_token", name),
        tagged("baton_rwlock_queue", name),
        tagged("baton_rwlock_writers", name),
        tagged("baton_rwlock_alive", name),
        tagged("redisson_rwlock", name),
        tagged("baton_rwlock_writer", name),
        tagged("baton_rwlock_holders", name)};
    this.timeoutPrefix = name.contains("{") ? name : "{" + name + "}";
  }

  /** {@code prefix:{name}}, or {@code prefix:name} for a name with its own hash tag, as Redisson names its keys. */
  static String tagged(String prefix, String name) {
    return name.contains("{") ? prefix + ":" + name : prefix + ":{" + name + "}";
  }

  String[] all() {
    return keys;
  }

  String hash() {
    return keys[0];
  }

  String queue() {
    return keys[2];
  }

  String writers() {
    return keys[3];
  }

  String channel() {
    return keys[5];
  }

  String writerRecord() {
    return keys[6];
  }

  String holderRecords() {
    return keys[7];
  }

  /** The prefix of reader timeout keys: {@code <prefix>:<owner>:rwlock_timeout:<n>}. */
  String timeoutPrefix() {
    return timeoutPrefix;
  }
}
