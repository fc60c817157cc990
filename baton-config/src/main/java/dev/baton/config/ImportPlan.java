package dev.baton.config;

import java.util.List;
import java.util.Objects;

/**
 * What an import writes, as {@link ConfigCenter#planImport} foresees it or {@link
 * ConfigCenter#importFrom(String, ConfigFormat, ImportOptions)} did it: the keys it adds, changes
 * and removes (the keys whose value stays are not listed), sorted by key.
 *
 * @param changes one per key written, sorted by key
 */
public record ImportPlan(List<Change> changes) {

  /** What an import does to one key. */
  public enum Kind {
    /** A key the text has and the config center had not. */
    ADDED,
    /** A key whose value in the text differs. */
    CHANGED,
    /** A key the text leaves out, deleted by a prune. */
    REMOVED
  }

  /**
   * One key's change: {@code oldValue} null when the key is added, {@code newValue} null when it is
   * removed.
   */
  public record Change(String key, String oldValue, String newValue) {
    public Change {
      Objects.requireNonNull(key, "key must not be null");
      if (oldValue == null && newValue == null) {
        throw new IllegalArgumentException("a change of '" + key + "' needs an old or a new value");
      }
    }

    public Kind kind() {
      return oldValue == null ? Kind.ADDED : newValue == null ? Kind.REMOVED : Kind.CHANGED;
    }

    /** {@code + key: new}, {@code ~ key: old -> new} or {@code - key: old}, on one line (line breaks as {@code \n}). */
    @Override
    public String toString() {
      return switch (kind()) {
        case ADDED -> "+ " + key + ": " + oneLine(newValue);
        case CHANGED -> "~ " + key + ": " + oneLine(oldValue) + " -> " + oneLine(newValue);
        case REMOVED -> "- " + key + ": " + oneLine(oldValue);
      };
    }

    private static String oneLine(String value) {
      return value.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r");
    }
  }

  public ImportPlan {
    changes = List.copyOf(changes);
  }

  /** How many keys the import adds, changes and removes in all. */
  public int size() {
    return changes.size();
  }

  public boolean isEmpty() {
    return changes.isEmpty();
  }

  /** How many changes are of {@code kind}. */
  public int count(Kind kind) {
    return (int) changes.stream().filter(c -> c.kind() == kind).count();
  }

  /** {@code 2 added, 1 changed, 0 removed}. */
  public String summary() {
    return count(Kind.ADDED) + " added, " + count(Kind.CHANGED) + " changed, " + count(Kind.REMOVED) + " removed";
  }
}
