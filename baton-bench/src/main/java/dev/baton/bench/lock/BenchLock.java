package dev.baton.bench.lock;

import dev.baton.Baton;

/**
 * One lock object as a contender offers it: a Baton {@code Mutex}, a Curator {@code
 * InterProcessMutex}, or a raw request pattern. Whether threads share one object or each has its
 * own is the scenario's choice (see {@link Sharing}).
 */
public interface BenchLock {

  /** Blocks until the lock is held; the returned handle releases it. */
  Held acquire() throws Exception;

  /** A held lock. */
  interface Held {
    void release() throws Exception;
  }
}
