package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.lock.AcquireTimeoutException;
import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Nothing is left behind, as the server itself counts it ({@code wchc}: data watches by session;
 * {@code mntr}'s {@code zk_watch_count}: data and child watches): a closed client leaves no watch
 * and no thread, and a waiter that times out or is cancelled leaves neither its node nor a watch
 * on the node it waited for. A {@code getData} watch on a node that lives on (the holder's) stays
 * on the server until that node changes unless the waiter removes it there; an {@code exists}
 * watch on a node already gone would stay forever. Each test first sees the watch it then expects
 * gone, so none can pass before the waiter has set it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NoLeakTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private Baton holder;
  private Baton waiter;

  @BeforeEach
  void clients() {
    // Every session of an earlier test is closed: the server holds no watch at all.
    awaitWatchCount(0);
    holder = baton();
    waiter = baton();
  }

  // ---- a closed client ------------------------------------------------------------------------

  @Test
  void close_clientWithWaitersOfEveryKind_leavesNoWatchOfItsSessionAndNoThread() throws Exception {
    Lease mutex = holder.mutex("/leak/close/mutex").acquire(WAIT);
    Lease write = holder.readWriteLock("/leak/close/rw").writeLock().acquire(WAIT);
    Lease permit = holder.semaphore("/leak/close/semaphore", 1).acquire(WAIT);
    // After the other clients have started all their threads (the timer starts on first use).
    Set<Thread> before = Set.copyOf(Thread.getAllStackTraces().keySet());
    Baton closing = baton();
    long session = closing.sessionId();
    CompletableFuture<Lease> onMutex = closing.mutex("/leak/close/mutex").acquireAsync();
    CompletableFuture<Lease> onRead = closing.readWriteLock("/leak/close/rw").readLock().acquireAsync();
    CompletableFuture<Lease> onPermit = closing.semaphore("/leak/close/semaphore", 1).acquireAsync();
    awaitDataWatch(session, holderNodeOf("/leak/close/mutex"));
    awaitDataWatch(session, holderNodeOf("/leak/close/rw"));
    // The semaphore waiter counts the leases with a children watch (not listed by wchc).
    awaitWatchCount(3);

    closing.close();

    assertThatThrownBy(onMutex::join).hasCauseInstanceOf(ClientClosedException.class);
    assertThatThrownBy(onRead::join).hasCauseInstanceOf(ClientClosedException.class);
    assertThatThrownBy(onPermit::join).hasCauseInstanceOf(ClientClosedException.class);
    await().atMost(WAIT).untilAsserted(() ->
        assertThat(cluster.watchesBySession(0)).as("data watches by session").doesNotContainKey(session));
    awaitWatchCount(0);
    await().atMost(WAIT).untilAsserted(() -> assertThat(newClientThreads(before))
        .as("threads the closed client started").isEmpty());
    mutex.close();
    write.close();
    permit.close();
    awaitChildren("/leak/close/mutex", 0);
  }

  // ---- a mutex waiter -------------------------------------------------------------------------

  @Test
  void mutex_blockingWaiterTimesOut_leavesNoNodeAndNoWatch() throws Exception {
    String path = "/leak/mutex-timeout";
    try (Lease held = holder.mutex(path).acquire(WAIT)) {
      String holderNode = holderNodeOf(path);
      Future<Optional<Lease>> attempt = pool(1).submit(
          () -> waiter.mutex(path).tryAcquire(Duration.ofSeconds(2)));
      awaitChildren(path, 2);
      awaitDataWatch(waiter.sessionId(), holderNode);

      assertThat(attempt.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEmpty();

      assertWaiterLeftNothing(path, holderNode);
    }
  }

  @Test
  void mutex_asyncWaiterTimesOut_leavesNoNodeAndNoWatch() throws Exception {
    String path = "/leak/mutex-async-timeout";
    try (Lease held = holder.mutex(path).acquire(WAIT)) {
      String holderNode = holderNodeOf(path);
      CompletableFuture<Lease> attempt = waiter.mutex(path).acquireAsync(Duration.ofSeconds(2));
      awaitDataWatch(waiter.sessionId(), holderNode);

      assertThatThrownBy(() -> attempt.get(WAIT.toSeconds(), TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(AcquireTimeoutException.class);

      assertWaiterLeftNothing(path, holderNode);
    }
  }

  @Test
  void mutex_asyncWaiterCancelled_leavesNoNodeAndNoWatch() throws Exception {
    String path = "/leak/mutex-cancel";
    try (Lease held = holder.mutex(path).acquire(WAIT)) {
      String holderNode = holderNodeOf(path);
      CompletableFuture<Lease> attempt = waiter.mutex(path).acquireAsync();
      awaitDataWatch(waiter.sessionId(), holderNode);

      assertThat(attempt.cancel(true)).isTrue();
      assertThatThrownBy(attempt::join).isInstanceOf(CancellationException.class);

      assertWaiterLeftNothing(path, holderNode);
    }
  }

  /** Two waiters of one client watch the same holder; one leaving must not strand the other. */
  @Test
  void mutex_oneOfTwoWaitersOfAClientOnTheSameHolderCancelled_otherStillGetsTheLock() throws Exception {
    String path = "/leak/mutex-two-waiters";
    Lease held = holder.mutex(path).acquire(WAIT);
    String holderNode = holderNodeOf(path);
    Mutex mutex = waiter.mutex(path);
    CompletableFuture<Lease> first = mutex.acquireAsync();
    awaitChildren(path, 2);
    CompletableFuture<Lease> second = mutex.acquireAsync();
    awaitChildren(path, 3);
    awaitDataWatch(waiter.sessionId(), holderNode);

    first.cancel(true);
    awaitChildren(path, 2);
    held.close();

    // The second waiter watched the holder and the first waiter's node; it must still wake up.
    try (Lease lease = second.get(WAIT.toSeconds(), TimeUnit.SECONDS)) {
      assertThat(lease.isValid()).isTrue();
    }
    awaitChildren(path, 0);
    awaitWatchCount(0);
  }

  /**
   * The holder's revocation watch and a waiter of the same client share the holder's node (and,
   * in ZooKeeper's client, its watch registration): the waiter leaving must not silence it.
   */
  @Test
  void mutex_revocableHolder_stillHearsARequest_afterAWaiterOfItsOwnClientGaveUp() throws Exception {
    String path = "/leak/revocable";
    CountDownLatch asked = new CountDownLatch(1);
    Mutex mutex = holder.mutex(path);
    try (Lease held = mutex.acquire(WAIT)) {
      held.makeRevocable(lease -> asked.countDown());
      awaitDataWatch(holder.sessionId(), holderNodeOf(path));
      CompletableFuture<Lease> sameClient = mutex.acquireAsync();
      // Its watch on the holder's node is set once it has seen the queue; one more round trip of
      // its session (answered in order) makes that all but certain.
      await().atMost(WAIT).until(() -> mutex.waiters().size() == 1);
      assertThat(mutex.holder()).isPresent();

      sameClient.cancel(true);
      awaitChildren(path, 1);

      assertThat(waiter.requestRevocation(waiter.mutex(path))).isTrue();
      assertThat(asked.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("revocation heard").isTrue();
    }
  }

  // ---- read-write lock ------------------------------------------------------------------------

  @Test
  void readWriteLock_readerBehindWriterTimesOut_leavesNoNodeAndNoWatch() throws Exception {
    String path = "/leak/rw-reader";
    try (Lease held = holder.readWriteLock(path).writeLock().acquire(WAIT)) {
      String holderNode = holderNodeOf(path);
      CompletableFuture<Lease> attempt = waiter.readWriteLock(path).readLock().acquireAsync(Duration.ofSeconds(2));
      awaitDataWatch(waiter.sessionId(), holderNode);

      assertThatThrownBy(() -> attempt.get(WAIT.toSeconds(), TimeUnit.SECONDS))
          .hasCauseInstanceOf(AcquireTimeoutException.class);

      assertWaiterLeftNothing(path, holderNode);
    }
  }

  @Test
  void readWriteLock_writerBehindReaderCancelled_leavesNoNodeAndNoWatch() throws Exception {
    String path = "/leak/rw-writer";
    try (Lease held = holder.readWriteLock(path).readLock().acquire(WAIT)) {
      String holderNode = holderNodeOf(path);
      CompletableFuture<Lease> attempt = waiter.readWriteLock(path).writeLock().acquireAsync();
      awaitDataWatch(waiter.sessionId(), holderNode);

      attempt.cancel(true);

      assertWaiterLeftNothing(path, holderNode);
    }
  }

  // ---- semaphore and semaphore mutex ----------------------------------------------------------

  @Test
  void semaphore_waiterCountingLeasesTimesOut_leavesNoNodeAndNoWatch() throws Exception {
    String path = "/leak/semaphore";
    try (Lease held = holder.semaphore(path, 1).acquire(WAIT)) {
      CompletableFuture<Lease> attempt = waiter.semaphore(path, 1).acquireAsync(Duration.ofSeconds(2));
      // It holds locks/ and counts leases/ with a children watch.
      awaitWatchCount(1);
      awaitChildren(path + "/leases", 2);

      assertThatThrownBy(() -> attempt.get(WAIT.toSeconds(), TimeUnit.SECONDS))
          .hasCauseInstanceOf(AcquireTimeoutException.class);

      awaitChildren(path + "/leases", 1);
      awaitChildren(path + "/locks", 0);
      awaitWatchCount(0);
    }
  }

  @Test
  void semaphore_waiterQueuedOnItsLockCancelled_leavesNoNodeAndNoWatch() throws Exception {
    String path = "/leak/semaphore-queued";
    Baton counting = baton();
    try (Lease held = holder.semaphore(path, 1).acquire(WAIT)) {
      CompletableFuture<Lease> first = counting.semaphore(path, 1).acquireAsync();
      awaitChildren(path + "/locks", 1);
      String countingNode = path + "/locks/" + raw.children(path + "/locks").get(0);
      CompletableFuture<Lease> queued = waiter.semaphore(path, 1).acquireAsync();
      awaitDataWatch(waiter.sessionId(), countingNode);

      queued.cancel(true);

      awaitChildren(path + "/locks", 1);
      awaitNoDataWatch(waiter.sessionId());
      first.cancel(true);
      awaitChildren(path + "/locks", 0);
      awaitChildren(path + "/leases", 1);
      awaitWatchCount(0);
    }
  }

  @Test
  void semaphoreMutex_waiterTimesOut_leavesNoNodeAndNoWatch() throws Exception {
    String path = "/leak/semaphore-mutex";
    try (Lease held = holder.semaphoreMutex(path).acquire(WAIT)) {
      Future<Optional<Lease>> attempt = pool(1).submit(
          () -> waiter.semaphoreMutex(path).tryAcquire(Duration.ofSeconds(2)));
      awaitWatchCount(1);

      assertThat(attempt.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEmpty();

      awaitChildren(path + "/leases", 1);
      awaitChildren(path + "/locks", 0);
      awaitWatchCount(0);
    }
  }

  // ---- helpers --------------------------------------------------------------------------------

  /** Only the holder's node is left, and the waiter's session watches nothing. */
  private void assertWaiterLeftNothing(String path, String holderNode) throws Exception {
    await().atMost(WAIT).untilAsserted(() ->
        assertThat(raw.children(path)).as("nodes under " + path).containsExactly(nameOf(holderNode)));
    awaitNoDataWatch(waiter.sessionId());
    awaitWatchCount(0);
  }

  private static String nameOf(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  /** The full path of the first node in {@code path}'s queue (the holder's). */
  private static String holderNodeOf(String path) throws Exception {
    String first = raw.children(path).stream()
        .min((a, b) -> a.substring(a.length() - 10).compareTo(b.substring(b.length() - 10)))
        .orElseThrow(() -> new AssertionError("nobody holds " + path));
    return path + "/" + first;
  }

  private static void awaitDataWatch(long session, String path) {
    await().atMost(WAIT).untilAsserted(() -> assertThat(cluster.watchesBySession(0).get(session))
        .as("data watches of session 0x" + Long.toHexString(session)).isNotNull().contains(path));
  }

  private static void awaitNoDataWatch(long session) {
    await().atMost(WAIT).untilAsserted(() -> assertThat(cluster.watchesBySession(0))
        .as("data watches of session 0x" + Long.toHexString(session)).doesNotContainKey(session));
  }

  private static void awaitWatchCount(int count) {
    await().atMost(WAIT).untilAsserted(() -> assertThat(cluster.metrics(0).get("zk_watch_count"))
        .as("watches on the server (%s)", cluster.watchesBySession(0)).isEqualTo(Integer.toString(count)));
  }

  private static Set<Thread> newClientThreads(Set<Thread> before) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .filter(t -> !before.contains(t))
        .filter(t -> t.getName().startsWith("baton-") || t.getName().contains("SendThread")
            || t.getName().contains("EventThread") || t.getName().contains("EventLoopGroup"))
        .collect(Collectors.toSet());
  }
}
