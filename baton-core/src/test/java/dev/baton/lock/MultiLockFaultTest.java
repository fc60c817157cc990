package dev.baton.lock;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The multi-lock under the faults of issue 3: a connection cut past the session and a brief one
 * while holding both locks, a multi-lock that holds the first lock and waits for the second cut
 * off while the second is released, and session expiry while holding and while waiting. The
 * multi-lease must be told as its parts are, and never be handed out with a part already lost.
 * No node is left under either path once the clients close.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MultiLockFaultTest extends LockFaultTestSupport {

  /** Both locks; queued, it waits on the first one (in path order) with one node. */
  private static Taker multi(String a, String b, String name) {
    return Taker.exclusive(name, client -> client.multiLock(client.mutex(b), client.mutex(a)).acquireAsync(WAIT))
        .heldNodes(2);
  }

  private static Taker mutex(String path, String name) {
    return Taker.exclusive(name, client -> client.mutex(path).acquireAsync());
  }

  @Test
  void cutPastTheSession_whileHoldingBoth_toldLostBeforeAnotherMultiLockEnters() throws Exception {
    String a = "/multi-fault/cut-holding/a";
    String b = "/multi-fault/cut-holding/b";
    holderCutOffPastItsSession(LockUnderTest.exclusive(a, b), Fault.CUT, multi(a, b, "holder"), multi(a, b, "waiter"));
  }

  @Test
  void briefCut_whileHoldingBoth_leaseReturnsToHeld_andTheOtherWaits() throws Exception {
    String a = "/multi-fault/brief-cut/a";
    String b = "/multi-fault/brief-cut/b";
    holderCutOffBriefly(LockUnderTest.exclusive(a, b), multi(a, b, "holder"), multi(a, b, "intruder"));
  }

  /**
   * The multi-lock holds a and waits for b; b's holder releases while the multi-lock is cut off.
   * A client queued on a behind it must not get a first.
   */
  @Test
  void cutWhileHoldingOneAndWaitingForTheOther_keepsBoth_andGetsThemOnceTheLinkHeals() throws Exception {
    String a = "/multi-fault/cut-waiting/a";
    String b = "/multi-fault/cut-waiting/b";
    waiterCutOff(LockUnderTest.exclusive(a, b), mutex(b, "b holder"), multi(a, b, "multi").queuedNodes(2),
        mutex(a, "later on a"));
  }

  @Test
  void expiryWhileHoldingBoth_toldBeforeTheWaiterOnTheSecondEnters() throws Exception {
    String a = "/multi-fault/expiry-holding/a";
    String b = "/multi-fault/expiry-holding/b";
    holderSessionExpires(LockUnderTest.exclusive(a, b), multi(a, b, "holder"), mutex(b, "waiter on b"));
  }

  /**
   * As above with a blocking caller, which cannot stop waiting for b when a is lost: it must
   * still not return a lease with a lost part, but start over once it has b.
   */
  @Test
  void expiryWhileBlockedOnTheSecond_returnsOnlyALeaseWithEveryPartHeld() throws Exception {
    String a = "/multi-fault/expiry-blocked/a";
    String b = "/multi-fault/expiry-blocked/b";
    ExecutorService threads = pool(1);
    Taker blocking = Taker.exclusive("blocking multi", client -> CompletableFuture.supplyAsync(
        () -> client.multiLock(client.mutex(a), client.mutex(b)).acquire(WAIT), threads)).queuedNodes(2).heldNodes(2);
    waiterSessionExpires(LockUnderTest.exclusive(a, b), mutex(b, "b holder"), blocking, 1);
  }

  /**
   * The multi-lock holds a and waits for b when its session expires: a is lost with it. It must
   * end up holding both on the new session, never handing out a lease whose first part is lost.
   */
  @Test
  void expiryWhileHoldingOneAndWaitingForTheOther_requeuesAndGetsBothOnTheNewSession() throws Exception {
    String a = "/multi-fault/expiry-waiting/a";
    String b = "/multi-fault/expiry-waiting/b";
    waiterSessionExpires(LockUnderTest.exclusive(a, b), mutex(b, "b holder"), multi(a, b, "multi").queuedNodes(2), 2);
  }
}
