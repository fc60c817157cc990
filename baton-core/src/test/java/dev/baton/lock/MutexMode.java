package dev.baton.lock;

import java.time.Duration;

/** The modes of the mutex every safety test runs in: default, local hand-over, caching, both. */
enum MutexMode {
  DEFAULT(MutexOptions.defaults()),
  COHORTED(MutexOptions.defaults().withLocalHandOver(4)),
  CACHED(MutexOptions.defaults().withCaching(Duration.ofSeconds(5))),
  COHORTED_AND_CACHED(MutexOptions.defaults().withLocalHandOver(4).withCaching(Duration.ofSeconds(5)));

  final MutexOptions options;

  MutexMode(MutexOptions options) {
    this.options = options;
  }
}
