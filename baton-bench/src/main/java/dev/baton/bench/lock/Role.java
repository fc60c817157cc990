package dev.baton.bench.lock;

/** What a contender stands for in a scenario's result. */
public enum Role {
  /** The library under test; its figure is compared with Curator's. */
  BATON,
  /** The peer; every ratio is taken against it, within a round. */
  CURATOR,
  /** The raw ZooKeeper client running a request pattern: the limit of that pattern, no library. */
  FLOOR,
  /** Another way of using one of the libraries, shown for comparison only. */
  REFERENCE
}
