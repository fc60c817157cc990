package dev.baton.internal.redis;

import dev.baton.BatonInterruptedException;
import dev.baton.lock.AcquireTimeoutException;
import dev.baton.lock.Lease;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquisition of a Redis recipe's grant (a mutex's key, a read-write lock's half, a semaphore's
 * permits), from its first attempt to a grant, a give-up or (trying once) a refusal, without a
 * thread of its own: the waiting every recipe shares. Between attempts it sits in the recipe's queue
 * in Redis and waits for a release notice on the recipe's channel, re-checking on a timer (every
 * third of the waiter lease, which also keeps its place, unless the recipe says sooner). At most one
 * attempt is in flight; a wake-up during one runs another after it. A timeout, a cancel, an
 * interrupt or the client's close ends it ({@link #giveUp}); any failure withdraws it from the
 * queue, and gives back a grant whose reply was lost or came too late.
 *
 * <p>The recipe keeps its scripts and its grant decision: it sends an attempt ({@link
 * #sendAttempt}), makes the hold of a grant ({@link #hold}), reads a refusal ({@link #refused}) and
 * sends the withdrawal ({@link #sendWithdraw}). Every attempt's reply starts with 1 for a grant, 0
 * for a refusal.
 *
 * @param <H> the recipe's hold
 */
public abstract class QueuedAcquisition<H extends LeaseHold> implements RedisSession.Waiter {
  private static final Logger log = LoggerFactory.getLogger(QueuedAcquisition.class);

  private final RedisSession session;
  private final String path;
  private final String channel;
  private final boolean counted;
  /** A channel of the recipe's own on which a grant made to this waiter is told, or null. */
  private final String grantChannel;
  private final boolean queue;
  private final long sequence;
  private final String ownerId;
  private final String member;
  private final CompletableFuture<H> result = new CompletableFuture<>();
  private final AtomicBoolean attempting = new AtomicBoolean();
  private final AtomicBoolean again = new AtomicBoolean();
  private volatile boolean listening;
  /**
   * Set once a grant came (an attempt's, or one told on the grant channel): later attempts would find
   * the same grant, and the other way of hearing of it may tell it too; neither must make a second hold of it.
   */
  private final AtomicBoolean granted = new AtomicBoolean();
  private volatile ScheduledFuture<?> recheck;

  /**
   * An acquisition of {@code path} for {@code thread}, woken on {@code channel} ({@code counted}: a
   * semaphore's, whose notices carry the count of permits free); {@code queue == false}: one attempt
   * that does not queue (try-once).
   */
  protected QueuedAcquisition(RedisSession session, String path, String channel, boolean counted, Thread thread,
      boolean queue) {
    this(session, path, channel, counted, null, "", thread, queue);
  }

  /**
   * As above, also listening on {@code grantChannel} (if not null), where the recipe's scripts tell
   * a waiter of a grant they made to it ({@link #grantedByNotice}), and with {@code memberFields}
   * (JSON fields, or empty) at the end of the member, for the scripts that grant it.
   */
  protected QueuedAcquisition(RedisSession session, String path, String channel, boolean counted,
      String grantChannel, String memberFields, Thread thread, boolean queue) {
    this.session = session;
    this.path = path;
    this.channel = channel;
    this.counted = counted;
    this.grantChannel = grantChannel;
    this.queue = queue;
    this.ownerId = session.nextOwnerId();
    this.sequence = Long.parseLong(ownerId.substring(ownerId.lastIndexOf(':') + 1));
    String owner = session.member(ownerId, thread);
    this.member = memberFields.isEmpty() ? owner : owner.substring(0, owner.length() - 1) + "," + memberFields + "}";
  }

  /** Sends one attempt: the recipe's acquire script, queueing unless {@link #queues()} is false. */
  protected abstract CompletableFuture<List<?>> sendAttempt();

  /** The hold of a granted attempt's {@code reply}, sent at {@code sentAt} (a {@link System#nanoTime()} reading). */
  protected abstract H hold(List<?> reply, long sentAt);

  /** Completes once {@code hold}'s grant is as safe as the recipe asks (a mutex's replica acks); fails if it is not. */
  protected CompletableFuture<Void> confirm(H hold) {
    return CompletableFuture.completedFuture(null);
  }

  /** Any attempt's {@code reply}, sent at {@code sentAt}, before it is read as a grant or a refusal. */
  protected void replied(List<?> reply, long sentAt) {}

  /**
   * A refused attempt's {@code reply}, the acquisition still waiting: returns the delay to the next
   * re-check in milliseconds.
   */
  protected long refused(List<?> reply) {
    return recheckEvery();
  }

  /**
   * A wake-up that came when this acquisition needed it no more (granted, or ended), while it listens:
   * a counted channel's notice wakes one waiter per client, and was meant for another.
   */
  protected void passOn() {}

  /** Sends the withdrawal: out of the queue, and a grant of an attempt whose reply was lost given back. */
  protected abstract CompletableFuture<?> sendWithdraw();

  @Override
  public long sequence() {
    return sequence;
  }

  @Override
  public String member() {
    return member;
  }

  /** The owner id this acquisition's grant is recorded under. */
  public String ownerId() {
    return ownerId;
  }

  protected RedisSession session() {
    return session;
  }

  protected boolean queues() {
    return queue;
  }

  /** Whether it listens for release notices (joined, or joining, its recipe's channel). */
  protected boolean listening() {
    return listening;
  }

  protected long recheckEvery() {
    return session.settings().recheckEvery().toMillis();
  }

  /**
   * Starts; the future completes with the hold, with {@code null} if a try-once was refused, or
   * fails. {@code timeoutNanos < 0} waits without limit.
   */
  public CompletableFuture<H> start(long timeoutNanos) {
    session.register(this);
    result.whenComplete((hold, error) -> finish());
    if (timeoutNanos >= 0 && queue) {
      RedisSession.Pending timeout = session.later(
          () -> giveUp(new AcquireTimeoutException(path, Duration.ofNanos(timeoutNanos))), timeoutNanos);
      if (timeout == null) {
        giveUp(session.closedException());
        return result;
      }
      result.whenComplete((hold, error) -> timeout.cancel());
    }
    if (queue) {
      // Listening already (the lock was contended lately): every release after the first attempt is heard.
      listening = true;
      boolean joined = counted ? session.notices().joinCountedIfSubscribed(channel, this)
          : session.notices().joinIfSubscribed(channel, this);
      boolean joinedGrants = grantChannel == null || session.notices().joinDirectIfSubscribed(grantChannel, this);
      if (!joined || !joinedGrants) {
        leave(); // one of the two is not subscribed yet: both are joined after the first refusal
        listening = false;
      }
      leaveIfDone();
    }
    attempt();
    return result;
  }

  /**
   * {@link #start}s, for a tenure of the hold ({@code null} for a try-once that was refused):
   * completing the future exceptionally gives the acquisition up (and withdraws it), and a grant
   * that comes too late is released.
   */
  public CompletableFuture<Tenure> tenure(long timeoutNanos) {
    CompletableFuture<Tenure> tenure = new CompletableFuture<>();
    tenure.whenComplete((t, error) -> {
      if (error != null) {
        giveUp(error);
      }
    });
    start(timeoutNanos).whenComplete((hold, error) -> {
      if (error != null) {
        tenure.completeExceptionally(error);
      } else if (!tenure.complete(hold == null ? null : new Tenure(hold, hold.token(), hold::release)) && hold != null) {
        hold.release();
      }
    });
    return tenure;
  }

  /** A release notice, a reconnection or the timer: try now. */
  @Override
  public void wake() {
    if (granted.get() || result.isDone()) {
      if (listening) {
        passOn();
      }
      return;
    }
    attempt();
  }

  /** Ends the acquisition with {@code error} (timeout, interrupt, cancel, close) if it has not ended. */
  @Override
  public void giveUp(Throwable error) {
    result.completeExceptionally(error);
  }

  private void attempt() {
    if (result.isDone() || granted.get()) {
      return;
    }
    if (!attempting.compareAndSet(false, true)) {
      again.set(true);
      return;
    }
    long sentAt = System.nanoTime();
    sendAttempt().whenComplete((reply, error) -> onReply(reply, error, sentAt));
  }

  private void onReply(List<?> reply, Throwable error, long sentAt) {
    try {
      if (error != null) {
        onError(error);
        return;
      }
      replied(reply, sentAt);
      if (((Long) reply.get(0)) == 1L) {
        onGranted(reply, sentAt);
      } else {
        onRefused(reply);
      }
    } catch (RuntimeException e) {
      giveUp(e);
    } finally {
      attempting.set(false);
      if (again.getAndSet(false)) {
        wake(); // a wake-up came during the attempt: another attempt, or passed on if this one was granted
      }
    }
  }

  /**
   * A grant the recipe's script made to this waiter and told on the grant channel, read as the
   * {@code reply} of an attempt sent at {@code sentAt} would be. Made after this acquisition ended,
   * it is given back.
   */
  protected void grantedByNotice(List<?> reply, long sentAt) {
    try {
      onGranted(reply, sentAt);
    } catch (RuntimeException e) {
      giveUp(e);
    }
  }

  private void onGranted(List<?> reply, long sentAt) {
    if (!granted.compareAndSet(false, true)) {
      return; // the same grant told twice (a reply and a notice, or a duplicate reply): the first makes the hold
    }
    handOverWhenValid(hold(reply, sentAt));
  }

  /**
   * Hands {@code hold} over, unless its validity ran out before it came (a reply or a notice held up
   * past the TTL: a frozen link, a starved client). Handed over as it is, its lease would be LOST at
   * once, and a holder that entered anyway would overlap whoever the expired grant went to next; a
   * renewal tells whether it is still ours and, if so, makes it valid again, counted from the
   * renewal's send (renewed again if that reply too came late). If it is gone, or the renewal failed
   * (its fate unknown), the acquisition tries again: an attempt finds the grant if it is still ours,
   * and queues again if not.
   */
  private void handOverWhenValid(H hold) {
    if (result.isDone() || !hold.ranOutBeforeStart()) {
      handOver(hold);
      return;
    }
    hold.renewLate().whenComplete((renewed, error) -> {
      if (Boolean.TRUE.equals(renewed)) {
        handOverWhenValid(hold);
      } else {
        log.debug("A grant of {} came after its validity had run out and could not be renewed; trying again", path);
        granted.set(false);
        attempt();
      }
    });
  }

  /** Starts {@code hold} and completes the acquisition with it once the recipe confirms it. */
  private void handOver(H hold) {
    if (result.isDone()) {
      hold.release();
      return;
    }
    confirm(hold).whenComplete((confirmed, error) -> {
      if (error != null) {
        hold.release();
        giveUp(error);
      } else {
        hold.start();
        if (!result.complete(hold)) {
          hold.release(); // given up while the grant was on its way
        }
      }
    });
  }

  private void onRefused(List<?> reply) {
    if (granted.get()) {
      return; // granted by another's script after this attempt queued it: the grant took it out of the queue
    }
    if (!queue) {
      result.complete(null);
      return;
    }
    if (result.isDone()) {
      withdraw(); // given up meanwhile, and this attempt put us back in the queue
      return;
    }
    long delay = refused(reply);
    if (!listening) {
      // Listen before trying again, so that no release between the two goes unheard.
      listening = true;
      CompletableFuture<Void> subscribed = counted ? session.notices().joinCounted(channel, this)
          : session.notices().join(channel, this);
      if (grantChannel != null) {
        subscribed = CompletableFuture.allOf(subscribed, session.notices().joinDirect(grantChannel, this));
      }
      leaveIfDone();
      subscribed.whenComplete((ok, error) -> {
        if (error != null) {
          log.debug("Could not subscribe to release notices of {}; re-checking on the timer", path, error);
        }
        attempt();
      });
      return;
    }
    scheduleRecheck(delay);
  }

  /**
   * Leaves the release notices just joined if the acquisition has ended meanwhile: its {@link
   * #finish()} may have run before the join, and a listener left behind would take the lock's
   * notices (the Redisson layout's name nobody) from the live waiters of this client for good.
   * {@code listening} is set before joining and the result read after, so one of the two leaves.
   */
  private void leaveIfDone() {
    if (listening && result.isDone()) {
      leave();
    }
  }

  private void leave() {
    session.notices().leave(channel, this);
    if (grantChannel != null) {
      session.notices().leave(grantChannel, this);
    }
  }

  private void onError(Throwable error) {
    if (!queue || !RedisErrors.isTransient(error)) {
      giveUp(RedisErrors.translate(error, session.address(), "acquiring " + path));
      return;
    }
    log.debug("Acquiring {} failed, trying again: {}", path, error.toString());
    scheduleRecheck(Math.min(recheckEvery(), 200));
  }

  private void scheduleRecheck(long delayMillis) {
    if (result.isDone() || session.isClosed()) {
      return;
    }
    ScheduledFuture<?> previous = recheck;
    if (previous != null) {
      previous.cancel(false); // one timer per waiter, however many wake-ups came between
    }
    try {
      recheck = session.timer().schedule(this::attempt, delayMillis, TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // the client closed meanwhile; its close ended this acquisition
    }
  }

  private void finish() {
    ScheduledFuture<?> pending = recheck;
    if (pending != null) {
      pending.cancel(false);
    }
    if (listening) {
      leave();
    }
    session.unregister(this);
    // On any failure, a try-once's too: an attempt whose reply was lost (a timeout, a reset) may
    // have been granted or queued all the same, and would hold for a whole TTL unseen.
    if (result.isCompletedExceptionally()) {
      withdraw();
    }
  }

  private void withdraw() {
    // Worth sending again while a grant of a lost reply could still be alive, or our place in the
    // queue could.
    long until = System.nanoTime() + Math.max(session.settings().leaseTtl().toNanos(),
        session.settings().waiterLease().toNanos());
    session.sendUntilDone(this::sendWithdraw, () -> until)
        .whenComplete((released, error) -> {
          if (error != null) {
            log.debug("Could not take a waiter of {} out of the queue; it leaves it within the waiter lease",
                path, error);
          }
        });
  }

  /**
   * Waits for {@code pending}. On an interrupt it gives the wait up, ends a tenure that came in
   * meanwhile (nobody will close it), keeps the thread's interrupt flag and throws {@link
   * BatonInterruptedException} ("Interrupted while waiting for {@code what}"), whatever {@code
   * pending} ended with: a tenure, a try-once's refusal ({@code null}) or a failure such as a timeout.
   */
  public static Tenure await(CompletableFuture<Tenure> pending, String what) throws ExecutionException {
    try {
      return pending.get();
    } catch (InterruptedException e) {
      if (!pending.completeExceptionally(new CancellationException("interrupted")) && !pending.isCompletedExceptionally()) {
        Tenure late = pending.getNow(null);
        if (late != null) {
          late.exit();
        }
      }
      Thread.currentThread().interrupt();
      throw new BatonInterruptedException("Interrupted while waiting for " + what, e);
    }
  }

  /**
   * A lease once {@code pending} is granted, completed on the session's event thread; cancelling it
   * gives the acquisition up, and a lease that comes after the cancel is closed. A failure is
   * translated as one of {@code acquiring}.
   */
  public static CompletableFuture<Lease> leaseOf(CompletableFuture<Tenure> pending, RedisSession session,
      String acquiring) {
    CompletableFuture<Lease> leased = new CompletableFuture<>();
    leased.whenComplete((lease, error) -> {
      if (error instanceof CancellationException) {
        pending.completeExceptionally(error);
      }
    });
    pending.whenCompleteAsync((tenure, error) -> {
      if (error != null) {
        leased.completeExceptionally(RedisErrors.translate(error, session.address(), acquiring));
        return;
      }
      Lease lease = tenure.newLease();
      if (!leased.complete(lease)) {
        lease.close(); // cancelled by the caller while the grant was on its way
      }
    }, session.events());
    return leased;
  }

  /** A wait that ran out: empty, or ({@code timeoutThrows}) an {@link AcquireTimeoutException} made here, so the trace shows the caller. */
  public static Optional<Lease> timedOut(String path, Duration timeout, boolean timeoutThrows) {
    if (!timeoutThrows) {
      return Optional.empty();
    }
    throw new AcquireTimeoutException(path, timeout);
  }
}
