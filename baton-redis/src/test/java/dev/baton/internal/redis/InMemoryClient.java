package dev.baton.internal.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A Redis client played in memory for the model-checking tests: no connection, no timer, no thread of
 * its own, so that Lincheck explores only the structure under test. Listeners are told on the thread
 * that announces; a clean-up command is sent once (the tests answer it at once). The holds under test
 * are never started, so nothing asks for a timer; a call that would is a fault in the test.
 */
public final class InMemoryClient implements HoldClient {
  public static final InMemoryClient INSTANCE = new InMemoryClient();

  private static final RedisSettings SETTINGS = new RedisSettings("redis://in-memory:6379", null, null, false, null,
      null, Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofSeconds(60), Duration.ofSeconds(1),
      Duration.ofSeconds(3));

  private InMemoryClient() {}

  @Override
  public RedisSettings settings() {
    return SETTINGS;
  }

  @Override
  public boolean isClosed() {
    return false;
  }

  @Override
  public void register(RedisSession.Held hold) {}

  @Override
  public void unregister(RedisSession.Held hold) {}

  @Override
  public RedisSession.Pending later(Runnable task, long delayNanos) {
    throw new UnsupportedOperationException("no timers in memory: the holds under test are not started");
  }

  @Override
  public void schedule(Runnable task, long delayMillis) {
    throw new UnsupportedOperationException("no timers in memory: the holds under test are not started");
  }

  @Override
  public CompletableFuture<Void> sendUntilDone(Supplier<CompletableFuture<?>> command, LongSupplier worthItUntil) {
    return command.get().thenApply(reply -> null);
  }

  @Override
  public ScheduledExecutorService timer() {
    throw new UnsupportedOperationException("no timers in memory: the holds under test are not started");
  }

  @Override
  public Executor noticeExecutor() {
    return Runnable::run;
  }
}
