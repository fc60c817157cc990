package dev.baton.micrometer;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns a path into a tag value of bounded cardinality: its first {@code depth} segments (so
 * {@code /locks/sku-42} is {@code /locks} at depth 1; a Redis lock name, which has no leading
 * slash, is cut at colons as Redis keys are named: {@code orders:sku-42} is {@code orders}), and once {@code maxValues} different
 * prefixes have been seen, {@value #OTHER} for any new one. A metrics backend then never sees more
 * than {@code maxValues + 1} values, however many lock paths an application makes.
 */
public final class PathTags {
  /** The tag value of every prefix past the limit. */
  public static final String OTHER = "other";

  private final int depth;
  private final int maxValues;
  private final Set<String> seen = ConcurrentHashMap.newKeySet();

  /**
   * @throws IllegalArgumentException if {@code depth} or {@code maxValues} is below 1
   */
  public PathTags(int depth, int maxValues) {
    if (depth < 1) {
      throw new IllegalArgumentException("path tag depth must be at least 1, was " + depth);
    }
    if (maxValues < 1) {
      throw new IllegalArgumentException("path tag maxValues must be at least 1, was " + maxValues);
    }
    this.depth = depth;
    this.maxValues = maxValues;
  }

  /** Depth 1, at most 100 values. */
  public static PathTags defaults() {
    return new PathTags(1, 100);
  }

  /** The tag value for {@code path}: its prefix, or {@value #OTHER} past the limit. */
  public String of(String path) {
    String prefix = prefix(path);
    if (seen.contains(prefix)) {
      return prefix;
    }
    // Racing threads may each add one past the limit; the bound stays maxValues plus the threads.
    if (seen.size() >= maxValues) {
      return OTHER;
    }
    seen.add(prefix);
    return prefix;
  }

  private String prefix(String path) {
    if (path == null || path.isEmpty()) {
      return "/";
    }
    boolean zookeeper = path.charAt(0) == '/';
    char separator = zookeeper ? '/' : ':';
    int end = zookeeper ? 0 : -1;
    for (int segment = 0; segment < depth; segment++) {
      int next = path.indexOf(separator, end + 1);
      if (next < 0) {
        return path;
      }
      end = next;
    }
    return end == 0 ? String.valueOf(separator) : path.substring(0, end);
  }
}
