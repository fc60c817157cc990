package dev.baton.lock;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The read-write lock under the faults of issue 3, for each half, holding and waiting: a
 * connection cut past the session and a brief one, a waiter cut off while the lock is released,
 * and session expiry. ({@link ReadWriteLockTest} already covers expiry while holding the read lock
 * and while waiting for the write lock.) Readers are shared sections of the checker, writers
 * exclusive ones; no node is left once the clients close.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReadWriteLockFaultTest extends LockFaultTestSupport {

  private static Taker writer(String path, String name) {
    return Taker.exclusive(name, client -> client.readWriteLock(path).writeLock().acquireAsync());
  }

  private static Taker reader(String path, String name) {
    return Taker.shared(name, client -> client.readWriteLock(path).readLock().acquireAsync());
  }

  @Test
  void cutPastTheSession_whileHoldingWrite_writerToldLostBeforeTheReaderEnters() throws Exception {
    String path = "/rw-fault/cut-holding-write";
    holderCutOffPastItsSession(LockUnderTest.exclusive(path), Fault.CUT,
        writer(path, "writer"), reader(path, "reader"));
  }

  @Test
  void cutPastTheSession_whileHoldingRead_readerToldLostBeforeTheWriterEnters() throws Exception {
    String path = "/rw-fault/cut-holding-read";
    holderCutOffPastItsSession(LockUnderTest.exclusive(path), Fault.CUT,
        reader(path, "reader"), writer(path, "writer"));
  }

  @Test
  void briefCut_whileHoldingWrite_leaseReturnsToHeld_andTheReaderWaits() throws Exception {
    String path = "/rw-fault/brief-cut-write";
    holderCutOffBriefly(LockUnderTest.exclusive(path), writer(path, "writer"), reader(path, "reader"));
  }

  @Test
  void briefCut_whileHoldingRead_leaseReturnsToHeld_andTheWriterWaits() throws Exception {
    String path = "/rw-fault/brief-cut-read";
    holderCutOffBriefly(LockUnderTest.exclusive(path), reader(path, "reader"), writer(path, "writer"));
  }

  /** The reader queued behind the waiting writer stays behind it across the writer's cut. */
  @Test
  void cutWhileWaitingForWrite_keepsItsPlace_andGetsTheLockOnceTheLinkHeals() throws Exception {
    String path = "/rw-fault/cut-waiting-write";
    waiterCutOff(LockUnderTest.exclusive(path), reader(path, "holding reader"),
        writer(path, "waiting writer"), reader(path, "later reader"));
  }

  @Test
  void cutWhileWaitingForRead_keepsItsPlace_andGetsTheLockOnceTheLinkHeals() throws Exception {
    String path = "/rw-fault/cut-waiting-read";
    waiterCutOff(LockUnderTest.exclusive(path), writer(path, "holding writer"),
        reader(path, "waiting reader"), writer(path, "later writer"));
  }

  @Test
  void expiryWhileHoldingWrite_writerToldBeforeTheReaderEnters() throws Exception {
    String path = "/rw-fault/expiry-holding-write";
    holderSessionExpires(LockUnderTest.exclusive(path), writer(path, "writer"), reader(path, "reader"));
  }

  @Test
  void expiryWhileWaitingForRead_requeuesOnTheNewSessionAndAcquires() throws Exception {
    String path = "/rw-fault/expiry-waiting-read";
    waiterSessionExpires(LockUnderTest.exclusive(path), writer(path, "writer"), reader(path, "reader"), 1);
  }
}
