package dev.baton.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import dev.baton.testkit.FaultProxy;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The {@code java.util.concurrent.locks.Lock} adapter: what it keeps of the contract and what it cannot. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MutexLockTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @Test
  void tryLock_otherClientHolds_falseAfterTimeoutAndNoNodeLeft() throws Exception {
    Lock mine = MutexLock.of(baton().mutex("/adapter/timeout"));
    Lock theirs = MutexLock.of(baton().mutex("/adapter/timeout"));
    mine.lock();

    Future<Boolean> other = pool(1).submit(() -> theirs.tryLock(300, TimeUnit.MILLISECONDS));

    assertThat(other.get(20, TimeUnit.SECONDS)).isFalse();
    awaitChildren("/adapter/timeout", 1);
    assertThat(theirs.tryLock()).as("one try while held").isFalse();
    mine.unlock();
    assertThat(pool(1).submit(() -> theirs.tryLock()).get(20, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void lock_reentrantOnOneThread_releasedOnlyByTheLastUnlock() throws Exception {
    MutexLock lock = MutexLock.of(baton().mutex("/adapter/reentrant"));
    Lock other = MutexLock.of(baton().mutex("/adapter/reentrant"));

    lock.lock();
    assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
    lock.unlock();

    assertThat(lock.isHeldByCurrentThread()).isTrue();
    assertThat(pool(1).submit(() -> other.tryLock()).get(20, TimeUnit.SECONDS)).as("still held once").isFalse();
    lock.unlock();
    assertThat(lock.isHeldByCurrentThread()).isFalse();
    assertThat(pool(1).submit(() -> other.tryLock()).get(20, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void unlock_fromAThreadThatDoesNotHoldIt_throwsIllegalMonitorStateAndKeepsTheLock() throws Exception {
    MutexLock lock = MutexLock.of(baton().mutex("/adapter/other-thread"));
    lock.lock();

    Future<?> foreign = pool(1).submit(lock::unlock);

    assertThatThrownBy(() -> foreign.get(20, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalMonitorStateException.class)
        .hasMessageContaining("/adapter/other-thread");
    assertThat(lock.currentLease()).hasValueSatisfying(lease -> assertThat(lease.isValid()).isTrue());
    lock.unlock();
    awaitChildren("/adapter/other-thread", 0);
  }

  @Test
  void lockInterruptibly_interruptedWhileWaiting_throwsInterruptedAndWithdraws() throws Exception {
    Lock holder = MutexLock.of(baton().mutex("/adapter/interrupt"));
    Lock waiter = MutexLock.of(baton().mutex("/adapter/interrupt"));
    holder.lock();
    ExecutorService pool = pool(1);
    CountDownLatch started = new CountDownLatch(1);
    CompletableFuture<Throwable> outcome = new CompletableFuture<>();
    Future<?> waiting = pool.submit(() -> {
      started.countDown();
      try {
        waiter.lockInterruptibly();
        outcome.complete(null);
      } catch (Throwable e) {
        outcome.complete(e);
      }
    });
    assertThat(started.await(20, TimeUnit.SECONDS)).isTrue();
    awaitChildren("/adapter/interrupt", 2);

    waiting.cancel(true);

    assertThat(outcome.get(20, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
    awaitChildren("/adapter/interrupt", 1);
    holder.unlock();
  }

  @Test
  void lock_interruptedWhileWaiting_stillLocksAndKeepsTheInterruptFlag() throws Exception {
    Lock holder = MutexLock.of(baton().mutex("/adapter/uninterruptible"));
    MutexLock waiter = MutexLock.of(baton().mutex("/adapter/uninterruptible"));
    holder.lock();
    CompletableFuture<Boolean> flagAfterLock = new CompletableFuture<>();
    Thread thread = new Thread(() -> {
      waiter.lock();
      flagAfterLock.complete(Thread.currentThread().isInterrupted());
      waiter.unlock();
    });
    thread.start();
    awaitChildren("/adapter/uninterruptible", 2);

    thread.interrupt();
    awaitChildren("/adapter/uninterruptible", 2); // queued again, not gone
    assertThat(flagAfterLock).isNotDone();
    holder.unlock();

    assertThat(flagAfterLock.get(20, TimeUnit.SECONDS)).as("interrupt flag once locked").isTrue();
    thread.join(TimeUnit.SECONDS.toMillis(20));
  }

  @Test
  void newCondition_always_unsupportedNamingThePath() {
    Lock lock = MutexLock.of(baton().mutex("/adapter/condition"));

    assertThatThrownBy(lock::newCondition).isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("/adapter/condition");
  }

  @Test
  void unlock_afterTheSessionExpiredWhileHeld_throwsLockLostAndReleasesTheHold() throws Exception {
    FaultProxy proxy = closing(FaultProxy.start(cluster.address(0)));
    Baton fragile = baton(proxy.connectString(), Duration.ofSeconds(1));
    MutexLock lock = MutexLock.of(fragile.mutex("/adapter/lost"));
    lock.lock();
    Lease lease = lock.currentLease().orElseThrow();

    proxy.blackhole();
    await().atMost(WAIT).until(() -> lease.state() == LeaseState.LOST);

    assertThat(lock.isHeldByCurrentThread()).as("a Lock cannot tell the thread by itself").isTrue();
    assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class).hasMessageContaining("/adapter/lost");
    assertThat(lock.isHeldByCurrentThread()).isFalse();
    assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
  }
}
