package dev.baton.spring.integration;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * How a {@link BatonLockRegistry} turns a lock key into the name of a Baton mutex (a ZooKeeper
 * path, or a Redis key). The same key always gives the same name, so every process using the same
 * layout locks the same thing.
 */
@FunctionalInterface
public interface LockKeyLayout {

  /** The mutex name for {@code key}; throws {@code IllegalArgumentException} naming a key it cannot take. */
  String nameFor(Object key);

  /**
   * Baton's layout on ZooKeeper: {@code <root>/<key>}, the key's {@code toString()} URL-encoded so
   * that any key (a '/' in it included) is one node below {@code root}.
   */
  static LockKeyLayout zookeeper(String root) {
    String parent = trimSlash(Objects.requireNonNull(root, "root"));
    if (!parent.startsWith("/")) {
      throw new IllegalArgumentException("lock registry root '" + root + "' must start with /");
    }
    return key -> parent + "/" + encode(key);
  }

  /**
   * Spring Integration's {@code ZookeeperLockRegistry} layout: {@code
   * /SpringIntegration-LockRegistry/<key>}, String keys only and unencoded, as it does. Baton's
   * mutex keeps Curator's {@code InterProcessMutex} nodes, which that registry uses, so a Baton
   * registry in this layout and a {@code ZookeeperLockRegistry} exclude each other on the same key:
   * services can move from one to the other one at a time.
   */
  static LockKeyLayout zookeeperLockRegistry() {
    return zookeeperLockRegistry("/SpringIntegration-LockRegistry");
  }

  /** As {@link #zookeeperLockRegistry()}, under the root given to {@code ZookeeperLockRegistry(client, root)}. */
  static LockKeyLayout zookeeperLockRegistry(String root) {
    String parent = trimSlash(Objects.requireNonNull(root, "root"));
    return key -> {
      if (!(key instanceof String text)) {
        throw new IllegalArgumentException("ZookeeperLockRegistry's layout takes String keys only; got "
            + (key == null ? "null" : key.getClass().getName()));
      }
      return parent + "/" + text;
    };
  }

  /** Baton's layout on Redis: {@code <prefix><key>}, the key's {@code toString()} as is. */
  static LockKeyLayout redis(String prefix) {
    return prefixed(prefix);
  }

  /**
   * Baton's layout on a SQL database: the row {@code <prefix><key>} of the lock table, the key's
   * {@code toString()} as is (the client refuses names over 255 characters, naming them).
   */
  static LockKeyLayout jdbc(String prefix) {
    return prefixed(prefix);
  }

  private static LockKeyLayout prefixed(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    return key -> prefix + Objects.requireNonNull(key, "lock key").toString();
  }

  private static String encode(Object key) {
    String text = Objects.requireNonNull(key, "lock key").toString();
    if (text.isEmpty()) {
      throw new IllegalArgumentException("lock key must not be empty");
    }
    return URLEncoder.encode(text, StandardCharsets.UTF_8);
  }

  private static String trimSlash(String root) {
    return root.endsWith("/") && root.length() > 1 ? root.substring(0, root.length() - 1) : root;
  }
}
