package dev.baton.cli.console;

import java.time.Duration;
import java.util.Map;

/**
 * What the console shows, whatever keeps it: {@link ConsoleModel} follows a ZooKeeper tree with
 * one watch; {@link RedisConsoleModel} reads a Redis server's Baton locks.
 */
interface ConsoleView extends AutoCloseable {

  /**
   * Starts following and waits at most {@code initialLoad} for the first picture; {@code onChange}
   * runs after every change seen.
   */
  void start(Runnable onChange, Duration initialLoad);

  /** The whole picture, JSON-ready: {@code root, connection, synced, now, locks, elections, services, queues, others}. */
  Map<String, Object> snapshot();

  @Override
  void close();
}
