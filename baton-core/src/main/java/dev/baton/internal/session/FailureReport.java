package dev.baton.internal.session;

import dev.baton.FailureListener;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;

/**
 * The one failure of a long-running recipe and who hears of it. The first failure wins; a
 * listener added after it is told at once, so none misses it whenever it subscribes. Listeners
 * run on the executor they were added with, never on ZooKeeper's event thread.
 */
public final class FailureReport {
  private record Subscription(FailureListener listener, Executor executor) {}

  private final CopyOnWriteArrayList<Subscription> subscriptions = new CopyOnWriteArrayList<>();
  private volatile RuntimeException failure;

  /** Records {@code error} unless a failure is recorded already; tells the listeners if so. */
  public boolean fail(RuntimeException error) {
    Objects.requireNonNull(error, "error");
    Object[] told;
    synchronized (this) {
      if (failure != null) {
        return false;
      }
      failure = error;
      told = subscriptions.toArray(); // those added from now on are told by add()
    }
    for (Object o : told) {
      Subscription s = (Subscription) o;
      tell(s, error);
    }
    return true;
  }

  public Optional<RuntimeException> failure() {
    return Optional.ofNullable(failure);
  }

  public boolean hasFailed() {
    return failure != null;
  }

  public void add(FailureListener listener, Executor executor) {
    Objects.requireNonNull(listener, "listener");
    Objects.requireNonNull(executor, "executor");
    Subscription subscription = new Subscription(listener, executor);
    RuntimeException already;
    synchronized (this) {
      subscriptions.add(subscription);
      already = failure;
    }
    if (already != null) {
      tell(subscription, already);
    }
  }

  private static void tell(Subscription s, RuntimeException error) {
    Session.executeQuietly(s.executor(), () -> s.listener().failed(error));
  }
}
