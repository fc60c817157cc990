package dev.baton.config;

import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * A record bound to the keys under a prefix ({@link ConfigCenter#bind}), kept current: after
 * each change of those keys the record is built again from the local copy, and listeners hear
 * the new one if it differs. A change that leaves the keys unusable for the record (a malformed
 * number, a required key deleted) keeps the last good record and is logged with the key. Closing
 * the config center stops it too.
 *
 * @param <T> the record type
 */
public interface ConfigBinding<T extends Record> extends AutoCloseable {

  /** The record as of the last usable state of the keys; no request. */
  T get();

  /** Calls {@code listener} with each new record, on {@code executor}, one at a time, in order. */
  void addListener(Consumer<T> listener, Executor executor);

  /** Stops following the keys. Idempotent. */
  @Override
  void close();
}
