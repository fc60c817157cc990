package dev.baton.internal.config;

import dev.baton.config.ConfigRevision;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/** Which value a key had at a version, as its kept revisions tell: pure, no ZooKeeper. */
final class ConfigRollback {
  private ConfigRollback() {}

  /**
   * The value at {@code version}: the one a revision wrote at that version, else the one a
   * revision replaced at that version (the first value of a key written by another tool).
   */
  static Optional<String> valueAt(List<ConfigRevision> revisions, int version) {
    for (ConfigRevision revision : revisions) {
      if (revision.version() == version && revision.value().isPresent()) {
        return revision.value();
      }
    }
    for (ConfigRevision revision : revisions) {
      if (revision.previousVersion() == version && revision.previousValue().isPresent()) {
        return revision.previousValue();
      }
    }
    return Optional.empty();
  }

  /** The versions whose value the revisions hold, ascending, for an error message. */
  static TreeSet<Integer> versionsKept(List<ConfigRevision> revisions) {
    TreeSet<Integer> versions = new TreeSet<>();
    for (ConfigRevision revision : revisions) {
      if (revision.value().isPresent()) {
        versions.add(revision.version());
      }
      if (revision.previousValue().isPresent()) {
        versions.add(revision.previousVersion());
      }
    }
    return versions;
  }
}
