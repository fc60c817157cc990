package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.lock.Lease;
import dev.baton.lock.LockOwner;
import dev.baton.lock.Mutex;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** What {@code holder()} and {@code waiters()} must tell, checked the same way on every deployment. */
final class LockReads {
  private LockReads() {}

  /**
   * With {@code lease} held through {@code mutex} by this thread: the holder names this process,
   * thread and token; {@code second} and {@code third} (the same lock, other clients) queue and are
   * listed in order; the release goes to the first of them.
   */
  static void assertHolderAndWaitersInOrder(Mutex mutex, Lease lease, Mutex second, Mutex third) throws Exception {
    LockOwner holder = mutex.holder().orElseThrow();
    assertThat(holder.pid()).isEqualTo(ProcessHandle.current().pid());
    assertThat(holder.thread()).isEqualTo(Thread.currentThread().getName());
    assertThat(holder.fencingToken()).isEqualTo(lease.fencingToken());
    assertThat(holder.host()).isNotEmpty();

    CompletableFuture<Lease> w1 = second.acquireAsync();
    await().until(() -> mutex.waiters().size() == 1);
    CompletableFuture<Lease> w2 = third.acquireAsync();
    await().until(() -> mutex.waiters().size() == 2);
    List<LockOwner> waiters = mutex.waiters();
    assertThat(waiters.get(0).queuedAt()).isBeforeOrEqualTo(waiters.get(1).queuedAt());

    lease.close();
    Lease l1 = w1.get(5, TimeUnit.SECONDS);
    assertThat(w2).isNotDone();
    assertThat(mutex.holder().orElseThrow().node()).isEqualTo(waiters.get(0).node());
    l1.close();
    w2.get(5, TimeUnit.SECONDS).close();
    await().until(() -> mutex.holder().isEmpty() && mutex.waiters().isEmpty());
  }
}
