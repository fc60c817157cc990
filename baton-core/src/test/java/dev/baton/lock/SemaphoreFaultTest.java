package dev.baton.lock;

import dev.baton.Baton;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The counting semaphore under the faults of issue 3: a connection cut past the session (a lease
 * of one permit beside another holder's, and a lease of three permits at once) and a brief one
 * while holding, a waiter cut off while a permit is given back, and session expiry while holding
 * and while queued on the {@code locks} mutex. ({@link SemaphoreTest} already covers expiry while
 * waiting for the count and a create whose reply is lost.) No more valid leases than permits at
 * any instant; nothing left under {@code locks/} or {@code leases/} once the clients close.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SemaphoreFaultTest extends LockFaultTestSupport {

  private static Taker permit(String path, int permits, String name) {
    return Taker.exclusive(name, client -> client.semaphore(path, permits).acquireAsync());
  }

  /** Waits with the {@code locks} mutex and a lease node for the count to allow it. */
  private static Taker countingWaiter(String path, int permits, String name) {
    return permit(path, permits, name).queuedNodes(2);
  }

  /** {@code count} permits in one lease, taken on a thread of the test (there is no async form). */
  private Taker severalPermits(String path, int permits, int count, String name) {
    ExecutorService threads = pool(2);
    return Taker.exclusive(name, client -> CompletableFuture.supplyAsync(
        () -> client.semaphore(path, permits).acquire(count, WAIT), threads)).permits(count);
  }

  @Test
  void cutPastTheSession_whileHoldingOneOfTwoPermits_holderToldLostBeforeTheWaiterTakesIt() throws Exception {
    String path = "/semaphore-fault/cut-holding-one";
    holderCutOffPastItsSession(LockUnderTest.semaphore(path, 2), Fault.CUT, permit(path, 2, "holder"),
        countingWaiter(path, 2, "waiter"), permit(path, 2, "bystander"));
  }

  /** Every node of a three-permit lease turns LOST with the session; the waiter needs them all. */
  @Test
  void cutPastTheSession_whileHoldingThreePermitsInOneLease_allLostBeforeTheWaiterTakesThem() throws Exception {
    String path = "/semaphore-fault/cut-holding-three";
    holderCutOffPastItsSession(LockUnderTest.semaphore(path, 3), Fault.CUT,
        severalPermits(path, 3, 3, "holder"), severalPermits(path, 3, 3, "waiter").queuedNodes(4));
  }

  @Test
  void briefCut_whileHolding_leaseReturnsToHeld_andNoExtraPermitIsGranted() throws Exception {
    String path = "/semaphore-fault/brief-cut";
    holderCutOffBriefly(LockUnderTest.semaphore(path, 2), severalPermits(path, 2, 1, "holder"),
        countingWaiter(path, 2, "intruder"), permit(path, 2, "bystander"));
  }

  @Test
  void briefCut_whileHoldingTwoPermitsInOneLease_leaseReturnsToHeld() throws Exception {
    String path = "/semaphore-fault/brief-cut-two";
    holderCutOffBriefly(LockUnderTest.semaphore(path, 2), severalPermits(path, 2, 2, "holder"),
        countingWaiter(path, 2, "intruder"));
  }

  /** The waiter holds the {@code locks} mutex and waits for the count; "later" queues on the mutex. */
  @Test
  void cutWhileWaitingForTheCount_keepsItsPlace_andGetsThePermitOnceTheLinkHeals() throws Exception {
    String path = "/semaphore-fault/cut-waiting";
    waiterCutOff(LockUnderTest.semaphore(path, 1), permit(path, 1, "holder"),
        countingWaiter(path, 1, "waiter"), permit(path, 1, "later"));
  }

  @Test
  void expiryWhileHoldingTwoPermits_holderToldBeforeTheWaiterEnters() throws Exception {
    String path = "/semaphore-fault/expiry-holding";
    holderSessionExpires(LockUnderTest.semaphore(path, 2), severalPermits(path, 2, 2, "holder"),
        countingWaiter(path, 2, "waiter"));
  }

  /**
   * The waiter is queued on the {@code locks} mutex (held here by a plain Baton mutex on that
   * path, as a Curator client taking its turn would) when its session expires: it queues there
   * again on the new session and gets its permit once the mutex is free.
   */
  @Test
  void expiryWhileQueuedOnTheLocksMutex_requeuesOnTheNewSessionAndAcquires() throws Exception {
    String path = "/semaphore-fault/expiry-queued";
    Taker locksHolder = Taker.exclusive("locks holder",
        client -> client.mutex(path + "/locks").acquireAsync(Duration.ofSeconds(20)));
    waiterSessionExpires(LockUnderTest.semaphore(path, 1), locksHolder, permit(path, 1, "waiter"), 1);
  }
}
