package dev.baton.internal.semaphore;

import dev.baton.internal.session.Session;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * The wait for the count, once our lease nodes are there and the listing that came with them was
 * over the limit: list {@code <path>/leases} with a children watch, and again on each change,
 * until {@link PermitCount} says our nodes hold, or that one is missing. Curator's waiter does
 * the same and is woken by the same changes, so either kind of client can be waiting.
 *
 * <p>Only the holder of the {@code locks} mutex waits here, so one watch per semaphore path at
 * most. The last watch set is used up by the next change of the leases, at the latest by the
 * deletion of our own node, so nothing stays on the server. Listings are answered on the handle's
 * event thread, one after another; a connection loss lists again after the retry policy's pause
 * (the server keeps the watch of a session that reconnects).
 */
final class PermitCountWait {
  private final Session session;
  private final Session.Handle handle;
  private final String leasesPath;
  private final Set<String> ours;
  private final int permits;
  private final Consumer<PermitCount.Verdict> onVerdict;
  private final Consumer<KeeperException> onError;
  private final Watcher watcher;
  private final AtomicBoolean stopped = new AtomicBoolean();
  private int retries; // touched on the event thread only

  /** {@code onVerdict} hears HOLD or MISSING, at most once, unless stopped before. */
  PermitCountWait(Session session, Session.Handle handle, String leasesPath, Set<String> ours, int permits,
      Consumer<PermitCount.Verdict> onVerdict, Consumer<KeeperException> onError) {
    this.session = session;
    this.watcher = session.watching(this::onChange);
    this.handle = handle;
    this.leasesPath = leasesPath;
    this.ours = ours;
    this.permits = permits;
    this.onVerdict = onVerdict;
    this.onError = onError;
  }

  void start() {
    list();
  }

  void stop() {
    stopped.set(true);
  }

  private void list() {
    if (!stopped.get()) {
      handle.zk().getChildren(leasesPath, watcher, (rc, path, ctx, children) -> onListed(Code.get(rc), children), null);
    }
  }

  private void onChange(WatchedEvent event) {
    if (event.getType() != Watcher.Event.EventType.None) {
      list(); // connection events pass: the server keeps the watch across a reconnect
    }
  }

  private void onListed(Code code, List<String> children) {
    if (stopped.get()) {
      return;
    }
    switch (code) {
      case OK -> {
        retries = 0;
        PermitCount.Verdict verdict = PermitCount.decide(children, ours, permits);
        if (verdict != PermitCount.Verdict.WAIT) {
          finish(verdict);
        } // else the watch this listing set calls again on the next change
      }
      case NONODE -> finish(PermitCount.Verdict.MISSING); // the leases node went, ours with it
      // After expiry the request starts a new round and stops this count; until then, retry.
      case CONNECTIONLOSS, OPERATIONTIMEOUT, SESSIONEXPIRED, SESSIONMOVED -> later();
      default -> {
        if (stopped.compareAndSet(false, true)) {
          onError.accept(KeeperException.create(code, leasesPath));
        }
      }
    }
  }

  private void finish(PermitCount.Verdict verdict) {
    if (stopped.compareAndSet(false, true)) {
      onVerdict.accept(verdict);
    }
  }

  private void later() {
    long delay = session.settings().retryPolicy().delayBefore(Math.min(++retries, 10)).toNanos();
    session.schedule(() -> {
      if (!session.isClosed()) {
        list();
      }
    }, Math.max(delay, TimeUnit.MILLISECONDS.toNanos(1)));
  }
}
