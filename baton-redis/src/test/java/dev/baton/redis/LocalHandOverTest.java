package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** Local hand-over between the threads of one client ({@link RedisMutexOptions#withLocalHandOver}). */
class LocalHandOverTest extends RedisTestSupport {
  private static final RedisMutexOptions COHORT = RedisMutexOptions.defaults().withLocalHandOver(4);

  @Test
  void mutualExclusion_andGrowingTokens_acrossLocalAndRemoteHandOvers() throws Exception {
    MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
    List<Callable<Void>> workers = new ArrayList<>();
    for (int c = 0; c < 2; c++) {
      Mutex mutex = client().mutex("cohort", COHORT);
      for (int t = 0; t < 4; t++) {
        workers.add(Workers.batonLoop(mutex, checker, "client-" + c, 40));
      }
    }
    Workers.runAll(workers);
    checker.assertNoViolations();
    assertThat(checker.sectionCount()).isEqualTo(2 * 4 * 40);
  }

  @Test
  void aLocalHandOver_givesTheNextToken_andAnotherClientsGrantIsLargerStill() throws Exception {
    Mutex mutex = client().mutex("tokens", COHORT);
    Lease first = mutex.acquire();
    CompletableFuture<Lease> second = mutex.acquireAsync();
    assertThat(second).isNotDone();
    first.close();
    Lease handedOver = second.get(5, TimeUnit.SECONDS);
    assertThat(handedOver.fencingToken()).isEqualTo(first.fencingToken() + 1);
    assertThat(first.state()).isEqualTo(LeaseState.RELEASED);
    assertThat(handedOver.state()).isEqualTo(LeaseState.HELD);
    handedOver.close();

    try (Lease other = client().mutex("tokens").acquire(Duration.ofSeconds(5))) {
      assertThat(other.fencingToken()).isGreaterThan(first.fencingToken() + 4);
    }
  }

  @Test
  void anotherClient_waitsBehindAtMostTheBound_whileThisClientsThreadsKeepAsking() throws Exception {
    Mutex busy = client().mutex("fair", COHORT);
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    List<Future<?>> workers = new ArrayList<>();
    try {
      for (int t = 0; t < 4; t++) {
        workers.add(pool.submit(() -> {
          while (!stop.get()) {
            try (Lease lease = busy.acquire(Duration.ofSeconds(60))) {
              Thread.yield();
            }
          }
          return null;
        }));
      }
      Mutex other = client().mutex("fair");
      try (Lease lease = other.acquire(Duration.ofSeconds(20))) {
        assertThat(lease.isValid()).isTrue();
      }
    } finally {
      stop.set(true);
      for (Future<?> worker : workers) {
        worker.get(1, TimeUnit.MINUTES);
      }
      pool.shutdownNow();
    }
  }

  @Test
  void tryOnce_behindALocalHolder_failsAtOnce_andATimedWaiterLeaves() {
    Mutex mutex = client().mutex("try", COHORT);
    try (Lease lease = mutex.acquire()) {
      CompletableFuture<Boolean> tried = CompletableFuture.supplyAsync(() -> mutex.tryAcquire(Duration.ZERO).isPresent());
      assertThat(tried.join()).isFalse();
      CompletableFuture<Throwable> timed = CompletableFuture.supplyAsync(() -> {
        try {
          mutex.acquire(Duration.ofMillis(200)).close();
          return null;
        } catch (RuntimeException e) {
          return e;
        }
      });
      assertThat(timed.join()).isInstanceOf(AcquireTimeoutException.class);
    }
    assertThatThrownBy(() -> RedisMutexOptions.defaults().withLocalHandOver(5000))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("localHandOvers");
  }

  @Test
  void afterTheCounterIsLost_theNextTokenIsLargerThanEveryTokenHandedOut() {
    // Each grant reserves a token per possible hand-over; a burst that uses few must not leave the
    // counter ahead of the clock, which is all that is left once the counter is gone.
    Mutex mutex = client().mutex("burst", RedisMutexOptions.defaults().withLocalHandOver(4095));
    long largest = 0;
    for (int i = 0; i < 1000; i++) {
      try (Lease lease = mutex.acquire()) {
        largest = Math.max(largest, lease.fencingToken());
      }
    }

    raw().del("baton_lock_token:{burst}"); // evicted, deleted, or lost in a restart or failover

    try (Lease next = client().mutex("burst").acquire(Duration.ofSeconds(5))) {
      assertThat(next.fencingToken()).isGreaterThan(largest);
    }
  }

  @Test
  void aCounterAheadOfTheClock_isNotPushedFurtherAheadByAReservation() {
    List<String> time = raw().time();
    long clockMicros = Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
    raw().set("baton_lock_token:{ahead}", Long.toString(clockMicros + 60_000_000)); // a minute ahead

    try (Lease lease = client().mutex("ahead", RedisMutexOptions.defaults().withLocalHandOver(4095)).acquire()) {
      assertThat(lease.fencingToken()).isEqualTo(clockMicros + 60_000_001);
      assertThat(raw().get("baton_lock_token:{ahead}")).isEqualTo(Long.toString(lease.fencingToken()));
    }
  }
}
