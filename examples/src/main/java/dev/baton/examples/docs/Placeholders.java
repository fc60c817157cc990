package dev.baton.examples.docs;

/** What the snippets call on the reader's own objects: a stock to decrement, a worker to stop. */
final class Placeholders {
  private Placeholders() {}

  /** A resource that refuses a fencing token older than one it has seen. */
  interface Stock {
    void decrement(long fencingToken);
  }

  /** Work that must stop once its lease is in doubt. */
  interface Worker {
    void stop();
  }
}
