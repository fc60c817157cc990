package dev.baton.internal.leadership;

import dev.baton.FailureListener;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The error that ended a recipe, recorded once, and its listeners: each told once, on its executor
 * (a direct one: on the thread that records the failure, or at once on the caller's thread if it
 * was already recorded).
 */
final class FailureReport {
  private static final Logger log = LoggerFactory.getLogger(FailureReport.class);
  private RuntimeException failure; // guarded by this
  private record Subscription(FailureListener listener, Executor executor) {}

  private final List<Subscription> listeners = new ArrayList<>(); // guarded by this

  synchronized boolean hasFailed() {
    return failure != null;
  }

  synchronized Optional<RuntimeException> failure() {
    return Optional.ofNullable(failure);
  }

  void add(FailureListener listener, Executor executor) {
    Subscription subscription = new Subscription(listener, executor);
    RuntimeException now;
    synchronized (this) {
      now = failure;
      if (now == null) {
        listeners.add(subscription);
        return;
      }
    }
    tell(subscription, now);
  }

  /** Records {@code error} unless a failure is already recorded, and tells the listeners. */
  void fail(RuntimeException error) {
    List<Subscription> told;
    synchronized (this) {
      if (failure != null) {
        return;
      }
      failure = error;
      told = List.copyOf(listeners);
      listeners.clear();
    }
    told.forEach(listener -> tell(listener, error));
  }

  private static void tell(Subscription s, RuntimeException error) {
    try {
      s.executor().execute(() -> {
        try {
          s.listener().failed(error);
        } catch (RuntimeException e) {
          log.warn("A failure listener threw", e);
        }
      });
    } catch (RejectedExecutionException e) {
      log.debug("A failure listener was not told: its executor refused", e);
    }
  }
}
