package dev.baton.internal.barrier;

import dev.baton.BatonInterruptedException;
import dev.baton.ZkPaths;
import dev.baton.barrier.BarrierTimeoutException;
import dev.baton.barrier.DoubleBarrier;
import dev.baton.internal.engine.OwnerData;
import dev.baton.internal.session.Durations;
import dev.baton.internal.session.Errors;
import dev.baton.internal.session.Nodes;
import dev.baton.internal.session.Session;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * One member of a double barrier, wire-compatible with Curator's {@code DistributedDoubleBarrier}:
 * {@link BarrierEntry} enters, {@link BarrierExit} leaves; this class keeps the member's state
 * between the two and turns their futures into blocking calls.
 */
public final class ZkDoubleBarrier implements DoubleBarrier {
  private enum State { OUT, ENTERING, IN, LEAVING }

  private final Session session;
  private final String path;
  private final int members;

  // Guarded by this.
  private State state = State.OUT;
  private BarrierEntry.Entered entered;

  /** {@code path} must be validated already; {@code members} is checked here. */
  public ZkDoubleBarrier(Session session, String path, int members) {
    if (members < 1) {
      throw new IllegalArgumentException(
          "members of double barrier " + path + " must be at least 1, was " + members);
    }
    this.session = session;
    this.path = path;
    this.members = members;
  }

  @Override
  public String path() {
    return path;
  }

  @Override
  public int members() {
    return members;
  }

  @Override
  public synchronized boolean isEntered() {
    return state == State.IN;
  }

  @Override
  public void enter() {
    enter(null, -1);
  }

  @Override
  public void enter(Duration timeout) {
    enter(timeout, Durations.timeoutNanos(Durations.checkedTimeout(timeout)));
  }

  private void enter(Duration timeout, long timeoutNanos) {
    session.checkOpen();
    synchronized (this) {
      if (state != State.OUT) {
        throw new IllegalStateException("enter() called on a member of double barrier " + path + " that "
            + (state == State.ENTERING ? "is entering on another thread"
                : state == State.IN ? "has entered already; call leave() before entering again" : "is leaving"));
      }
      state = State.ENTERING;
    }
    BarrierEntry entry = new BarrierEntry(session, path, members, OwnerData.forThread(Thread.currentThread()));
    CompletableFuture<BarrierEntry.Entered> pending = entry.start(timeoutNanos,
        count -> new BarrierTimeoutException(path, timeout, "waiting for " + members + " members to enter the"
            + " double barrier " + path + " (" + count + " in at the last look, this one included); this"
            + " member's node is deleted"));
    BarrierEntry.Entered in = null;
    try {
      in = pending.get();
    } catch (InterruptedException e) {
      if (!entry.giveUp(new BatonInterruptedException("Interrupted while entering the double barrier " + path, e))) {
        // Entered (or failed) just now: the caller is told it was interrupted, so it must not stay in.
        pending.thenAccept(late -> {
          if (late.node() != null) {
            Nodes.deleteInBackground(session, late.handle(), ZkPaths.join(session.settings().onServer(path), late.node()));
          }
        });
      }
      Thread.currentThread().interrupt();
      throw new BatonInterruptedException("Interrupted while entering the double barrier " + path
          + "; this member's node is deleted", e);
    } catch (ExecutionException e) {
      throw rethrown(e);
    } finally {
      synchronized (this) {
        state = in == null ? State.OUT : State.IN;
        entered = in;
      }
    }
  }

  @Override
  public void leave() {
    leave(null, -1);
  }

  @Override
  public void leave(Duration timeout) {
    leave(timeout, Durations.timeoutNanos(Durations.checkedTimeout(timeout)));
  }

  private void leave(Duration timeout, long timeoutNanos) {
    session.checkOpen();
    BarrierEntry.Entered in;
    synchronized (this) {
      if (state != State.IN) {
        throw new IllegalStateException("leave() called on a member of double barrier " + path + " that "
            + (state == State.LEAVING ? "is leaving on another thread" : state == State.ENTERING
                ? "is still entering" : "has not entered; call enter() first"));
      }
      state = State.LEAVING;
      in = entered;
    }
    BarrierExit exit = new BarrierExit(session, path);
    CompletableFuture<Void> pending = exit.start(in.handle(), in.node(), timeoutNanos,
        left -> new BarrierTimeoutException(path, timeout, "waiting for the members of double barrier " + path
            + " to leave (" + describe(left) + "); this member has left all the same"));
    try {
      pending.get();
    } catch (InterruptedException e) {
      exit.giveUp(new BatonInterruptedException("Interrupted while leaving the double barrier " + path, e));
      Thread.currentThread().interrupt();
      throw new BatonInterruptedException("Interrupted while leaving the double barrier " + path
          + "; this member has left all the same", e);
    } catch (ExecutionException e) {
      throw rethrown(e);
    } finally {
      synchronized (this) {
        state = State.OUT;
        entered = null;
      }
    }
  }

  private static String describe(List<String> left) {
    if (left.isEmpty()) {
      return "none left at the last look";
    }
    return left.size() + (left.size() == 1 ? " member" : " members") + " still in: "
        + String.join(", ", left.subList(0, Math.min(5, left.size()))) + (left.size() > 5 ? ", ..." : "");
  }

  private RuntimeException rethrown(ExecutionException e) {
    RuntimeException cause = Errors.translate(e.getCause(), path);
    if (cause instanceof BarrierTimeoutException) {
      // Made on the timer's thread: show the caller's stack instead.
      cause.fillInStackTrace();
    }
    return cause;
  }

  @Override
  public String toString() {
    return "DoubleBarrier[" + path + ", " + members + " members]";
  }
}
