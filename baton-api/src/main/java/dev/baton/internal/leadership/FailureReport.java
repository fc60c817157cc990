package dev.baton.internal.leadership;

import dev.baton.FailureListener;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The error that ended a recipe, recorded once, and its listeners: each told once, on the thread
 * that records the failure, or at once on the caller's thread if it was already recorded.
 */
final class FailureReport {
  private static final Logger log = LoggerFactory.getLogger(FailureReport.class);
  private RuntimeException failure; // guarded by this
  private final List<FailureListener> listeners = new ArrayList<>(); // guarded by this

  synchronized boolean hasFailed() {
    return failure != null;
  }

  synchronized Optional<RuntimeException> failure() {
    return Optional.ofNullable(failure);
  }

  void add(FailureListener listener) {
    RuntimeException now;
    synchronized (this) {
      now = failure;
      if (now == null) {
        listeners.add(listener);
        return;
      }
    }
    tell(listener, now);
  }

  /** Records {@code error} unless a failure is already recorded, and tells the listeners. */
  void fail(RuntimeException error) {
    List<FailureListener> told;
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

  private static void tell(FailureListener listener, RuntimeException error) {
    try {
      listener.failed(error);
    } catch (RuntimeException e) {
      log.warn("A failure listener threw", e);
    }
  }
}
