package dev.baton.bench.lock;

import java.util.Objects;

/**
 * One entry of a scenario: a library (or raw pattern), how its threads share lock objects, and
 * what it stands for.
 *
 * @param id short name, used in lock paths ({@code [a-z0-9-]})
 * @param label what the table and chart call it
 */
public record Contender(String id, String label, Role role, LockLibrary library, Sharing sharing) {

  public Contender {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(label, "label");
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(library, "library");
    Objects.requireNonNull(sharing, "sharing");
    if (!id.matches("[a-z0-9-]+")) {
      throw new IllegalArgumentException("contender id must match [a-z0-9-]+, was '" + id + "'");
    }
  }
}
