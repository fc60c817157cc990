package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.ClientClosedException;
import dev.baton.lock.AcquireTimeoutException;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.Mutex;
import dev.baton.testkit.MutualExclusionChecker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RedisMutexTest extends RedisTestSupport {

  @Test
  void acquire_setsTheKeyWithATtl_andCloseDeletesIt() {
    Mutex mutex = client().mutex("orders");
    Lease lease = mutex.acquire(Duration.ofSeconds(5));

    assertThat(lease.state()).isEqualTo(LeaseState.HELD);
    assertThat(lease.path()).isEqualTo("orders");
    assertThat(raw().get("orders")).contains("\"token\":" + lease.fencingToken());
    assertThat(raw().pttl("orders")).isBetween(1L, 1500L);
    assertThat(lease.validUntil()).isAfter(java.time.Instant.now());

    lease.close();
    lease.close(); // idempotent

    assertThat(lease.state()).isEqualTo(LeaseState.RELEASED);
    await().until(() -> raw().exists("orders") == 0);
  }

  /**
   * A lease closed just before its client: the release is sent without waiting for its answer, so
   * the client's close must wait for it, or the lock stays taken for its whole TTL (seen by the
   * CLI's {@code lock hold --redis}, which closes its client as soon as the command ends).
   */
  @Test
  void leaseClosedJustBeforeItsClient_isReleasedInRedisByTheTimeTheClientHasClosed() {
    for (int round = 0; round < 20; round++) {
      String name = "closed-then-client-" + round;
      RedisBaton client = client();
      Lease lease = client.mutex(name).acquire(Duration.ofSeconds(5));
      assertThat(raw().exists(name)).isEqualTo(1);
      // A server that forgot the scripts (restarted, failed over, SCRIPT FLUSH): the release takes
      // two round trips, EVALSHA refused, then EVAL.
      raw().scriptFlush();
      lease.close();
      client.close();
      assertThat(raw().exists(name)).as("the lock's key once the client has closed, round %d", round).isEqualTo(0);
    }
  }

  @Test
  void fencingTokens_growFromHolderToHolder_acrossClients_andSurviveTheKeysExpiry() {
    Mutex a = client().mutex("stock");
    Mutex b = client().mutex("stock");
    long first;
    try (Lease lease = a.acquire()) {
      first = lease.fencingToken();
    }
    long second;
    try (Lease lease = b.acquire()) {
      second = lease.fencingToken();
    }
    assertThat(second).isGreaterThan(first);
    assertThat(raw().get("baton_lock_token:{stock}")).isEqualTo(Long.toString(second));
    assertThat(raw().ttl("baton_lock_token:{stock}")).isEqualTo(-1L); // kept for good
  }

  @Test
  void holder_namesHostPidThreadAndToken_andWaitersAreListedInOrder() throws Exception {
    Mutex mutex = client().mutex("report");
    Lease lease = mutex.acquire();
    LockReads.assertHolderAndWaitersInOrder(mutex, lease, client().mutex("report"), client().mutex("report"));
  }

  @Test
  void reentrantPerThread_andReleasedWhenEveryLevelIsClosed_evenFromAnotherThread() throws Exception {
    Mutex mutex = client().mutex("reentrant");
    Lease outer = mutex.acquire();
    Lease inner = mutex.acquire(Duration.ZERO);
    assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
    assertThat(mutex.isHeldByCurrentThread()).isTrue();

    Mutex other = client().mutex("reentrant");
    inner.close();
    assertThat(other.tryAcquire(Duration.ZERO)).isEmpty();

    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      pool.submit(outer::close).get(5, TimeUnit.SECONDS);
    } finally {
      pool.shutdown();
    }
    assertThat(mutex.isHeldByCurrentThread()).isFalse();
    try (Lease next = other.acquire(Duration.ofSeconds(5))) {
      assertThat(next.fencingToken()).isGreaterThan(outer.fencingToken());
    }
  }

  @Test
  void tryOnce_doesNotQueue_andTimedAcquire_givesUpAndLeavesTheQueue() {
    Mutex holder = client().mutex("busy");
    Mutex other = client().mutex("busy");
    try (Lease lease = holder.acquire()) {
      assertThat(other.tryAcquire(Duration.ZERO)).isEmpty();
      assertThat(holder.waiters()).isEmpty();

      assertThatThrownBy(() -> other.acquire(Duration.ofMillis(300)))
          .isInstanceOf(AcquireTimeoutException.class)
          .hasMessageContaining("busy");
      await().until(() -> holder.waiters().isEmpty());
      assertThat(other.tryAcquire(Duration.ofMillis(200))).isEmpty();
    }
    await().until(() -> raw().exists("baton_lock_queue:{busy}") == 0);
  }

  @Test
  void asyncAcquire_needsNoThread_andCancellingItLeavesTheQueue() throws Exception {
    Mutex mutex = client().mutex("async");
    Lease held = mutex.acquire();
    CompletableFuture<Lease> cancelled = mutex.acquireAsync();
    CompletableFuture<Lease> kept = client().mutex("async").acquireAsync(Duration.ofSeconds(10));
    await().until(() -> mutex.waiters().size() == 2);

    cancelled.cancel(false);
    await().until(() -> mutex.waiters().size() == 1);
    held.close();

    Lease next = kept.get(5, TimeUnit.SECONDS);
    assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
    next.close();
  }

  @Test
  void waitersAreServedFirstComeFirstServed() throws Exception {
    Mutex first = client().mutex("fifo");
    Lease held = first.acquire();
    List<String> order = new CopyOnWriteArrayList<>();
    List<CompletableFuture<Void>> done = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      String name = "waiter-" + i;
      Mutex mutex = client().mutex("fifo");
      done.add(mutex.acquireAsync().thenAccept(lease -> {
        order.add(name);
        lease.close();
      }));
      int queued = i + 1;
      await().until(() -> first.waiters().size() == queued);
    }
    held.close();
    CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
    assertThat(order).containsExactly("waiter-0", "waiter-1", "waiter-2", "waiter-3", "waiter-4");
  }

  @Test
  void mutualExclusion_underContention_ofThreeClientsWithThreeThreadsEach() throws Exception {
    MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
    List<Callable<Void>> workers = new ArrayList<>();
    for (int c = 0; c < 3; c++) {
      Mutex mutex = client().mutex("contended");
      for (int t = 0; t < 3; t++) {
        workers.add(Workers.batonLoop(mutex, checker, "client-" + c, 30));
      }
    }
    Workers.runAll(workers);
    checker.assertNoViolations();
    assertThat(checker.sectionCount()).isEqualTo(9 * 30);
  }

  @Test
  void closingTheClient_releasesItsLocks_andFailsItsWaiters() throws Exception {
    RedisBaton closing = client();
    Lease held = closing.mutex("closing").acquire();
    RedisBaton other = client();
    Lease otherHeld = other.mutex("other").acquire();
    CompletableFuture<Lease> waiting = closing.mutex("other").acquireAsync();
    await().until(() -> other.mutex("other").waiters().size() == 1);

    closing.close();
    closing.close(); // idempotent

    assertThat(held.state()).isEqualTo(LeaseState.RELEASED);
    assertThat(raw().exists("closing")).isZero();
    assertThatThrownBy(() -> waiting.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(ClientClosedException.class);
    assertThatThrownBy(() -> closing.mutex("x")).isInstanceOf(ClientClosedException.class);
    await().until(() -> other.mutex("other").waiters().isEmpty());
    otherHeld.close();
  }

  @Test
  void aLongHold_isRenewed_pastItsTtl() {
    Mutex mutex = client().mutex("long");
    Lease lease = mutex.acquire();
    long firstTtlEnd = System.nanoTime() + Duration.ofMillis(1500).toNanos();
    await().atMost(Duration.ofSeconds(10)).until(() -> System.nanoTime() - firstTtlEnd > Duration.ofSeconds(1).toNanos());
    assertThat(lease.state()).isEqualTo(LeaseState.HELD);
    assertThat(raw().get("long")).contains("\"token\":" + lease.fencingToken());
    lease.close();
  }

  @Test
  void aRelease_wakesTheFirstWaiter_throughTheChannel_withoutWaitingForARecheck() throws Exception {
    // 30 s TTL and waiter lease: the waiter's own re-check comes after 10 s at the earliest.
    RedisBaton holderClient = client(RedisBaton.builder().uri(redis.uri()).waiterLease(Duration.ofSeconds(30)));
    RedisBaton waiterClient = client(RedisBaton.builder().uri(redis.uri()).waiterLease(Duration.ofSeconds(30)));
    Lease held = holderClient.mutex("wake").acquire();
    CompletableFuture<Lease> waiting = waiterClient.mutex("wake").acquireAsync();
    await().until(() -> waiterClient.mutex("wake").waiters().size() == 1);
    held.close();
    waiting.get(5, TimeUnit.SECONDS).close();
  }

  @Test
  void aDeadWaiterAtTheHeadOfTheQueue_isSweptOut_bothByAnAcquireAndByARelease() throws Exception {
    // A waiter that was killed leaves its entry until its deadline passes (the waiter lease).
    long now = serverMillis();
    raw().zadd("baton_lock_queue:{swept}", 1, "{\"id\":\"killed-1\"}");
    raw().zadd("baton_lock_alive:{swept}", now - 1, "{\"id\":\"killed-1\"}");
    Lease first = client().mutex("swept").tryAcquire(Duration.ZERO).orElseThrow();
    assertThat(raw().zcard("baton_lock_queue:{swept}")).isZero();

    // Dead only after the live waiter queued behind it: the release must skip it and wake the live one.
    RedisBaton waiterClient = client(RedisBaton.builder().uri(redis.uri()).waiterLease(Duration.ofSeconds(30)));
    long deadline = serverMillis() + 1_000;
    raw().zadd("baton_lock_queue:{swept}", 2, "{\"id\":\"killed-2\"}");
    raw().zadd("baton_lock_alive:{swept}", deadline, "{\"id\":\"killed-2\"}");
    CompletableFuture<Lease> waiting = waiterClient.mutex("swept").acquireAsync();
    await().until(() -> raw().zcard("baton_lock_queue:{swept}") == 2);
    await().until(() -> serverMillis() > deadline);
    first.close();
    // The waiter's own re-check comes after 10 s: only the release's wake-up is this quick.
    Lease second = waiting.get(5, TimeUnit.SECONDS);
    assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
    assertThat(raw().zscore("baton_lock_queue:{swept}", "{\"id\":\"killed-2\"}")).isNull();
    second.close();
  }

  @Test
  void aChannelSubscribedForAWaiter_isLeftOnceIdleForTheWaiterLease_evenAfterManyUncontendedCycles() throws Exception {
    RedisBaton holderClient = client();
    RedisBaton waiterClient = client(); // waiter lease 3 s: the channel lingers that long once idle
    Lease held = holderClient.mutex("linger").acquire();
    CompletableFuture<Lease> waiting = waiterClient.mutex("linger").acquireAsync();
    await().until(() -> raw().pubsubNumsub("baton_lock_channel:{linger}").get("baton_lock_channel:{linger}") == 1L);
    held.close();
    waiting.get(5, TimeUnit.SECONDS).close();
    Mutex mutex = waiterClient.mutex("linger");
    for (int i = 0; i < 200; i++) {
      mutex.acquire().close(); // each one listens on the subscribed channel, then leaves it
    }
    await().atMost(Duration.ofSeconds(15))
        .until(() -> raw().pubsubNumsub("baton_lock_channel:{linger}").get("baton_lock_channel:{linger}") == 0L);
  }

  private long serverMillis() {
    List<String> time = raw().time();
    return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
  }
}
