package dev.baton.internal.session;

import java.util.ArrayDeque;

/**
 * Requests an object decides under its monitor and sends after leaving it, in the order decided.
 * The owner {@link #post}s while it holds its monitor and calls {@link #send} once it has left it,
 * on every path that may have posted: so no thread, ZooKeeper's event thread or a caller's
 * (perhaps virtual) one, holds the owner's monitor while it calls into the ZooKeeper client or an
 * ACL provider, and none waits for the owner's monitor behind one that does.
 *
 * <p>One thread sends at a time, taking the requests in the order posted: a request posted after
 * another is sent after it, whichever threads posted them, as when both were sent under the
 * monitor. A thread that finds another sending leaves its requests to it and returns at once.
 * A request must not block (ZooKeeper's asynchronous calls only queue the packet).
 */
public final class Outbox {
  // Guarded by this; held only to add or take one request, never while one is sent.
  private final ArrayDeque<Runnable> requests = new ArrayDeque<>();
  private boolean sending;

  /** Queues {@code request}, to be sent by the next {@link #send}. */
  public synchronized void post(Runnable request) {
    requests.add(request);
  }

  /**
   * Sends every request posted so far, unless another thread is sending them (then it sends
   * these too). Call without holding the owner's monitor. A request that throws does not keep
   * the others from going out; the first exception is thrown once the queue is empty.
   */
  public void send() {
    synchronized (this) {
      if (sending) {
        return;
      }
      sending = true;
    }
    RuntimeException failure = null;
    boolean drained = false;
    try {
      while (true) {
        Runnable request;
        synchronized (this) {
          request = requests.poll();
          if (request == null) {
            sending = false;
            drained = true;
            break;
          }
        }
        try {
          request.run();
        } catch (RuntimeException e) {
          if (failure == null) {
            failure = e;
          } else {
            failure.addSuppressed(e);
          }
        }
      }
    } finally {
      if (!drained) { // an Error: let the next call send what is left
        synchronized (this) {
          sending = false;
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
