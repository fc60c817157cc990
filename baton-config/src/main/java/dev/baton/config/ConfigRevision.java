package dev.baton.config;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One write of a key, as its history keeps it ({@link ConfigCenter#history(String)}).
 *
 * @param key the key
 * @param version the key's version after the write; -1 for a delete
 * @param value the value written; empty for a delete
 * @param previousVersion the version the write replaced; -1 if it created the key
 * @param previousValue the value it replaced, if the writer's copy knew it (empty for a create)
 * @param operation what the write was: {@code create}, {@code update}, {@code set}, {@code
 *     compare-and-set}, {@code delete}, {@code rollback to version N}
 * @param host the writer's host name
 * @param pid the writer's process id
 * @param authId the writer's ZooKeeper identity ({@code digest:user}), if it authenticated
 * @param time when the ensemble applied the write (its clock)
 */
public record ConfigRevision(String key, int version, Optional<String> value, int previousVersion,
    Optional<String> previousValue, String operation, String host, long pid, Optional<String> authId,
    Instant time) {

  public ConfigRevision {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    Objects.requireNonNull(previousValue, "previousValue");
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(authId, "authId");
    Objects.requireNonNull(time, "time");
  }

  /** Whether this revision deleted the key. */
  public boolean isDelete() {
    return version < 0;
  }
}
