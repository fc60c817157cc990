package dev.baton.internal.lease;

import dev.baton.lock.Lease;
import dev.baton.lock.LeaseListener;
import dev.baton.lock.LeaseState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One holder's time with a hold that several holders may have in turn (a grant handed over inside
 * the client, or cached between holders): its own fencing token and its reentrant levels. Its
 * leases follow the hold's state (SUSPECT on a lost connection, LOST when the grant has expired)
 * until the tenure ends, then read RELEASED, tell their listeners so as their last change, and hear
 * nothing more of the hold, whose later holders' changes are not theirs. The backend says how a
 * listener is put on its hold and taken off it; the rest is the same for every backend.
 *
 * @param <H> the backend's hold
 */
public abstract class HoldTenure<H extends Hold> implements Holding {
  private final H hold;
  private final long token;
  private final Runnable onEnd;
  private final List<Object> registrations = new ArrayList<>(); // guarded by this
  private final List<Runnable> endActions = new CopyOnWriteArrayList<>();
  private int levels = 1; // guarded by this

  /** A tenure of {@code hold} with {@code token}; {@code onEnd} runs once, when the last level is closed. */
  protected HoldTenure(H hold, long token, Runnable onEnd) {
    this.hold = hold;
    this.token = token;
    this.onEnd = onEnd;
  }

  /** Tells {@code listener} of the hold's changes until {@link #forget}; returns what that takes. */
  protected abstract Object listen(Lease lease, LeaseListener listener, Executor executor);

  /**
   * Takes a registration of {@link #listen} off the hold and tells it RELEASED, its last change.
   * Called once the tenure's end was acted on, so that a listener that acquires again at once finds
   * the lock handed on or free.
   */
  protected abstract void forget(Object registration);

  public final H hold() {
    return hold;
  }

  @Override
  public final String path() {
    return hold.path();
  }

  @Override
  public final long token() {
    return token;
  }

  /** Whether this tenure's token is not the grant's own: the hold was handed over inside the client. */
  public final boolean handedOver() {
    return token != hold.token();
  }

  public final synchronized boolean ended() {
    return levels == 0;
  }

  @Override
  public final LeaseState state() {
    return ended() ? LeaseState.RELEASED : hold.state();
  }

  @Override
  public final Instant validUntil() {
    return ended() ? Instant.now().minusNanos(1) : hold.validUntil();
  }

  /** One more reentrant level, unless the tenure has ended. */
  public synchronized boolean enter() {
    if (levels == 0) {
      return false;
    }
    levels++;
    return true;
  }

  /** One level less; the last ends the tenure. */
  @Override
  public final void exit() {
    List<Object> registered;
    synchronized (this) {
      if (levels == 0 || --levels > 0) {
        return;
      }
      registered = List.copyOf(registrations);
      registrations.clear();
    }
    onEnd.run();
    registered.forEach(this::forget);
    endActions.forEach(Runnable::run);
  }

  /** Runs {@code action} when the tenure ends (not if it has ended already). */
  public final void whenEnded(Runnable action) {
    endActions.add(action);
  }

  @Override
  public final void addListener(Lease lease, LeaseListener listener, Executor executor) {
    LeaseListener ours = new TenureListener(listener);
    synchronized (this) {
      if (levels > 0) {
        registrations.add(listen(lease, ours, executor));
      }
    }
  }

  /**
   * What a lease's listener hears of the hold: its changes while the tenure lasts, then RELEASED,
   * once. The hold may tell RELEASED itself before {@link #forget} does (the end released it, or the
   * client closed under the holder), and it may go on changing for the next tenure until then.
   */
  private final class TenureListener implements LeaseListener {
    private final LeaseListener listener;
    private final AtomicBoolean toldReleased = new AtomicBoolean();

    TenureListener(LeaseListener listener) {
      this.listener = listener;
    }

    @Override
    public void stateChanged(Lease lease, LeaseState state) {
      if (state == LeaseState.RELEASED ? toldReleased.compareAndSet(false, true) : !ended()) {
        listener.stateChanged(lease, state);
      }
    }
  }

  @Override
  public final Executor defaultExecutor() {
    return hold.defaultExecutor();
  }

  @Override
  public String toString() {
    return hold + (handedOver() ? " (tenure token " + token + ")" : "");
  }
}
