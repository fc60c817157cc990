package dev.baton.bench.lock;

import dev.baton.Baton;

/** Opens clients of one kind: Baton, Curator, or the raw ZooKeeper client running a pattern. */
@FunctionalInterface
public interface LockLibrary {

  /** Connects and waits for the session. */
  LockClient connect(String connectString) throws Exception;

  /** How many may hold one lock path at once: more is a broken lock. */
  default int holdersAllowed() {
    return 1;
  }
}
