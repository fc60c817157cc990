package dev.baton.internal.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * What a hold asks of its client, {@link RedisSession} in production: its settings, timers and
 * notice thread, the register of holds a close releases, and the sending of clean-up commands. A
 * seam so narrow that a model-checking test can play the client in memory, with no connection and
 * no timer thread of its own.
 */
public interface HoldClient {
  RedisSettings settings();

  boolean isClosed();

  void register(RedisSession.Held hold);

  void unregister(RedisSession.Held hold);

  /** See {@link RedisSession#later}. */
  RedisSession.Pending later(Runnable task, long delayNanos);

  /** See {@link RedisSession#schedule}. */
  void schedule(Runnable task, long delayMillis);

  /** See {@link RedisSession#sendUntilDone}. */
  CompletableFuture<Void> sendUntilDone(java.util.function.Supplier<CompletableFuture<?>> command,
      java.util.function.LongSupplier worthItUntil);

  java.util.concurrent.ScheduledExecutorService timer();

  Executor noticeExecutor();
}
