package dev.baton.bench.lock;

/** Which lock-like recipe a library's lock objects are, and how many may hold one at once. */
public enum Recipe {
  MUTEX(1),
  /** The read half of a read-write lock: readers overlap freely. */
  READ_LOCK(Integer.MAX_VALUE),
  /** A counting semaphore of three permits, one taken per acquisition. */
  SEMAPHORE_3(3);

  private final int holdersAllowed;

  Recipe(int holdersAllowed) {
    this.holdersAllowed = holdersAllowed;
  }

  public int holdersAllowed() {
    return holdersAllowed;
  }
}
