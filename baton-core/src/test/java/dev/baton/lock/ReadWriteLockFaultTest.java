package dev.baton.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.NodeMissingException;
import dev.baton.testkit.FaultProxy;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
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

  // ---- issue 31, defect 1: a downgrade racing the end of its write lease ----------------------

  /**
   * The write lease is closed by another thread while its holder's downgrade waits out a
   * connection loss; its node goes and a writer of another client is granted. The downgrade must
   * then be refused: a read node at the old place would stand beside that writer.
   */
  @Test
  void downgrade_writeLeaseClosedDuringAConnectionLossPause_refusedAndNoReaderBesideTheNextWriter()
      throws Exception {
    String path = "/rw-fault/downgrade-closed-while-cut";
    FaultProxy proxy = closing(FaultProxy.start(cluster.address(0)));
    ReadWriteLock lock = baton(proxy.connectString(), LONG_SESSION).readWriteLock(path);
    ExecutorService holderThread = pool(1);
    AtomicReference<Thread> holder = new AtomicReference<>();
    Lease write = holderThread.submit(() -> {
      holder.set(Thread.currentThread());
      return lock.writeLock().acquire(WAIT);
    }).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    CompletableFuture<Lease> nextWriter = baton().readWriteLock(path).writeLock().acquireAsync();
    awaitChildren(path, 2);

    proxy.cut();
    await().atMost(WAIT).until(() -> write.state() == LeaseState.SUSPECT);
    Future<Lease> downgrade = holderThread.submit(() -> lock.readLock().acquire(WAIT));
    await().atMost(WAIT).until(() -> isIn(holder.get(), "DowngradeNode")); // past the check of its hold
    write.close();
    proxy.restore();

    assertThatThrownBy(() -> downgrade.get(WAIT.toSeconds(), TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class).cause()
        .isInstanceOf(IllegalStateException.class).hasMessageContaining(path).hasMessageContaining("released");
    Lease next = get(nextWriter);
    await().atMost(WAIT).untilAsserted(() -> assertThat(raw.children(path)).as("nodes beside the next writer")
        .hasSize(1).noneMatch(node -> node.contains("__READ__")));
    assertThat(next.isValid()).isTrue();
    next.close();
    awaitChildren(path, 0);
  }

  /**
   * The write node is deleted from outside while its lease still reads HELD (nobody has told the
   * holder), and the waiting writer of another client is granted. The check of the write node in
   * the downgrade's {@code multi} must refuse the read node.
   */
  @Test
  void downgrade_writeNodeDeletedUnderAHeldLease_refusedByTheEnsemble() throws Exception {
    String path = "/rw-fault/downgrade-node-gone";
    ReadWriteLock lock = baton().readWriteLock(path);
    Lease write = lock.writeLock().acquire(WAIT);
    CompletableFuture<Lease> nextWriter = baton().readWriteLock(path).writeLock().acquireAsync();
    awaitChildren(path, 2);
    String writeNode = raw.children(path).stream().sorted((a, b) -> a.substring(a.length() - 10)
        .compareTo(b.substring(b.length() - 10))).findFirst().orElseThrow();

    raw.zk().delete(path + "/" + writeNode, -1);
    Lease next = get(nextWriter);
    assertThat(write.state()).as("the holder was told nothing").isEqualTo(LeaseState.HELD);

    assertThatThrownBy(() -> lock.readLock().acquire(WAIT))
        .isInstanceOf(NodeMissingException.class).hasMessageContaining(path);
    assertThat(raw.children(path)).as("nodes beside the next writer").hasSize(1)
        .noneMatch(node -> node.contains("__READ__"));
    assertThat(next.isValid()).isTrue();
    write.close();
    next.close();
    awaitChildren(path, 0);
  }

  private static boolean isIn(Thread thread, String simpleClassName) {
    return Arrays.stream(thread.getStackTrace())
        .anyMatch(frame -> frame.getClassName().endsWith("." + simpleClassName));
  }
}
