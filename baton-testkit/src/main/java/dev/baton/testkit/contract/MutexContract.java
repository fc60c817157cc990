package dev.baton.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.BatonInterruptedException;
import dev.baton.ClientClosedException;
import dev.baton.Coordinator;
import dev.baton.lock.AcquireTimeoutException;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.LockOwner;
import dev.baton.lock.Mutex;
import dev.baton.testkit.MutualExclusionChecker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link Mutex} and its {@link Lease}s, every backend alike: exclusion under
 * contention, reentrancy per thread, the three ways to wait and what a timeout or a cancel leaves
 * behind (nothing), release from any thread, who holds and who waits, and a closed client.
 */
public abstract class MutexContract extends ContractSupport {

  /**
   * The mutex every case runs on. A subclass may make it with {@link dev.baton.lock.MutexOptions}
   * (local hand-over, caching) to hold the mutex with options to the same contract.
   */
  protected Mutex mutex(Coordinator client, String name) {
    return client.mutex(name);
  }

  /**
   * How many entries {@link Mutex#waiters()} shows for {@code threads} threads of one mutex object
   * waiting at once: one each, unless {@link #mutex} shares one entry among them (local
   * hand-over), where the waiters queue inside the client behind one entry.
   */
  protected int entriesFor(int threads) {
    return threads;
  }

  @Test
  public void options_eachOneTheBackendOffers_givesAMutexOfTheSameLock_andTheOthersAreRefused() throws Exception {
    for (Feature option : List.of(Feature.LOCAL_HAND_OVER, Feature.LOCK_CACHING, Feature.LOCK_DELAY)) {
      whereSupported(option, () -> {
        String name = name(option.name().toLowerCase(java.util.Locale.ROOT));
        Mutex withOption = (Mutex) option.ask(client(), name);
        Mutex plain = mutex(client(), name);
        long first;
        try (Lease lease = withOption.acquire(WAIT)) {
          first = lease.fencingToken();
          assertThat(plain.tryAcquire(Duration.ZERO)).as("the lock held %s, from another client", option.words()).isEmpty();
        }
        try (Lease lease = plain.acquire(WAIT)) {
          assertThat(lease.fencingToken()).as("the next holder's token").isGreaterThan(first);
        }
      });
    }
  }

  @Test
  public void contention_acrossClientsAndThreads_neverTwoHolders_andTokensGrow() throws Exception {
    String name = name("contended");
    MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
    List<Future<Integer>> workers = new ArrayList<>();
    for (int c = 0; c < 3; c++) {
      Coordinator client = client();
      Mutex mutex = mutex(client, name);
      for (int t = 0; t < 2; t++) {
        String who = "client" + c + "-thread" + t;
        workers.add(onThread(() -> {
          for (int i = 0; i < 8; i++) {
            try (Lease lease = mutex.acquire(WAIT)) {
              MutualExclusionChecker.Section section = checker.enter(who, lease.fencingToken());
              lease.addListener((l, state) -> {
                if (!state.isValid()) {
                  section.lost();
                }
              });
              Thread.yield();
              section.exit();
            }
          }
          return 8;
        }));
      }
    }
    for (Future<Integer> worker : workers) {
      get(worker);
    }
    assertThat(checker.sectionCount()).isEqualTo(48);
    checker.assertNoViolations();
  }

  @Test
  public void reentrant_perThread_releasedWhenEveryLevelIsClosed() throws Exception {
    String name = name("reentrant");
    Mutex mutex = mutex(client(), name);
    Mutex other = mutex(client(), name);

    Lease outer = mutex.acquire(WAIT);
    Lease inner = mutex.tryAcquire(Duration.ZERO).orElseThrow(() -> new AssertionError(
        "the holding thread must get the mutex again at once"));
    assertThat(mutex.isHeldByCurrentThread()).isTrue();
    assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
    // Another thread of the same client, through the same object, is not the holder.
    assertThat(get(onThread(() -> mutex.tryAcquire(Duration.ZERO).map(l -> {
      l.close();
      return true;
    }).isPresent()))).as("another thread must not share a reentrant hold").isFalse();

    inner.close();
    assertThat(outer.isValid()).isTrue();
    assertThat(other.tryAcquire(Duration.ZERO)).as("held while one level remains").isEmpty();
    outer.close();
    assertThat(mutex.isHeldByCurrentThread()).isFalse();
    try (Lease next = other.acquire(WAIT)) {
      assertThat(next.fencingToken()).isGreaterThan(outer.fencingToken());
    }
  }

  @Test
  public void timedAcquire_timesOut_withAcquireTimeoutException_andLeavesNoWaiter() throws Exception {
    String name = name("timed");
    Mutex holderMutex = mutex(client(), name);
    Mutex waiterMutex = mutex(client(), name);
    try (Lease held = holderMutex.acquire(WAIT)) {
      assertThatThrownBy(() -> waiterMutex.acquire(SHORT))
          .isInstanceOf(AcquireTimeoutException.class)
          .hasMessageContaining(name);
      await().untilAsserted(() -> assertThat(waitersView(holderMutex, waiterMutex).waiters()).as("waiters after a timeout")
          .isEmpty());
      assertThat(held.isValid()).isTrue();
    }
    try (Lease next = waiterMutex.acquire(WAIT)) {
      assertThat(next.isValid()).isTrue();
    }
  }

  @Test
  public void tryOnce_onAHeldLock_isEmpty_andLeavesNoWaiter() throws Exception {
    String name = name("try-once");
    Mutex holderMutex = mutex(client(), name);
    Mutex waiterMutex = mutex(client(), name);
    try (Lease held = holderMutex.acquire(WAIT)) {
      assertThat(waiterMutex.tryAcquire(Duration.ZERO)).isEmpty();
      assertThat(waiterMutex.tryAcquire(SHORT)).isEmpty();
      await().untilAsserted(() -> assertThat(waitersView(holderMutex, waiterMutex).waiters()).isEmpty());
    }
    eventually("a free lock, had by one try", () -> waiterMutex.tryAcquire(Duration.ZERO)).close();
  }

  @Test
  public void asyncAcquire_waitsWithoutAThread_andIsGrantedOnRelease() throws Exception {
    String name = name("async");
    Mutex holderMutex = mutex(client(), name);
    Mutex waiterMutex = mutex(client(), name);
    Lease held = holderMutex.acquire(WAIT);
    CompletableFuture<Lease> waiting = waiterMutex.acquireAsync();
    await().untilAsserted(() -> assertThat(waitersView(holderMutex, waiterMutex).waiters()).hasSize(1));
    assertThat(waiting).isNotDone();

    held.close();
    Lease granted = get(waiting);
    assertThat(granted.state()).isEqualTo(LeaseState.HELD);
    assertThat(granted.fencingToken()).isGreaterThan(held.fencingToken());
    granted.close();

    // With a timeout: it fails with AcquireTimeoutException and leaves nothing queued.
    try (Lease again = holderMutex.acquire(WAIT)) {
      CompletableFuture<Lease> timed = waiterMutex.acquireAsync(SHORT);
      assertThatThrownBy(() -> get(timed)).isInstanceOf(ExecutionException.class)
          .cause().isInstanceOf(AcquireTimeoutException.class);
      await().untilAsserted(() -> assertThat(waitersView(holderMutex, waiterMutex).waiters()).isEmpty());
      assertThat(again.isValid()).isTrue();
    }
  }

  @Test
  public void cancelledAsyncWaiter_leavesNothingBehind() throws Exception {
    String name = name("cancel");
    Mutex holderMutex = mutex(client(), name);
    Mutex waiterMutex = mutex(client(), name);
    Lease held = holderMutex.acquire(WAIT);
    CompletableFuture<Lease> waiting = waiterMutex.acquireAsync();
    await().untilAsserted(() -> assertThat(waitersView(holderMutex, waiterMutex).waiters()).hasSize(1));

    assertThat(waiting.cancel(true)).isTrue();
    assertThatThrownBy(waiting::join).isInstanceOf(CancellationException.class);
    await().untilAsserted(() -> assertThat(waitersView(holderMutex, waiterMutex).waiters()).as("waiters after a cancel")
        .isEmpty());

    held.close();
    await().untilAsserted(() -> assertThat(holderMutex.holder()).as("holder after the release").isEmpty());
    Mutex third = mutex(client(), name);
    eventually("the lock free: the cancelled waiter did not get it", () -> third.tryAcquire(Duration.ZERO)).close();
    assertThat(waiting.isCancelled()).isTrue();
  }

  @Test
  public void lease_releasedFromAnotherThread_freesTheLock() throws Exception {
    String name = name("other-thread");
    Mutex mutex = mutex(client(), name);
    Mutex other = mutex(client(), name);
    Lease lease = mutex.acquire(WAIT);
    get(onThread(() -> {
      lease.close();
      return null;
    }));
    assertThat(lease.state()).isEqualTo(LeaseState.RELEASED);
    assertThat(lease.isValid()).isFalse();
    try (Lease next = other.acquire(WAIT)) {
      assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
    }
  }

  /** {@link Promise#WAITER_SHOWS_ITS_TOKEN} for the waiter's token. */
  @Test
  public void holderAndWaiters_nameHostPidThreadAndToken() throws Exception {
    String name = name("owners");
    Mutex holderMutex = mutex(client(), name);
    Mutex waiterMutex = mutex(client(), name);
    long pid = ProcessHandle.current().pid();

    CompletableFuture<Lease> holding = onNamedThread("contract-holder", () -> holderMutex.acquire(WAIT));
    Lease held = get(holding);
    CompletableFuture<Lease> waiting = onNamedThread("contract-waiter", () -> waiterMutex.acquire(WAIT));
    await().untilAsserted(() -> assertThat(waitersView(holderMutex, waiterMutex).waiters()).hasSize(1));

    LockOwner holder = holderMutex.holder().orElseThrow(() -> new AssertionError("no holder read"));
    assertThat(holder.host()).as("holder's host").isNotBlank();
    assertThat(holder.pid()).as("holder's pid").isEqualTo(pid);
    assertThat(holder.thread()).as("holder's thread").isEqualTo("contract-holder");
    assertThat(holder.fencingToken()).as("holder's token").isEqualTo(held.fencingToken());

    LockOwner waiter = waiterMutex.waiters().get(0);
    assertThat(waiter.host()).as("waiter's host").isEqualTo(holder.host());
    assertThat(waiter.pid()).as("waiter's pid").isEqualTo(pid);
    assertThat(waiter.thread()).as("waiter's thread").isEqualTo("contract-waiter");

    held.close();
    Lease granted = get(waiting);
    if (promises(Promise.WAITER_SHOWS_ITS_TOKEN)) {
      assertThat(waiter.fencingToken()).as("the token a waiter is shown with is the one it is granted")
          .isEqualTo(granted.fencingToken());
    } else {
      assertThat(waiter.fencingToken()).as("a waiter's token, declared unknown until granted").isZero();
      assertThat(granted.fencingToken()).isGreaterThan(held.fencingToken());
    }
    granted.close();
  }

  @Test
  public void close_isIdempotent_forLeasesAndClients() throws Exception {
    Coordinator client = client();
    Lease lease = mutex(client, name("idempotent")).acquire(WAIT);
    lease.close();
    assertThatCode(lease::close).doesNotThrowAnyException();
    assertThat(lease.state()).isEqualTo(LeaseState.RELEASED);
    client.close();
    assertThatCode(client::close).doesNotThrowAnyException();
  }

  @Test
  public void closedClient_refusesWithClientClosedException_andItsLeasesAreFreed() throws Exception {
    String name = name("closed");
    Coordinator client = client();
    Mutex before = mutex(client, name);
    Lease lease = before.acquire(WAIT);
    List<LeaseState> heard = new CopyOnWriteArrayList<>();
    lease.addListener((l, state) -> heard.add(state));
    client.close();

    assertThat(lease.isValid()).as("a closed client's lease").isFalse();
    assertThatThrownBy(() -> mutex(client, name("after"))).isInstanceOf(ClientClosedException.class);
    assertThatThrownBy(() -> before.acquire(WAIT)).isInstanceOf(ClientClosedException.class);
    assertThatThrownBy(() -> before.tryAcquire(Duration.ZERO)).isInstanceOf(ClientClosedException.class);
    CompletableFuture<Lease> async;
    try {
      async = before.acquireAsync();
    } catch (ClientClosedException refusedAtOnce) {
      async = CompletableFuture.failedFuture(refusedAtOnce);
    }
    CompletableFuture<Lease> refused = async;
    assertThatThrownBy(() -> get(refused)).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(ClientClosedException.class);

    try (Lease next = mutex(client(), name).acquire(WAIT)) {
      assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
    }
  }

  @Test
  public void interruptedWaiter_failsWithBatonInterruptedException_andIsWithdrawn() throws Exception {
    String name = name("interrupt");
    Mutex holderMutex = mutex(client(), name);
    Mutex waiterMutex = mutex(client(), name);
    Lease held = holderMutex.acquire(WAIT);
    java.util.concurrent.atomic.AtomicReference<Thread> waiterThread = new java.util.concurrent.atomic.AtomicReference<>();
    CompletableFuture<Boolean> flagAfterwards = new CompletableFuture<>();
    CompletableFuture<Lease> waiting = onNamedThread("contract-interrupted", () -> {
      waiterThread.set(Thread.currentThread());
      try {
        return waiterMutex.acquire();
      } finally {
        flagAfterwards.complete(Thread.currentThread().isInterrupted());
      }
    });
    await().untilAsserted(() -> assertThat(waitersView(holderMutex, waiterMutex).waiters()).hasSize(1));
    waiterThread.get().interrupt();
    assertThatThrownBy(() -> get(waiting)).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(BatonInterruptedException.class);
    assertThat(get(flagAfterwards)).as("the interrupt flag, set again for the caller").isTrue();
    await().untilAsserted(() -> assertThat(waitersView(holderMutex, waiterMutex).waiters())
        .as("waiters after the interrupt").isEmpty());
    held.close();
    eventually("the lock, free: the interrupted waiter did not get it", () -> holderMutex.tryAcquire(Duration.ZERO)).close();
  }

  @Test
  public void clientClosedWhileAThreadWaits_failsTheWaitWithClientClosedException_andWithdrawsIt() throws Exception {
    String name = name("closed-while-waiting");
    Mutex holderMutex = mutex(client(), name);
    Coordinator waiterClient = client();
    Mutex waiterMutex = mutex(waiterClient, name);
    Lease held = holderMutex.acquire(WAIT);
    CompletableFuture<Lease> blocking = onNamedThread("contract-waiter", () -> waiterMutex.acquire(WAIT));
    await().untilAsserted(() -> assertThat(waitersView(holderMutex, waiterMutex).waiters()).hasSize(1));
    CompletableFuture<Lease> async = waiterMutex.acquireAsync();
    await().untilAsserted(() -> assertThat(waitersView(holderMutex, waiterMutex).waiters()).hasSize(entriesFor(2)));

    waiterClient.close();
    assertThatThrownBy(() -> get(blocking)).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(ClientClosedException.class);
    assertThatThrownBy(() -> get(async)).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(ClientClosedException.class);
    await().untilAsserted(() -> assertThat(waitersView(holderMutex, waiterMutex).waiters())
        .as("waiters of the closed client").isEmpty());
    assertThat(held.isValid()).isTrue();
    held.close();
  }

  @Test
  public void waiter_keepsItsPlaceAcrossABriefLinkLoss_andIsGranted() throws Exception {
    String name = name("waiter-link");
    Mutex holderMutex = mutex(client(), name);
    Coordinator waiterClient = patientClient();
    Lease held = holderMutex.acquire(WAIT);
    Mutex waiterMutex = mutex(waiterClient, name);
    CompletableFuture<Lease> waiting = waiterMutex.acquireAsync();
    await().untilAsserted(() -> assertThat(waitersView(holderMutex, waiterMutex).waiters()).hasSize(1));

    backend().cutLink(waiterClient);
    await().untilAsserted(() -> assertThat(waiterClient.connectionState().isConnected()).isFalse());
    backend().restoreLink(waiterClient);
    await().untilAsserted(() -> assertThat(waiterClient.connectionState().isConnected()).isTrue());
    assertThat(waitersView(holderMutex, waiterMutex).waiters()).as("the waiter's place after the link came back")
        .hasSize(1);
    assertThat(waiting).isNotDone();

    held.close();
    Lease granted = get(waiting);
    assertThat(granted.isValid()).isTrue();
    assertThat(granted.fencingToken()).isGreaterThan(held.fencingToken());
    granted.close();
  }

  /** {@link Promise#WAITERS_SEEN_BY_EVERY_CLIENT}. */
  @Test
  public void waitersOfAnotherClient_areListedByEveryClient_wherePromised_elseByTheirOwnOnly() throws Exception {
    String name = name("seen-by");
    Mutex holderMutex = mutex(client(), name);
    Mutex waiterMutex = mutex(client(), name);
    Mutex bystander = mutex(client(), name);
    Lease held = holderMutex.acquire(WAIT);
    CompletableFuture<Lease> waiting = onNamedThread("contract-waiter", () -> waiterMutex.acquire(WAIT));
    await().untilAsserted(() -> assertThat(waiterMutex.waiters()).as("the waiter, on its own client").hasSize(1));
    assertThat(waiterMutex.waiters().get(0).thread()).isEqualTo("contract-waiter");
    if (promises(Promise.WAITERS_SEEN_BY_EVERY_CLIENT)) {
      await().untilAsserted(() -> assertThat(holderMutex.waiters()).as("the holder's client").hasSize(1));
      await().untilAsserted(() -> assertThat(bystander.waiters()).as("a third client").hasSize(1));
      assertThat(holderMutex.waiters().get(0).thread()).isEqualTo("contract-waiter");
    } else {
      assertThat(holderMutex.waiters()).as("the holder's client, declared not to list others' waiters").isEmpty();
      assertThat(bystander.waiters()).as("a third client, declared not to list others' waiters").isEmpty();
    }
    held.close();
    get(waiting).close();
    await().untilAsserted(() -> assertThat(waiterMutex.waiters()).as("once granted").isEmpty());
  }

  /** {@link Promise#FIFO_AMONG_CLIENTS}: waiters of different clients served in queue order. */
  @Test
  public void waitersOfDifferentClients_areServedInQueueOrder_wherePromised() throws Exception {
    String name = name("fifo");
    Mutex holderMutex = mutex(client(), name);
    Lease held = holderMutex.acquire(WAIT);
    List<String> granted = new CopyOnWriteArrayList<>();
    List<CompletableFuture<Lease>> waiting = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      String who = "waiter" + i;
      Mutex waiterMutex = mutex(client(), name);
      CompletableFuture<Lease> future = waiterMutex.acquireAsync();
      waiting.add(future.thenApply(lease -> {
        granted.add(who);
        lease.close();
        return lease;
      }));
      // Every waiter so far, where every client sees them all; else this one, on its own client.
      int queued = promises(Promise.WAITERS_SEEN_BY_EVERY_CLIENT) ? i + 1 : 1;
      await().untilAsserted(() -> assertThat(waitersView(holderMutex, waiterMutex).waiters()).hasSize(queued));
    }
    held.close();
    for (CompletableFuture<Lease> future : waiting) {
      get(future);
    }
    if (promises(Promise.FIFO_AMONG_CLIENTS)) {
      assertThat(granted).containsExactly("waiter0", "waiter1", "waiter2");
    } else {
      assertThat(granted).containsExactlyInAnyOrder("waiter0", "waiter1", "waiter2");
    }
  }
}
