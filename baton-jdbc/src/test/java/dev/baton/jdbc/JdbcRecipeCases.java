package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.atomic.Counter;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.Mutex;
import dev.baton.lock.ReadWriteLock;
import dev.baton.lock.Semaphore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The semaphore, read-write lock and counter of the SQL backend, run on each database by a subclass
 * that says how to reach a fresh one (the conformance suite covers the locks on PostgreSQL; these
 * cases cover MariaDB too, and the counter, which has no contract class yet).
 */
abstract class JdbcRecipeCases extends JdbcClientCases {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @Override
  protected Duration leaseTtl() {
    return Duration.ofSeconds(10);
  }

  @AfterEach
  void stopThreads() {
    threads.shutdownNow();
  }

  private <T> T get(Future<T> future) throws Exception {
    return future.get(60, TimeUnit.SECONDS);
  }

  // ---- counter ----

  @Test
  void counter_startsAtZero_setsAndComparesAndSets() {
    Counter counter = client().counter("/counters/basics");
    Counter other = client().counter("/counters/basics");
    assertThat(counter.path()).isEqualTo("/counters/basics");
    assertThat(counter.get()).as("a counter never written").isZero();
    assertThat(counter.compareAndExchange(5, 7)).as("no row is 0, not 5").isZero();
    assertThat(counter.get()).isZero();
    assertThat(counter.compareAndSet(0, 10)).as("0 -> 10 on a missing row").isTrue();
    assertThat(other.get()).isEqualTo(10);
    assertThat(other.compareAndExchange(3, 4)).as("a failed compare-and-set says what it found").isEqualTo(10);
    assertThat(counter.get()).isEqualTo(10);
    counter.set(-2);
    assertThat(other.addAndGet(5)).isEqualTo(3);
    assertThat(other.incrementAndGet()).isEqualTo(4);
    assertThat(counter.decrementAndGet()).isEqualTo(3);
    assertThat(client().counter("/counters/fresh").incrementAndGet()).as("the first update makes the row").isEqualTo(1);
  }

  @Test
  void counter_incrementsOfManyThreadsAndClients_areNeverLost() throws Exception {
    List<Future<List<Long>>> workers = new ArrayList<>();
    for (int c = 0; c < 3; c++) {
      Counter counter = client().counter("/counters/orders");
      for (int t = 0; t < 4; t++) {
        workers.add(threads.submit(() -> {
          List<Long> seen = new ArrayList<>();
          for (int i = 0; i < 50; i++) {
            seen.add(counter.incrementAndGet());
          }
          return seen;
        }));
      }
    }
    Set<Long> all = new HashSet<>();
    for (Future<List<Long>> worker : workers) {
      all.addAll(get(worker));
    }
    assertThat(all).as("every increment got a value of its own").hasSize(600);
    assertThat(client().counter("/counters/orders").get()).isEqualTo(600);
  }

  @Test
  void counter_compareAndSetDecrements_neverOversell() throws Exception {
    client().counter("/stock/sku-42").set(40);
    AtomicInteger sold = new AtomicInteger();
    List<Future<Void>> workers = new ArrayList<>();
    for (int c = 0; c < 3; c++) {
      Counter stock = client().counter("/stock/sku-42");
      for (int t = 0; t < 3; t++) {
        workers.add(threads.submit(() -> {
          while (true) {
            long left = stock.get();
            boolean bought = false;
            while (left > 0 && !bought) {
              long seen = stock.compareAndExchange(left, left - 1);
              bought = seen == left;
              left = seen;
            }
            if (!bought) {
              return null;
            }
            sold.incrementAndGet();
          }
        }));
      }
    }
    for (Future<Void> worker : workers) {
      get(worker);
    }
    assertThat(sold.get()).isEqualTo(40);
    assertThat(client().counter("/stock/sku-42").get()).isZero();
  }

  @Test
  void counter_overflow_isRefused_andWritesNothing() {
    Counter counter = client().counter("/counters/big");
    counter.set(Long.MAX_VALUE);
    assertThatThrownBy(() -> counter.addAndGet(1)).isInstanceOf(ArithmeticException.class)
        .hasMessageContaining("/counters/big");
    assertThat(counter.get()).isEqualTo(Long.MAX_VALUE);
  }

  // ---- semaphore ----

  @Test
  void semaphore_atMostNHolders_tokensGrow_allOrNothing() throws Exception {
    String name = "/semaphores/pool";
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    List<Future<List<Long>>> workers = new ArrayList<>();
    for (int c = 0; c < 3; c++) {
      Semaphore semaphore = client().semaphore(name, 2);
      for (int t = 0; t < 2; t++) {
        workers.add(threads.submit(() -> {
          List<Long> tokens = new ArrayList<>();
          for (int i = 0; i < 5; i++) {
            try (Lease lease = semaphore.acquire(WAIT)) {
              most.accumulateAndGet(inside.incrementAndGet(), Math::max);
              tokens.add(lease.fencingToken());
              Thread.yield();
              inside.decrementAndGet();
            }
          }
          return tokens;
        }));
      }
    }
    Set<Long> tokens = new HashSet<>();
    for (Future<List<Long>> worker : workers) {
      List<Long> mine = get(worker);
      assertThat(mine).as("one thread's tokens, in its order").isSorted();
      tokens.addAll(mine);
    }
    assertThat(most.get()).as("holders at once").isBetween(1, 2);
    assertThat(tokens).as("a token per grant").hasSize(30);

    Semaphore a = client().semaphore(name, 3);
    Semaphore b = client().semaphore(name, 3);
    Lease two = a.acquire(2, WAIT);
    assertThat(b.holders()).as("a lease of two permits, once per permit").hasSize(2);
    assertThat(b.tryAcquire(2, Duration.ZERO)).as("two permits of the one left").isEmpty();
    Lease one = b.tryAcquire(Duration.ZERO).orElseThrow();
    assertThat(one.fencingToken()).isGreaterThan(two.fencingToken());
    assertThat(b.tryAcquire(Duration.ZERO)).isEmpty();
    CompletableFuture<Lease> waiting = b.acquireAsync();
    two.close();
    Lease third = waiting.get(60, TimeUnit.SECONDS);
    assertThat(third.fencingToken()).isGreaterThan(one.fencingToken());
    third.close();
    one.close();
    await().atMost(WAIT).untilAsserted(() -> assertThat(a.holders()).as("released in the background").isEmpty());
  }

  @Test
  void semaphore_timedOutMultiPermitWaiter_keepsNothing() {
    Semaphore a = client().semaphore("/semaphores/give-back", 2);
    Semaphore b = client().semaphore("/semaphores/give-back", 2);
    Lease held = a.acquire(WAIT);
    assertThat(b.tryAcquire(2, Duration.ofMillis(200))).isEmpty();
    assertThat(a.holders()).hasSize(1);
    b.tryAcquire(Duration.ZERO).orElseThrow().close();
    held.close();
  }

  @Test
  void semaphoreLease_whoseRowIsGone_isLost_andGuardedWorkRefused() {
    JdbcBaton baton = client();
    Lease lease = baton.semaphore("/semaphores/lost", 1).acquire(WAIT);
    String ran = baton.guarded(lease, c -> "ran");
    assertThat(ran).as("guarded work while the row is held").isEqualTo("ran");
    run("DELETE FROM baton_semaphore WHERE owner <> ''");
    await().atMost(WAIT).until(() -> lease.state() == LeaseState.LOST);
    assertThatThrownBy(() -> baton.guarded(lease, c -> "ran")).isInstanceOf(dev.baton.lock.LeaseLostException.class);
    Lease next = client().semaphore("/semaphores/lost", 1).acquire(WAIT);
    assertThat(next.fencingToken()).as("the header keeps the counter").isGreaterThan(lease.fencingToken());
    next.close();
  }

  /**
   * As the mutex's count (JdbcMutexCases): a hand-over of a semaphore permit or a write lock costs
   * a bounded number of statements, whatever the number of waiters, since a client's waiters share
   * one check and only the head tries.
   */
  @Test
  void semaphoreAndWriteLock_handOverCostsBoundedStatements_whateverTheNumberOfWaiters() throws Exception {
    double semaphore2 = shareStatementsPerHandOver(2, false);
    double semaphore50 = shareStatementsPerHandOver(50, false);
    double write2 = shareStatementsPerHandOver(2, true);
    double write50 = shareStatementsPerHandOver(50, true);
    System.out.printf("%s: statements per hand-over: semaphore %.2f with 2 waiters, %.2f with 50;"
        + " write lock %.2f with 2, %.2f with 50%n", client().backend(), semaphore2, semaphore50, write2, write50);
    // Flat, not equal: with 2 waiters one re-check more or less moves the mean by a whole statement
    // or two (CI saw 9.0 against 10.9), while a cost that grew with the waiters would be far past this.
    assertThat(semaphore50).isLessThanOrEqualTo(semaphore2 + GROWTH_SLACK).isLessThanOrEqualTo(MAX_SHARE_STATEMENTS_PER_HAND_OVER);
    assertThat(write50).isLessThanOrEqualTo(write2 + GROWTH_SLACK).isLessThanOrEqualTo(MAX_SHARE_STATEMENTS_PER_HAND_OVER);
  }

  /**
   * A grant's transaction (lock the header, drop expired rows, read the rows, bump the token, write
   * the lease), a release's (delete, notify), the write lock's waiter row: measured 6.5-11 (more
   * with 2 waiters, where the waiting client's first attempt weighs more), with room for a re-check.
   */
  private static final double MAX_SHARE_STATEMENTS_PER_HAND_OVER = 16;

  /** How much more a hand-over among 50 waiters may cost than among 2 and still count as not growing. */
  private static final double GROWTH_SLACK = 3;

  private double shareStatementsPerHandOver(int waiters, boolean writeLock) throws Exception {
    JdbcBaton holder = client();
    JdbcBaton waiting = client();
    String name = (writeLock ? "/rw/handover-" : "/semaphores/handover-") + waiters;
    Lease first = writeLock ? holder.readWriteLock(name).writeLock().acquire(WAIT)
        : holder.semaphore(name, 1).acquire(WAIT);
    Semaphore semaphore = waiting.semaphore(name, 1);
    Mutex write = waiting.readWriteLock(name).writeLock();
    List<Long> tokens = new CopyOnWriteArrayList<>();
    CountDownLatch done = new CountDownLatch(waiters);
    long idle = waiting.statementsSent();
    for (int i = 0; i < waiters; i++) {
      (writeLock ? write.acquireAsync() : semaphore.acquireAsync()).thenAccept(lease -> {
        tokens.add(lease.fencingToken());
        lease.close();
        done.countDown();
      });
    }
    await().atMost(WAIT).until(() -> waiting.statementsSent() > idle); // the waiting client's first, refused, attempt
    long before = waiting.statementsSent() + holder.statementsSent();
    first.close();
    assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
    long sent = waiting.statementsSent() + holder.statementsSent() - before;
    assertThat(tokens).isSorted().doesNotHaveDuplicates().hasSize(waiters);
    return (double) sent / waiters;
  }

  // ---- read-write lock ----

  @Test
  void readWriteLock_readersShare_writerExcludes_waitingWriterFirst() throws Exception {
    String name = "/rw/prices";
    ReadWriteLock reader = client().readWriteLock(name);
    ReadWriteLock writer = client().readWriteLock(name);
    ReadWriteLock late = client().readWriteLock(name);
    Lease r1 = reader.readLock().acquire(WAIT);
    Lease r2 = late.readLock().acquire(WAIT);
    assertThat(writer.holders()).hasSize(2);
    assertThat(writer.writeLock().tryAcquire(Duration.ZERO)).as("a writer beside readers").isEmpty();
    r2.close();
    CompletableFuture<Lease> write = writer.writeLock().acquireAsync();
    await().atMost(WAIT).untilAsserted(() -> assertThat(late.waiters()).hasSize(1));
    assertThat(late.writeLock().waiters()).hasSize(1);
    assertThat(late.readLock().tryAcquire(Duration.ZERO)).as("a reader behind a waiting writer").isEmpty();
    CompletableFuture<Lease> lateRead = late.readLock().acquireAsync();
    await().atMost(WAIT).untilAsserted(() -> assertThat(reader.waiters()).hasSize(2));
    r1.close();
    Lease w = write.get(60, TimeUnit.SECONDS);
    assertThat(w.fencingToken()).isGreaterThan(r1.fencingToken());
    assertThat(reader.readLock().tryAcquire(Duration.ZERO)).as("a reader beside the writer").isEmpty();
    assertThat(lateRead).isNotDone();
    w.close();
    Lease lr = lateRead.get(60, TimeUnit.SECONDS);
    assertThat(lr.fencingToken()).isGreaterThan(w.fencingToken());
    lr.close();
    assertThat(reader.waiters()).as("no waiter left").isEmpty();
  }

  @Test
  void readWriteLock_reentrant_downgrades_refusesUpgrade() {
    String name = "/rw/downgrade";
    ReadWriteLock lock = client().readWriteLock(name);
    ReadWriteLock other = client().readWriteLock(name);
    Lease write = lock.writeLock().acquire(WAIT);
    Lease again = lock.writeLock().acquire(WAIT);
    assertThat(again.fencingToken()).as("a reentrant level").isEqualTo(write.fencingToken());
    again.close();
    assertThat(write.state()).isEqualTo(LeaseState.HELD);
    Optional<Lease> read = lock.readLock().tryAcquire(Duration.ZERO);
    assertThat(read).isPresent();
    assertThat(read.get().fencingToken()).isEqualTo(write.fencingToken());
    write.close();
    assertThat(read.get().state()).isEqualTo(LeaseState.HELD);
    assertThatThrownBy(() -> lock.writeLock().acquire(WAIT)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(name);
    try (Lease shared = other.readLock().acquire(WAIT)) {
      assertThat(shared.isValid()).isTrue();
    }
    read.get().close();
    try (Lease next = other.writeLock().acquire(WAIT)) {
      assertThat(next.fencingToken()).isGreaterThan(write.fencingToken());
    }
  }

  // ---- schema ----

  @Test
  void missingRecipeTable_isNamed_withItsDdl() {
    JdbcBaton made = client();
    run("DROP TABLE baton_semaphore");
    JdbcBaton baton = track(builder().createSchema(false).build());
    assertThat(baton.mutex("still-fine").tryAcquire(Duration.ZERO)).as("the mutex needs only its own table").isPresent();
    assertThatThrownBy(() -> baton.semaphore("/s", 1)).isInstanceOf(JdbcSchemaException.class)
        .satisfies(e -> {
          JdbcSchemaException s = (JdbcSchemaException) e;
          assertThat(s.problem()).isEqualTo(JdbcSchemaException.Problem.MISSING_TABLE);
          assertThat(s.table()).isEqualTo("baton_semaphore");
          assertThat(s.getMessage()).contains("baton_semaphore", "CREATE TABLE IF NOT EXISTS baton_semaphore");
        });
    assertThat(baton.counter("/c").incrementAndGet()).isEqualTo(1);
    made.close();
  }
}
