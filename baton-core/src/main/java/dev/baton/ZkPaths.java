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
      // ZooKeeper's message repeats the path, raw: keep only its reason, escaped.
      String reason = e.getMessage() == null ? "" : e.getMessage();
      int causedBy = reason.indexOf(" caused by ");
      reason = causedBy < 0 ? reason : reason.substring(causedBy + " caused by ".length());
      throw new IllegalArgumentException(
          what + " " + describe(path) + " is not a valid ZooKeeper path: " + describe(reason, false));
    }
    return path;
  }

  /**
   * As {@link #validate}, and neither the root (a recipe needs a node of its own) nor in
   * ZooKeeper's reserved {@code /zookeeper} tree (where the server keeps its quotas and config).
   * A client with a namespace also checks the path as it lands on the server; see {@code
   * Baton.Builder#namespace}.
   */
  public static String validateRecipePath(String path, String what) {
    validate(path, what);
    if (path.equals("/")) {
      throw new IllegalArgumentException(
          what + " '/' is the root; a recipe needs a path of its own, such as /locks/orders");
    }
    return path;
  }

  /** Whether {@code serverPath} is ZooKeeper's reserved {@code /zookeeper} node or below it. */
  public static boolean isReserved(String serverPath) {
    return serverPath.equals(RESERVED) || serverPath.startsWith(RESERVED + "/");
  }

  /** ZooKeeper's own tree, which clients must leave alone. */
  public static final String RESERVED = "/zookeeper";

  /** Validates a single node name (no slashes) to be placed under a parent path. */
  public static String validateName(String name, String what) {
    Objects.requireNonNull(name, () -> what + " must not be null");
    if (name.isEmpty() || name.contains("/")) {
      throw new IllegalArgumentException(what + " " + describe(name) + " must be a non-empty node name without '/'");
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

  /**
   * {@code value} as an error message may show it: quoted, control and undefined characters
   * escaped ({@code \u0000}), and a long one cut to its first characters and its length, so a
   * message never carries a raw newline or a megabyte of path.
   */
  public static String describe(String value) {
    return describe(value, true);
  }

  private static final int SHOWN = 64;

  private static String describe(String value, boolean quoted) {
    int shown = Math.min(value.length(), SHOWN);
    StringBuilder out = new StringBuilder(shown + 40);
    if (quoted) {
      out.append('\'');
    }
    for (int i = 0; i < shown; i++) {
      char c = value.charAt(i);
      if (Character.isISOControl(c) || !Character.isDefined(c)) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    if (value.length() > shown) {
      out.append("...");
    }
    if (quoted) {
      out.append('\'');
    }
    if (value.length() > shown) {
      out.append(" (").append(value.length()).append(" characters)");
    }
    return out.toString();
  }
}
