package dev.baton;

import java.util.Objects;
import org.apache.zookeeper.common.PathUtils;

/**
 * ZooKeeper's path rules as Baton applies them where a path enters its API, so that the error
 * names the argument. Public so that tools (the {@code baton} command) can check a path before
 * they connect; every recipe applies the same checks itself.
 */
public final class ZkPaths {
  private ZkPaths() {}

  /**
   * Returns {@code path} if ZooKeeper accepts it as an absolute node path.
   *
   * @param what names the argument in the error, e.g. "mutex path"
   * @throws IllegalArgumentException naming the argument, the path and the rule it breaks
   */
  public static String validate(String path, String what) {
    Objects.requireNonNull(path, () -> what + " must not be null");
    try {
      PathUtils.validatePath(path);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          what + " '" + printable(path) + "' is not a valid ZooKeeper path: " + e.getMessage(), e);
    }
    return path;
  }

  /** As {@link #validate}, and not the root: a recipe needs a node of its own. */
  public static String validateRecipePath(String path, String what) {
    validate(path, what);
    if (path.equals("/")) {
      throw new IllegalArgumentException(
          what + " '/' is the root; a recipe needs a path of its own, such as /locks/orders");
    }
    return path;
  }

  /** Validates a single node name (no slashes) to be placed under a parent path. */
  public static String validateName(String name, String what) {
    Objects.requireNonNull(name, () -> what + " must not be null");
    if (name.isEmpty() || name.contains("/")) {
      throw new IllegalArgumentException(
          what + " '" + printable(name) + "' must be a non-empty node name without '/'");
    }
    validate("/" + name, what);
    return name;
  }

  public static String join(String parent, String child) {
    return parent.equals("/") ? "/" + child : parent + "/" + child;
  }

  /** The parent of an absolute path; "/" for a top-level node. */
  public static String parent(String path) {
    int slash = path.lastIndexOf('/');
    return slash <= 0 ? "/" : path.substring(0, slash);
  }

  public static String name(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  private static String printable(String path) {
    StringBuilder out = new StringBuilder(path.length());
    for (char c : path.toCharArray()) {
      if (Character.isISOControl(c) || !Character.isDefined(c)) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }
}
