package dev.baton.bench.lock;

import dev.baton.Baton;

/** How the threads of one client get their lock objects. */
public enum Sharing {
  /** One object per client, shared by all its threads (how Baton's {@code Mutex} is meant to be used). */
  PER_CLIENT,
  /**
   * One object per thread: the way Curator's {@code InterProcessMutex} has to be used to avoid the
   * in-process herd (every release wakes every thread waiting in a shared object).
   */
  PER_THREAD
}
