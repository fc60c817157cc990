package dev.baton.internal.session;

import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.zookeeper.Op;

/**
 * The guard of one holder's hold on a lock node ({@code Baton.guard(lease)}): a {@code check} of
 * the node, and a gate that {@link Transactions} passes before sending a transaction it guards.
 *
 * <p>The check alone proves only that the node exists. With local hand-over or caching the node
 * outlives its holder: the next local holder stands on the same node, so a released holder's
 * guard would still pass on the ensemble. So the gate refuses, before anything is sent, a
 * transaction whose holder no longer holds (neither HELD nor SUSPECT), and the holder's release
 * {@linkplain #close waits} for the transactions it let through, so the node is handed on only
 * once their replies are in (one session's requests are applied in order, so none can land
 * after the reply).
 *
 * <p>Each holder gets a guard of its own, though the checks of two holders of one node are
 * equal {@code Op}s: gates are found by the identity of the {@code Op}, and forgotten with it.
 */
public final class LeaseGuard {
  private static final ReferenceQueue<Op> COLLECTED = new ReferenceQueue<>();
  private static final ConcurrentHashMap<OpKey, Gate> GATES = new ConcurrentHashMap<>();

  private final Op check;
  private final Gate gate;

  private LeaseGuard(Op check, Gate gate) {
    this.check = check;
    this.gate = gate;
  }

  /**
   * A guard of the node {@code clientNodePath} of the lock {@code lockPath}, good while {@code
   * holding} says the holder holds (its lease HELD or SUSPECT).
   */
  public static LeaseGuard open(String clientNodePath, String lockPath, BooleanSupplier holding) {
    forgetCollected();
    Op check = Op.check(clientNodePath, -1);
    Gate gate = new Gate(lockPath, holding);
    GATES.put(new OpKey(check, COLLECTED), gate);
    return new LeaseGuard(check, gate);
  }

  /** The check to put in a transaction; the same object every time. */
  public Op op() {
    return check;
  }

  /**
   * Lets no more transactions through, then calls {@code then} once every transaction let
   * through has been answered (at once if none is in flight), with {@code true} if the outcome
   * of one of them is unknown (its reply lost, or its caller interrupted): it may still be
   * applied, so the node must not be handed on.
   */
  public void close(Consumer<Boolean> then) {
    gate.close(then);
  }

  /** The gate of {@code op}, if it is one of these guards. */
  static Gate gateOf(Op op) {
    return GATES.get(new OpKey(op, null));
  }

  private static void forgetCollected() {
    for (Reference<? extends Op> gone; (gone = COLLECTED.poll()) != null; ) {
      GATES.remove(gone);
    }
  }

  /** Counts the guarded transactions in flight of one holder. Guarded by {@code this}. */
  static final class Gate {
    private final String lockPath;
    private final BooleanSupplier holding;
    private boolean closed;
    private int inFlight;
    private boolean inDoubt;
    private Consumer<Boolean> onDrained;

    private Gate(String lockPath, BooleanSupplier holding) {
      this.lockPath = lockPath;
      this.holding = holding;
    }

    String lockPath() {
      return lockPath;
    }

    /** Lets one transaction through, unless the holder no longer holds. */
    synchronized boolean enter() {
      if (closed || !holding.getAsBoolean()) {
        return false;
      }
      inFlight++;
      return true;
    }

    /** The transaction let through was answered ({@code outcomeKnown}) or given up on. */
    void exit(boolean outcomeKnown) {
      Consumer<Boolean> then = null;
      boolean doubt;
      synchronized (this) {
        inDoubt |= !outcomeKnown;
        doubt = inDoubt;
        if (--inFlight == 0 && closed) {
          then = onDrained;
          onDrained = null;
        }
      }
      if (then != null) {
        then.accept(doubt);
      }
    }

    void close(Consumer<Boolean> then) {
      boolean doubt;
      synchronized (this) {
        closed = true;
        if (inFlight > 0) {
          onDrained = then;
          return;
        }
        doubt = inDoubt;
      }
      then.accept(doubt);
    }
  }

  /** A weak key that matches the very same {@code Op}, not an equal one. */
  private static final class OpKey extends WeakReference<Op> {
    private final int hash;

    OpKey(Op op, ReferenceQueue<Op> queue) {
      super(op, queue);
      this.hash = System.identityHashCode(op);
    }

    @Override
    public boolean equals(Object other) {
      if (this == other) {
        return true;
      }
      Op op = get();
      return other instanceof OpKey key && op != null && op == key.get();
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }
}
