package dev.baton.lock;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The semaphore mutex under the faults of issue 3: a connection cut past the session and a brief
 * one while holding, a waiter cut off while the lock is released, and expiry while waiting.
 * ({@link SemaphoreMutexTest} already covers expiry while holding.) The first waiter keeps two
 * nodes (the {@code locks} mutex and its lease node), the next ones one; nothing is left under
 * {@code locks/} or {@code leases/} once the clients close.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SemaphoreMutexFaultTest extends LockFaultTestSupport {

  private static Taker mutex(String path, String name) {
    return Taker.exclusive(name, client -> client.semaphoreMutex(path).acquireAsync());
  }

  /** Holds the {@code locks} mutex and waits with its lease node for the permit. */
  private static Taker firstWaiter(String path, String name) {
    return mutex(path, name).queuedNodes(2);
  }

  private static LockUnderTest lock(String path) {
    return LockUnderTest.semaphore(path, 1);
  }

  @Test
  void cutPastTheSession_whileHolding_holderToldLostBeforeTheWaiterEnters() throws Exception {
    String path = "/semaphore-mutex-fault/cut-holding";
    holderCutOffPastItsSession(lock(path), Fault.CUT, mutex(path, "holder"), firstWaiter(path, "waiter"));
  }

  @Test
  void briefCut_whileHolding_leaseReturnsToHeld_andTheWaiterWaits() throws Exception {
    String path = "/semaphore-mutex-fault/brief-cut";
    holderCutOffBriefly(lock(path), mutex(path, "holder"), firstWaiter(path, "intruder"));
  }

  @Test
  void cutWhileWaiting_keepsItsPlace_andGetsTheLockOnceTheLinkHeals() throws Exception {
    String path = "/semaphore-mutex-fault/cut-waiting";
    waiterCutOff(lock(path), mutex(path, "holder"), firstWaiter(path, "waiter"), mutex(path, "later"));
  }

  @Test
  void expiryWhileWaiting_requeuesOnTheNewSessionAndAcquires() throws Exception {
    String path = "/semaphore-mutex-fault/expiry-waiting";
    waiterSessionExpires(lock(path), mutex(path, "holder"), firstWaiter(path, "waiter"), 2);
  }
}
