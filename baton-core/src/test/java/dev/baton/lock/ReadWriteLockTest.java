package dev.baton.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import dev.baton.ConnectionState;
import dev.baton.testkit.FaultProxy;
import dev.baton.testkit.MutualExclusionChecker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The read-write lock: its rules as pure functions, then against a real server — shared and
 * exclusive holds under contention, queue order, reentrancy, downgrade, the refused upgrade,
 * timeouts, and session expiry while holding and while waiting. Every test that touches the
 * server ends by checking that no node is left under its path.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReadWriteLockTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(20);

  // ---- contention -----------------------------------------------------------------------------

  @Test
  void acquire_threeClientsMixingReadersAndWriters_readersShareWritersExcludeAndNoOrphans() throws Exception {
    String path = "/rw/contention";
    int clients = 3;
    int readersPerClient = 3;
    int writersPerClient = 1;
    int cycles = 25;
    MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
    CountDownLatch allReadersIn = new CountDownLatch(clients * readersPerClient);
    CountDownLatch mixedStart = new CountDownLatch(1);
    int[] plainCounter = new int[1]; // written by writers only, without Java synchronisation
    ExecutorService pool = pool(clients * (readersPerClient + writersPerClient));
    List<Future<?>> running = new ArrayList<>();

    for (int c = 0; c < clients; c++) {
      ReadWriteLock lock = baton().readWriteLock(path); // one object shared by the client's threads
      for (int t = 0; t < readersPerClient; t++) {
        String who = "client-" + c + "/reader-" + t;
        running.add(pool.submit(() -> {
          // First every reader holds at once: proof that readers share, before writers start.
          try (Lease lease = lock.readLock().acquire(WAIT)) {
            MutualExclusionChecker.Section section = checker.enterShared(who, lease.fencingToken());
            allReadersIn.countDown();
            assertThat(allReadersIn.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("all readers inside").isTrue();
            section.exit();
          }
          mixedStart.await();
          for (int i = 0; i < cycles; i++) {
            try (Lease lease = lock.readLock().acquire(WAIT)) {
              MutualExclusionChecker.Section section = checker.enterShared(who, lease.fencingToken());
              int seen = plainCounter[0];
              Thread.yield();
              assertThat(plainCounter[0]).as("no writer inside while reading").isEqualTo(seen);
              section.exit();
            }
          }
          return null;
        }));
      }
      for (int t = 0; t < writersPerClient; t++) {
        String who = "client-" + c + "/writer-" + t;
        running.add(pool.submit(() -> {
          mixedStart.await();
          for (int i = 0; i < cycles; i++) {
            try (Lease lease = lock.writeLock().acquire(WAIT)) {
              assertThat(lock.writeLock().isHeldByCurrentThread()).isTrue();
              MutualExclusionChecker.Section section = checker.enter(who, lease.fencingToken());
              int seen = plainCounter[0];
              Thread.yield();
              plainCounter[0] = seen + 1;
              section.exit();
            }
          }
          return null;
        }));
      }
    }
    assertThat(allReadersIn.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    mixedStart.countDown();
    for (Future<?> f : running) {
      f.get(45, TimeUnit.SECONDS);
    }

    checker.assertNoViolations();
    assertThat(checker.sectionCount())
        .isEqualTo(clients * (readersPerClient * (cycles + 1) + writersPerClient * cycles));
    assertThat(plainCounter[0]).isEqualTo(clients * writersPerClient * cycles);
    awaitChildren(path, 0);
  }

  // ---- order ----------------------------------------------------------------------------------

  @Test
  void readLock_whileAWriterWaits_laterReaderWaitsBehindTheWriter() throws Exception {
    String path = "/rw/writer-first";
    ReadWriteLock first = baton().readWriteLock(path);
    ReadWriteLock writerClient = baton().readWriteLock(path);
    ReadWriteLock laterReader = baton().readWriteLock(path);

    Lease reading = first.readLock().acquire(WAIT);
    CompletableFuture<Lease> writer = writerClient.writeLock().acquireAsync();
    awaitChildren(path, 2);
    assertThat(laterReader.readLock().tryAcquire(Duration.ofMillis(200))).as("reader behind a waiting writer").isEmpty();
    CompletableFuture<Lease> reader = laterReader.readLock().acquireAsync();
    awaitChildren(path, 3);
    assertThat(first.holders()).extracting(LockOwner::fencingToken).containsExactly(reading.fencingToken());
    assertThat(first.waiters()).hasSize(2);
    assertThat(first.writeLock().waiters()).hasSize(1);
    assertThat(first.readLock().waiters()).hasSize(1);

    reading.close();
    Lease writing = writer.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(first.writeLock().holder().orElseThrow().fencingToken()).isEqualTo(writing.fencingToken());
    assertThat(first.readLock().holder()).isEmpty();
    assertThat(reader).as("the later reader while the writer holds").isNotDone();
    writing.close();
    Lease read = reader.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(read.fencingToken()).isGreaterThan(writing.fencingToken()).isGreaterThan(reading.fencingToken());
    read.close();
    awaitChildren(path, 0);
  }

  // ---- reentrancy, downgrade, upgrade ---------------------------------------------------------

  @Test
  void acquire_readAndWriteReentrantly_oneNodeEachReleasedOnlyWithTheLastLease() throws Exception {
    String path = "/rw/reentrant";
    ReadWriteLock lock = baton().readWriteLock(path);
    ReadWriteLock other = baton().readWriteLock(path);

    Lease read1 = lock.readLock().acquire(WAIT);
    Lease read2 = lock.readLock().tryAcquire(Duration.ZERO).orElseThrow();
    assertThat(read2.fencingToken()).isEqualTo(read1.fencingToken());
    assertThat(raw.children(path)).hasSize(1);
    read1.close();
    assertThat(lock.readLock().isHeldByCurrentThread()).isTrue();
    assertThat(other.writeLock().tryAcquire(Duration.ZERO)).as("writer while one read level is left").isEmpty();
    read2.close();
    assertThat(lock.readLock().isHeldByCurrentThread()).isFalse();
    awaitChildren(path, 0);

    Lease write1 = lock.writeLock().acquire(WAIT);
    Lease write2 = lock.writeLock().acquire(WAIT);
    assertThat(write2.fencingToken()).isEqualTo(write1.fencingToken()).isGreaterThan(read1.fencingToken());
    assertThat(raw.children(path)).hasSize(1);
    write2.close();
    assertThat(other.readLock().tryAcquire(Duration.ZERO)).as("reader while one write level is left").isEmpty();
    awaitChildren(path, 1);
    write1.close();
    awaitChildren(path, 0);
    try (Lease theirs = other.writeLock().acquire(WAIT)) {
      assertThat(theirs.fencingToken()).isGreaterThan(write1.fencingToken());
    }
    awaitChildren(path, 0);
  }

  @Test
  void readLock_whileHoldingWriteLock_grantedAtOnceAndReadersBehindJoinOnceWriteIsReleased() throws Exception {
    String path = "/rw/downgrade";
    ReadWriteLock lock = baton().readWriteLock(path);
    ReadWriteLock other = baton().readWriteLock(path);

    Lease write = lock.writeLock().acquire(WAIT);
    CompletableFuture<Lease> readerBehind = other.readLock().acquireAsync();
    awaitChildren(path, 2);
    Lease read = lock.readLock().tryAcquire(Duration.ZERO).orElseThrow(); // no waiting: a downgrade
    assertThat(read.fencingToken()).as("the downgraded reader continues the writer").isEqualTo(write.fencingToken());
    assertThat(lock.readLock().isHeldByCurrentThread()).isTrue();
    List<String> nodes = raw.children(path);
    String writeNode = nodes.stream().filter(n -> n.contains("__WRIT__")).findFirst().orElseThrow();
    String writeSequence = writeNode.substring(writeNode.length() - 10);
    assertThat(nodes).as("a read node at the write node's place").hasSize(3)
        .anyMatch(n -> n.contains("__READ__") && n.endsWith(writeSequence));
    assertThat(lock.holders()).hasSize(2);
    assertThat(readerBehind).isNotDone();

    write.close();
    assertThat(lock.writeLock().isHeldByCurrentThread()).isFalse();
    assertThat(read.isValid()).isTrue();
    Lease theirs = readerBehind.get(WAIT.toSeconds(), TimeUnit.SECONDS); // both read now
    assertThat(lock.holders()).hasSize(2);
    assertThat(other.writeLock().tryAcquire(Duration.ofMillis(100))).as("writer while both read").isEmpty();
    theirs.close();
    read.close();
    awaitChildren(path, 0);
  }

  /**
   * CURATOR-276: a writer already waiting when the holder downgrades must stay behind the
   * downgraded read lock. The read node appears below it after its last listing, so the waiter
   * must list again when its watched node (the write node) goes, rather than trust that listing.
   */
  @Test
  void writeLock_queuedBeforeHolderDowngrades_waitsForTheDowngradedReadLock() throws Exception {
    String path = "/rw/downgrade-writer-waiting";
    ReadWriteLock lock = baton().readWriteLock(path);
    ReadWriteLock other = baton().readWriteLock(path);
    MutualExclusionChecker checker = MutualExclusionChecker.exclusive();

    Lease write = lock.writeLock().acquire(WAIT);
    MutualExclusionChecker.Section writing = checker.enter("downgrader", write.fencingToken());
    CompletableFuture<Lease> waitingWriter = other.writeLock().acquireAsync();
    awaitChildren(path, 2);
    Lease read = lock.readLock().acquire(WAIT);
    writing.exit(); // recorded sections lie inside the real ones: the shared one starts here
    MutualExclusionChecker.Section reading = checker.enterShared("downgrader", read.fencingToken());
    write.close();
    awaitChildren(path, 2); // the write node is gone: the read node and the waiting writer remain

    assertThat(waitingWriter).as("the waiting writer while the downgraded reader reads").isNotDone();
    assertThat(other.writeLock().holder()).isEmpty();
    assertThat(other.readLock().holder().orElseThrow().thread()).isEqualTo(Thread.currentThread().getName());
    reading.exit();
    read.close();
    Lease next = waitingWriter.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    checker.enter("writer", next.fencingToken()).exit();
    next.close();
    checker.assertNoViolations();
    awaitChildren(path, 0);
  }

  @Test
  void writeLock_byThreadHoldingOnlyTheReadLock_failsFastWithoutLeavingANode() throws Exception {
    String path = "/rw/upgrade";
    ReadWriteLock lock = baton().readWriteLock(path);

    Lease read = lock.readLock().acquire(WAIT);
    assertThatThrownBy(() -> lock.writeLock().acquire(WAIT))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining(path).hasMessageContaining("upgrad");
    assertThatThrownBy(() -> lock.writeLock().tryAcquire(Duration.ZERO)).isInstanceOf(IllegalStateException.class);
    assertThat(raw.children(path)).hasSize(1);
    read.close();

    // After a downgrade, once the write lock is released, the thread holds only the read lock.
    Lease write = lock.writeLock().acquire(WAIT);
    Lease downgraded = lock.readLock().acquire(WAIT);
    lock.writeLock().acquire(WAIT).close(); // still holds both: reentrant
    write.close();
    assertThatThrownBy(() -> lock.writeLock().acquire()).isInstanceOf(IllegalStateException.class);
    downgraded.close();
    awaitChildren(path, 0);
    lock.writeLock().acquire(WAIT).close(); // free again once every read lease is closed
    awaitChildren(path, 0);
  }

  // ---- timeouts and release -------------------------------------------------------------------

  @Test
  void acquire_timesOutOnEitherHalf_deletesItsNode() throws Exception {
    String path = "/rw/timeouts";
    ReadWriteLock holder = baton().readWriteLock(path);
    ReadWriteLock waiter = baton().readWriteLock(path);

    Lease write = holder.writeLock().acquire(WAIT);
    assertThat(waiter.readLock().tryAcquire(Duration.ofMillis(150))).isEmpty();
    assertThatThrownBy(() -> waiter.writeLock().acquire(Duration.ofMillis(150)))
        .isInstanceOf(AcquireTimeoutException.class).hasMessageContaining(path);
    CompletableFuture<Lease> asyncReader = waiter.readLock().acquireAsync(Duration.ofMillis(150));
    assertThatThrownBy(() -> asyncReader.get(WAIT.toSeconds(), TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(AcquireTimeoutException.class);
    awaitChildren(path, 1);
    write.close();

    Lease read = holder.readLock().acquire(WAIT);
    assertThat(waiter.writeLock().tryAcquire(Duration.ofMillis(150))).isEmpty();
    assertThat(waiter.writeLock().tryAcquire(Duration.ZERO)).isEmpty();
    awaitChildren(path, 1);
    read.close();
    awaitChildren(path, 0);
  }

  @Test
  void close_readLeaseFromAnotherThread_releasesItAndOwnerNoLongerHoldsIt() throws Exception {
    String path = "/rw/close-elsewhere";
    ReadWriteLock lock = baton().readWriteLock(path);
    ReadWriteLock other = baton().readWriteLock(path);
    ExecutorService owner = pool(1);

    Lease read = owner.submit(() -> lock.readLock().acquire(WAIT)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(owner.submit(() -> lock.readLock().isHeldByCurrentThread()).get(10, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<Lease> writer = other.writeLock().acquireAsync();
    awaitChildren(path, 2);

    read.close(); // from the test thread
    Lease writing = writer.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(owner.submit(() -> lock.readLock().isHeldByCurrentThread()).get(10, TimeUnit.SECONDS)).isFalse();
    writing.close();
    // The owner thread may now take the write lock: it no longer holds the read lock.
    owner.submit(() -> lock.writeLock().acquire(WAIT).close()).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    awaitChildren(path, 0);
  }

  // ---- faults ---------------------------------------------------------------------------------

  /**
   * A reader's link goes silent past its 1 s session: it must be told before the waiting writer
   * gets the lock, and the writer's token is larger.
   */
  @Test
  void expiryWhileHoldingReadLock_readerToldBeforeWriterEnters() throws Exception {
    String path = "/rw/expiry-holding-read";
    MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
        Baton readerClient = baton(proxy.connectString(), Duration.ofSeconds(1));
        Baton writerClient = baton()) {
      ReadWriteLock readerLock = readerClient.readWriteLock(path);
      ReadWriteLock writerLock = writerClient.readWriteLock(path);
      Lease read = readerLock.readLock().acquire(WAIT);
      MutualExclusionChecker.Section reading = checker.enterShared("reader", read.fencingToken());
      AtomicLong toldAt = new AtomicLong();
      List<LeaseState> told = new CopyOnWriteArrayList<>();
      read.addListener((lease, state) -> {
        told.add(state);
        toldAt.compareAndSet(0, System.nanoTime());
        reading.lost();
      }, Runnable::run);
      CompletableFuture<Lease> writer = writerLock.writeLock().acquireAsync();
      awaitChildren(path, 2);

      proxy.blackhole();
      Lease write = writer.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      long enteredAt = System.nanoTime();
      checker.enter("writer", write.fencingToken()).exit();

      assertThat(toldAt.get()).isNotZero().isLessThan(enteredAt);
      assertThat(told).contains(LeaseState.SUSPECT, LeaseState.LOST);
      assertThat(write.fencingToken()).isGreaterThan(read.fencingToken());
      checker.assertNoViolations();
      write.close();
      proxy.restore();
      await().atMost(WAIT).until(() -> readerClient.connectionState() == ConnectionState.RECONNECTED);
      assertThat(read.state()).isEqualTo(LeaseState.LOST);
      read.close();
      reading.exit();
    }
    awaitChildren(path, 0);
  }

  /** A writer's session expires while it waits: it queues again on the new session and gets the lock. */
  @Test
  void expiryWhileWaitingForWriteLock_requeuesOnNewSessionAndAcquires() throws Exception {
    String path = "/rw/expiry-waiting-write";
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
        Baton readerClient = baton();
        Baton writerClient = baton(proxy.connectString(), Duration.ofSeconds(1))) {
      ReadWriteLock readerLock = readerClient.readWriteLock(path);
      Lease read = readerLock.readLock().acquire(WAIT);
      long oldSession = writerClient.sessionId();
      CompletableFuture<Lease> writer = writerClient.readWriteLock(path).writeLock().acquireAsync();
      await().atMost(WAIT).until(() -> readerLock.writeLock().waiters().size() == 1);

      proxy.blackhole();
      await().atMost(WAIT).until(() -> readerLock.waiters().isEmpty()); // its session ended on the server
      proxy.restore();
      await().atMost(WAIT).until(() -> writerClient.sessionId() != oldSession
          && readerLock.writeLock().waiters().size() == 1);
      assertThat(readerLock.writeLock().waiters().get(0).sessionId()).isEqualTo(writerClient.sessionId());
      assertThat(writer).isNotDone();

      read.close();
      Lease write = writer.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(write.isValid()).isTrue();
      assertThat(write.fencingToken()).isGreaterThan(read.fencingToken());
      write.close();
    }
    awaitChildren(path, 0);
  }

  @Test
  void readWriteLock_invalidPath_isRefusedNamingTheArgument() {
    Baton baton = baton();
    assertThatThrownBy(() -> baton.readWriteLock("no-slash"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("read-write lock path");
    assertThatThrownBy(() -> baton.readWriteLock("/")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> baton.readWriteLock("/rw/x").readLock().acquire(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(baton.readWriteLock("/rw/x").writeLock().path()).isEqualTo("/rw/x");
  }
}
