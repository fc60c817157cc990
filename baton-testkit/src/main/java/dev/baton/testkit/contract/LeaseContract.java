package dev.baton.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.Coordinator;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.Mutex;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The contract of a {@link Lease}: fencing tokens that strictly grow from holder to holder, across
 * clients and a server restart; HELD, SUSPECT and LOST as the link comes and goes, with the loss
 * heard before another client is granted; and a validity that never outlasts the server's expiry.
 */
public abstract class LeaseContract extends ContractSupport {

  @Test
  public void fencingToken_strictlyGrows_acrossHoldersAndClients() throws Exception {
    String name = name("tokens");
    List<Mutex> mutexes = List.of(client().mutex(name), client().mutex(name), client().mutex(name));
    List<Long> tokens = new ArrayList<>();
    for (int i = 0; i < 9; i++) {
      try (Lease lease = mutexes.get(i % 3).acquire(WAIT)) {
        tokens.add(lease.fencingToken());
      }
    }
    assertThat(tokens).as("tokens in order of holding").isSorted().doesNotHaveDuplicates();
  }

  @Test
  public void fencingToken_strictlyGrows_acrossAServerRestart() throws Exception {
    String name = name("restart-tokens");
    Coordinator before = client();
    long first;
    try (Lease lease = before.mutex(name).acquire(WAIT)) {
      first = lease.fencingToken();
    }
    backend().restartServer();
    try (Lease lease = client().mutex(name).acquire(WAIT)) {
      assertThat(lease.fencingToken()).as("a new client's token after the restart").isGreaterThan(first);
      first = lease.fencingToken();
    }
    try (Lease lease = before.mutex(name).acquire(WAIT)) {
      assertThat(lease.fencingToken()).as("an old client's token after the restart").isGreaterThan(first);
    }
  }

  /** {@link Promise#LEASE_KEPT_ACROSS_SERVER_RESTART}. */
  @Test
  public void leaseHeldAcrossAServerRestart_isKeptWherePromised_elseLostAndNeverSilentlyHeld() throws Exception {
    String name = name("restart-held");
    Coordinator patient = patientClient();
    Lease lease = patient.mutex(name).acquire(WAIT);
    List<LeaseState> heard = new CopyOnWriteArrayList<>();
    lease.addListener((l, state) -> heard.add(state));
    Mutex other = client().mutex(name);

    backend().restartServer();

    if (promises(Promise.LEASE_KEPT_ACROSS_SERVER_RESTART)) {
      awaitKeptAcrossOutage(patient, name, lease, heard, "the lease after a restart");
      assertThat(other.tryAcquire(Duration.ZERO)).as("another client while the lease is kept").isEmpty();
      long kept = lease.fencingToken();
      lease.close();
      try (Lease next = other.acquire(WAIT)) {
        assertThat(next.fencingToken()).isGreaterThan(kept);
      }
    } else {
      await().untilAsserted(() -> assertThat(heard).as("the lease after a restart").contains(LeaseState.LOST));
      assertThat(heard.subList(heard.indexOf(LeaseState.LOST), heard.size())).containsOnly(LeaseState.LOST);
      assertThat(lease.isValid()).isFalse();
      try (Lease next = other.acquire(WAIT)) {
        assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
      }
      assertThat(lease.state()).as("a lost lease is never held again").isEqualTo(LeaseState.LOST);
      lease.close();
    }
  }

  @Test
  public void linkCut_turnsTheLeaseSuspect_andBackInTime_heldAgain() throws Exception {
    String name = name("suspect");
    Coordinator holder = patientClient();
    Lease lease = holder.mutex(name).acquire(WAIT);
    List<LeaseState> heard = new CopyOnWriteArrayList<>();
    lease.addListener((l, state) -> heard.add(state));

    backend().cutLink(holder);
    await().untilAsserted(() -> assertThat(heard).contains(LeaseState.SUSPECT));
    assertThat(lease.isValid()).isFalse();
    backend().restoreLink(holder);
    await().untilAsserted(() -> assertThat(lease.state()).isEqualTo(LeaseState.HELD));
    await().untilAsserted(() -> assertThat(heard).containsExactly(LeaseState.SUSPECT, LeaseState.HELD));

    assertThat(client().mutex(name).tryAcquire(Duration.ZERO)).as("the lock while held again").isEmpty();
    lease.close();
  }

  @Test
  public void linkCutForGood_theLeaseIsLost_andItsListenersHearItBeforeAnotherClientIsGranted() throws Exception {
    String name = name("lost");
    Coordinator holder = client();
    Mutex holderMutex = holder.mutex(name);
    Lease lease = holderMutex.acquire(WAIT);
    Map<String, Long> when = new ConcurrentHashMap<>();
    List<LeaseState> heard = new CopyOnWriteArrayList<>();
    lease.addListener((l, state) -> {
      heard.add(state);
      when.putIfAbsent("holder " + state, next());
    });
    Mutex waiterMutex = client().mutex(name);
    CompletableFuture<Lease> waiting = waiterMutex.acquireAsync();
    await().untilAsserted(() -> assertThat(waiterMutex.waiters()).hasSize(1));
    CompletableFuture<Lease> granted = waiting.whenComplete((l, e) -> when.putIfAbsent("next granted", next()));

    backend().cutLink(holder);
    Lease next = get(granted);

    assertThat(when).containsKeys("holder SUSPECT", "holder LOST", "next granted");
    assertThat(when.get("holder SUSPECT")).as("SUSPECT heard before the next grant").isLessThan(when.get("next granted"));
    assertThat(when.get("holder LOST")).as("LOST heard before the next grant").isLessThan(when.get("next granted"));
    assertThat(lease.state()).isEqualTo(LeaseState.LOST);
    assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());

    backend().restoreLink(holder);
    // A lost lease stays lost once the link is back, and the new holder keeps the lock.
    await().untilAsserted(() -> assertThat(holder.connectionState().isConnected()).isTrue());
    assertThat(lease.state()).isEqualTo(LeaseState.LOST);
    assertThat(heard.subList(heard.indexOf(LeaseState.LOST), heard.size())).containsOnly(LeaseState.LOST);
    assertThat(next.isValid()).isTrue();
    lease.close();
    assertThat(holder.mutex(name).tryAcquire(Duration.ZERO)).as("the lock, held by the next holder").isEmpty();
    next.close();
  }

  /**
   * The server ends the holder's connections (an operator's kill, a server-side idle timeout) while
   * its record stays: the client reconnects by itself, renews on the new connection, and the lease
   * ends HELD (SUSPECT on the way if a renewal met the dead connection), never LOST, while nobody
   * else gets in. A store whose fixture cannot kill connections has nothing to run here.
   */
  @Test
  public void connectionsKilledByTheServer_whileTheRecordStays_theLeaseIsRenewedAndHeld() throws Exception {
    assumeTrue(backend().canKillConnections(),
        () -> "the " + backend().name() + " fixture cannot have the server kill a client's connections");
    String name = name("killed");
    Coordinator holder = client();
    Lease lease = holder.mutex(name).acquire(WAIT);
    List<LeaseState> heard = new CopyOnWriteArrayList<>();
    lease.addListener((l, state) -> heard.add(state));
    Mutex other = client().mutex(name);

    assertThat(backend().killConnections(holder)).as("connections the server ended").isPositive();
    Instant validAtKill = lease.validUntil();

    // A renewal done after the kill is one that went over a new connection.
    await().untilAsserted(() -> assertThat(lease.validUntil()).as("validity renewed after the kill").isAfter(validAtKill));
    await().untilAsserted(() -> assertThat(lease.state()).isEqualTo(LeaseState.HELD));
    assertThat(heard).as("what the holder heard").doesNotContain(LeaseState.LOST);
    assertThat(other.tryAcquire(Duration.ZERO)).as("another client while the lease is held").isEmpty();
    try (Lease second = holder.mutex(name("killed-after")).acquire(WAIT)) {
      assertThat(second.isValid()).as("a new grant to the reconnected client").isTrue();
    }
    long held = lease.fencingToken();
    lease.close();
    try (Lease next = other.acquire(WAIT)) {
      assertThat(next.fencingToken()).isGreaterThan(held);
    }
  }

  @Test
  public void connectionStateListeners_hearEachChange_beforeTheLeaseListenersHearItsConsequence() throws Exception {
    String name = name("order");
    Coordinator holder = patientClient();
    List<String> heard = new CopyOnWriteArrayList<>();
    holder.addConnectionStateListener(state -> heard.add("connection " + state));
    Lease lease = holder.mutex(name).acquire(WAIT);
    lease.addListener((l, state) -> heard.add("lease " + state));

    backend().cutLink(holder);
    await().untilAsserted(() -> assertThat(heard).contains("lease SUSPECT"));
    backend().restoreLink(holder);
    await().untilAsserted(() -> assertThat(heard).contains("lease HELD"));

    assertThat(heard).containsSubsequence("connection SUSPENDED", "lease SUSPECT", "connection RECONNECTED", "lease HELD");
    assertThat(heard).doesNotContain("lease LOST", "connection LOST");
    lease.close();
  }

  @Test
  public void aUserCallbackThatBlocks_doesNotHoldBackTheLossNotice() throws Exception {
    String name = name("blocked-callback");
    Coordinator holder = client();
    Lease lease = holder.mutex(name).acquire(WAIT);
    Map<String, Long> when = new ConcurrentHashMap<>();
    lease.addListener((l, state) -> when.putIfAbsent("holder " + state, next()));
    // A user's job chained on an async acquire of this client, blocking the thread it runs on. The
    // unrelated lock is held elsewhere first, so that the future completes on the client's thread.
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch running = new java.util.concurrent.CountDownLatch(1);
    String unrelated = name("unrelated");
    Mutex unrelatedElsewhere = client().mutex(unrelated);
    Lease unrelatedHeld = unrelatedElsewhere.acquire(WAIT);
    Thread testThread = Thread.currentThread();
    Mutex unrelatedOfHolder = holder.mutex(unrelated);
    unrelatedOfHolder.acquireAsync().thenAccept(unrelatedLease -> {
      running.countDown();
      if (Thread.currentThread() == testThread) {
        return; // completed at once on the caller's thread: nothing of the client's to block
      }
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    await().untilAsserted(() -> assertThat(waitersView(unrelatedElsewhere, unrelatedOfHolder).waiters()).hasSize(1));
    unrelatedHeld.close();
    try {
      await().until(() -> running.getCount() == 0);
      Mutex waiterMutex = client().mutex(name);
      CompletableFuture<Lease> waiting = waiterMutex.acquireAsync();
      await().untilAsserted(() -> assertThat(waiterMutex.waiters()).hasSize(1));
      java.util.concurrent.atomic.AtomicReference<LeaseState> stateAtGrant = new java.util.concurrent.atomic.AtomicReference<>();
      CompletableFuture<Lease> granted = waiting.whenComplete((l, e) -> {
        when.putIfAbsent("next granted", next());
        stateAtGrant.set(lease.state());
      });

      backend().cutLink(holder);
      Lease next = get(granted);
      assertThat(when).as("what the holder's lease listeners heard by the next grant (its state then: %s)",
          stateAtGrant.get()).containsKeys("holder LOST", "next granted");
      assertThat(when.get("holder LOST")).as("LOST heard before the next grant, while a user callback blocks")
          .isLessThan(when.get("next granted"));
      next.close();
    } finally {
      release.countDown();
    }
  }

  @Test
  public void aGrantWhoseReplyIsLost_neverMakesASecondHolder_norAValidityPastTheServersExpiry() throws Exception {
    String name = name("reply-lost");
    Coordinator holder = patientClient();
    Mutex mutex = holder.mutex(name);
    mutex.acquire(WAIT).close(); // the server knows this client and lock: the acquire is one round trip
    Mutex observer = client().mutex(name);
    await().untilAsserted(() -> assertThat(observer.holder()).isEmpty());

    backend().delayLink(holder, java.time.Duration.ofMillis(1500));
    CompletableFuture<Lease> pending = mutex.acquireAsync();
    await().untilAsserted(() -> assertThat(observer.holder()).as("the grant, applied by the server").isPresent());
    Instant appliedBy = Instant.now();
    backend().cutLink(holder); // the reply, held back on the slow link, is lost
    List<Boolean> firstValidWhenSecondGranted = new CopyOnWriteArrayList<>();
    CompletableFuture<Lease> second = observer.acquireAsync().thenApply(next -> {
      firstValidWhenSecondGranted.add(pending.isDone() && !pending.isCompletedExceptionally() && pending.join().isValid());
      return next;
    });
    backend().restoreLink(holder);

    Lease first = null;
    try {
      first = get(pending);
    } catch (java.util.concurrent.ExecutionException failed) {
      // Withdrawn instead of found: allowed, if nothing is left behind (the second client gets in).
    }
    // A retried request may apply the grant again and so push the server's expiry on (Redis sets
    // the key's expiry from the retry); the latest the server can have set it is before the reply
    // arrived, so a validity past that moment plus the timeout would outlive the server's grant.
    Instant answeredBy = Instant.now();
    if (first != null) {
      assertThat(first.validUntil()).as("validity of a grant whose reply was lost (applied by %s)", appliedBy)
          .isBeforeOrEqualTo(answeredBy.plus(PATIENT));
      if (first.isValid()) {
        assertThat(second).as("a second holder beside a valid first").isNotDone();
      }
      first.close();
    }
    Lease next = get(second);
    assertThat(firstValidWhenSecondGranted).containsExactly(false);
    if (first != null) {
      assertThat(next.fencingToken()).isGreaterThan(first.fencingToken());
    }
    next.close();
  }

  @Test
  public void validUntil_isNeverLaterThanTheServersExpiry() throws Exception {
    String name = name("valid-until");
    Coordinator holder = client();
    Lease lease = holder.mutex(name).acquire(WAIT);
    Instant now = Instant.now();
    assertThat(lease.validUntil()).as("validity of a held lease")
        .isAfter(now).isBeforeOrEqualTo(now.plus(backend().leaseTimeout()));

    Mutex waiterMutex = client().mutex(name);
    CompletableFuture<Lease> waiting = waiterMutex.acquireAsync();
    await().untilAsserted(() -> assertThat(waiterMutex.waiters()).hasSize(1));
    CompletableFuture<Instant> grantedAt = waiting.thenApply(l -> Instant.now());

    Instant cutAt = Instant.now();
    backend().cutLink(holder);
    // The server hears nothing from the holder after the cut, so it may end the lease from
    // cutAt + the lease timeout on; the lease must not claim longer.
    await().untilAsserted(() -> assertThat(lease.isValid()).isFalse());
    Instant frozen = lease.validUntil();
    assertThat(frozen).as("validUntil once the link is cut").isBeforeOrEqualTo(cutAt.plus(backend().leaseTimeout()));
    Instant granted = get(grantedAt);
    assertThat(frozen).as("validUntil of the old lease against the moment the next client was granted")
        .isBeforeOrEqualTo(granted);
    assertThat(lease.validUntil()).as("validUntil of a lost lease").isBeforeOrEqualTo(Instant.now());
    get(waiting).close();

    Lease released = client().mutex(name).acquire(WAIT);
    released.close();
    assertThat(released.validUntil()).as("validUntil of a released lease").isBeforeOrEqualTo(Instant.now());
  }

}
