package dev.baton.internal.redis.mutex;

import dev.baton.ClientClosedException;
import dev.baton.internal.redis.InMemoryClient;
import dev.baton.internal.redis.Tenure;
import dev.baton.testkit.ModelCheck;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Validate;

/**
 * The Redis mutex's local hand-over ({@link LocalCohort}), model-checked: a client's threads acquire,
 * exit, give up and close while Redis (played in memory, the cohort's {@link LocalCohort.Queued}
 * seam) grants the place queued for and a connection drops. Whatever the interleaving:
 *
 * <ul>
 *   <li>one tenure at a time is in use, with tokens rising, each within its grant's reservation;
 *   <li>one acquisition at a time queues in Redis for the cohort;
 *   <li>once Redis has granted what is queued and every holder has exited, every waiter has been
 *       served, given up or failed, the cohort is idle and the lock is released in Redis.
 * </ul>
 *
 * Violations are recorded where they are seen (some in a future's callback, where a throw would be
 * swallowed) and reported by the validation after each run.
 */
public class LocalCohortLincheck {
  private static final int RESERVED = 2; // a grant serves the holder and one local hand-over
  private static final String PATH = "checked";

  private final Object redisSide = new Object(); // guards the fields below: Redis and the observers' records
  private final LocalCohort cohort =
      new LocalCohort(PATH, InMemoryClient.INSTANCE, LocalCohortLincheck::closedError, this::queue);
  private final List<CompletableFuture<Tenure>> waiters = new ArrayList<>();
  private final List<CompletableFuture<RedisHold>> queued = new ArrayList<>();
  private final List<String> violations = new ArrayList<>();
  private FakeHold key; // the hold whose grant the lock's key holds
  private long nextToken = 1;
  private boolean closed;
  private Tenure inUse;
  private long lastToken;

  /** A grant in Redis whose release frees the key in memory. */
  private final class FakeHold extends RedisHold {
    FakeHold(long token) {
      super(InMemoryClient.INSTANCE, PATH, token, RESERVED, Duration.ofSeconds(60));
    }

    @Override
    protected CompletableFuture<?> releaseCommand() {
      synchronized (redisSide) {
        if (key == this) {
          key = null;
        }
      }
      return CompletableFuture.completedFuture(null);
    }
  }

  private static ClientClosedException closedError() {
    return new ClientClosedException("Redis in memory");
  }

  /** The cohort queues in Redis. */
  private LocalCohort.Queued queue(Thread thread) {
    CompletableFuture<RedisHold> granted = new CompletableFuture<>();
    synchronized (redisSide) {
      if (queued.stream().anyMatch(q -> !q.isDone())) {
        violations.add("a second acquisition queued beside one still queueing");
      }
      if (closed) {
        granted.completeExceptionally(closedError());
      }
      queued.add(granted);
    }
    return new LocalCohort.Queued(granted, granted::completeExceptionally);
  }

  // ---- what the client's threads do ---------------------------------------------------------

  @Operation
  public void acquire() {
    CompletableFuture<Tenure> waiter = cohort.acquire(Thread.currentThread(), -1, IllegalStateException::new);
    synchronized (redisSide) {
      waiters.add(waiter);
    }
    waiter.thenAccept(this::began);
  }

  private void began(Tenure tenure) {
    synchronized (redisSide) {
      if (inUse != null) {
        violations.add("tenure " + tenure.token() + " began while " + inUse.token() + " was in use");
      }
      if (tenure.token() <= lastToken) {
        violations.add("token " + tenure.token() + " after " + lastToken);
      }
      long first = tenure.hold().token();
      if (tenure.token() < first || tenure.token() >= first + RESERVED) {
        violations.add("token " + tenure.token() + " outside its grant's reservation from " + first);
      }
      inUse = tenure;
      lastToken = tenure.token();
    }
  }

  /** The holder exits its tenure. */
  @Operation
  public void exit() {
    Tenure tenure;
    synchronized (redisSide) {
      tenure = inUse;
      inUse = null;
    }
    if (tenure != null) {
      tenure.exit();
    }
  }

  /** The first waiter still waiting gives up (cancels its future). */
  @Operation
  public void giveUp() {
    CompletableFuture<Tenure> waiter;
    synchronized (redisSide) {
      waiter = waiters.stream().filter(w -> !w.isDone()).findFirst().orElse(null);
    }
    if (waiter != null) {
      waiter.cancel(false);
    }
  }

  /** The client closes, as {@link dev.baton.internal.redis.RedisSession#close()} does: waiters fail, acquisitions give up, holds are released. */
  @Operation
  public void close() {
    List<CompletableFuture<RedisHold>> pending;
    FakeHold held;
    synchronized (redisSide) {
      closed = true;
      pending = List.copyOf(queued);
      held = key;
    }
    ClientClosedException error = closedError();
    cohort.failAll(error);
    pending.forEach(q -> q.completeExceptionally(error));
    if (held != null) {
      held.releaseOnClose();
    }
  }

  // ---- what Redis does -------------------------------------------------------------------------

  /** Redis grants the acquisition queued, if the key is free. */
  @Operation
  public void grant() {
    grantQueued();
  }

  private boolean grantQueued() {
    CompletableFuture<RedisHold> next;
    FakeHold hold;
    synchronized (redisSide) {
      next = queued.stream().filter(q -> !q.isDone()).findFirst().orElse(null);
      if (next == null || key != null) {
        return false;
      }
      hold = new FakeHold(nextToken);
      nextToken += RESERVED;
      key = hold;
    }
    if (!next.complete(hold)) {
      hold.release(); // given up meanwhile: the acquisition withdraws what it was granted
    }
    return true;
  }

  /** The connection drops: the hold in use is SUSPECT, and is no longer handed on. */
  @Operation
  public void connectionLost() {
    FakeHold held;
    synchronized (redisSide) {
      held = key;
    }
    if (held != null) {
      held.connectionLost();
    }
  }

  @Validate
  public void everyWaiterServedAndTheLockReleased() {
    // Quiescence: the holders exit and Redis grants what is queued, until neither is left to do.
    for (int i = 0; i < 100; i++) {
      boolean holding;
      synchronized (redisSide) {
        holding = inUse != null;
      }
      if (holding) {
        exit();
      } else if (!grantQueued()) {
        break;
      }
    }
    synchronized (redisSide) {
      if (!violations.isEmpty()) {
        throw new IllegalStateException(String.join("; ", violations));
      }
      long stranded = waiters.stream().filter(w -> !w.isDone()).count();
      if (stranded > 0) {
        throw new IllegalStateException(stranded + " waiter(s) stranded: nothing queued for them, nothing held");
      }
      if (cohort.busy()) {
        throw new IllegalStateException("the cohort is still busy with nobody waiting");
      }
      if (key != null) {
        throw new IllegalStateException("the lock is still held in Redis by token " + key.token());
      }
    }
  }

  /**
   * The budget. The races here take two threads: two acquires against each other (one acquisition
   * queued for both), a grant against a give-up, a tenure's end handing over to a waiter that gives
   * up, and a dropped connection or a close against a hand-over. A written scenario lines up each
   * with one thread switch; 150 interleavings each found a planted check-then-act (the start of
   * the queueing moved out of the acquire's monitor section: two acquisitions queued at once),
   * which 50 did not. Random scenarios only in a long run (see {@link ModelCheck}).
   */
  public static void check() {
    ModelCheck.options(0, 150,
            ModelCheck.scenario(LocalCohortLincheck.class, new String[] {"acquire"}, new String[] {"acquire"}),
            ModelCheck.scenario(LocalCohortLincheck.class, new String[] {"acquire", "giveUp"}, new String[] {"grant"}),
            ModelCheck.scenario(LocalCohortLincheck.class,
                new String[] {"acquire", "grant", "acquire", "exit"}, new String[] {"giveUp"}),
            ModelCheck.scenario(LocalCohortLincheck.class,
                new String[] {"acquire", "grant", "acquire", "exit"}, new String[] {"connectionLost", "close"}))
        .check(LocalCohortLincheck.class);
  }
}
