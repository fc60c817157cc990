package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.ConnectionException;
import dev.baton.lock.FencedResource;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.Mutex;
import dev.baton.lock.StaleTokenException;
import dev.baton.testkit.FaultProxy;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class RedisFaultTest extends RedisTestSupport {

  @Test
  void unreachableServer_atConnect_failsNamingTheAddress() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    String uri = "redis://127.0.0.1:" + closedPort;
    assertThatThrownBy(() -> RedisBaton.builder().uri(uri).connectTimeout(Duration.ofSeconds(2)).build())
        .isInstanceOf(ConnectionException.class)
        .hasMessageContaining("127.0.0.1:" + closedPort)
        .hasMessageContaining("2000 ms");
  }

  @Test
  void badSettingsAndNames_areRefused_namingTheArgument() {
    assertThatThrownBy(() -> RedisBaton.builder().uri(redis.uri()).leaseTtl(Duration.ofSeconds(1))
        .renewEvery(Duration.ofMillis(600)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("leaseTtl (1000 ms)").hasMessageContaining("renewEvery (600 ms)");
    assertThatThrownBy(() -> RedisBaton.builder().leaseTtl(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTtl must be positive");
    assertThatThrownBy(() -> RedisBaton.builder().leaseTtl(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTtl");
    assertThatThrownBy(() -> RedisBaton.connect("http://[oops"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("http://[oops");
    assertThatThrownBy(() -> RedisBaton.builder().build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("uri is required");

    RedisBaton baton = client();
    assertThatThrownBy(() -> baton.mutex("")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lock name must not be empty");
    assertThatThrownBy(() -> baton.mutex("n".repeat(2000))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("2000 bytes").hasMessageContaining("1024");
    assertThatThrownBy(() -> baton.mutex("ok").acquire(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout must not be negative");
    assertThatThrownBy(() -> new RedisMutexOptions(RedisLockLayout.PLAIN, -1, Duration.ofSeconds(1), 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("replicaAcks");
  }

  @Test
  void aKeyOfAnotherKind_underTheLocksName_isReportedAsSuch() {
    raw().hset("mixed", "field", "1");
    Mutex mutex = client().mutex("mixed");
    assertThatThrownBy(() -> mutex.acquire(Duration.ofSeconds(1)))
        .hasMessageContaining("WRONGTYPE").hasMessageContaining("RedisLockLayout");
  }

  @Test
  void aKeyOfAnotherKind_underTheFencingCountersName_isReportedAndKept() {
    raw().hset("baton_lock_token:{counted}", "field", "1");
    Mutex mutex = client().mutex("counted");
    assertThatThrownBy(() -> mutex.acquire(Duration.ofSeconds(1))).hasMessageContaining("WRONGTYPE")
        .hasMessageContaining("fencing counter baton_lock_token:{counted} holds a hash")
        .hasMessageNotContaining("RedisLockLayout");
    assertThat(raw().hget("baton_lock_token:{counted}", "field")).isEqualTo("1");
    assertThat(raw().exists("counted")).isZero();
  }

  @Test
  void aFencingCounterHoldingANonNumber_isRefusedNamingIt_andKept() {
    raw().set("baton_lock_token:{nan}", "not-a-token");
    Mutex mutex = client().mutex("nan");
    assertThatThrownBy(() -> mutex.acquire(Duration.ofSeconds(1)))
        .hasMessageContaining("fencing counter baton_lock_token:{nan} holds \"not-a-token\", not a number");
    assertThat(raw().get("baton_lock_token:{nan}")).isEqualTo("not-a-token"); // not read as 0 and overwritten
    assertThat(raw().exists("nan")).isZero();
    assertThatThrownBy(() -> mutex.tryAcquire(Duration.ZERO)).hasMessageContaining("baton_lock_token:{nan}");
    assertThat(raw().get("baton_lock_token:{nan}")).isEqualTo("not-a-token");
  }

  @Test
  void aLeaseTtlUnderTheFloor_isRefusedNamingTheFloor() {
    assertThatThrownBy(() -> RedisBaton.builder().leaseTtl(Duration.ofMillis(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("leaseTtl must be at least 10 ms, was 1 ms");
    assertThatThrownBy(() -> RedisBaton.builder().leaseTtl(Duration.ofNanos(3)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 10 ms");
    assertThatThrownBy(() -> RedisBaton.builder().leaseTtl(RedisBaton.MIN_LEASE_TTL.minusNanos(1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 10 ms");
    RedisBaton atTheFloor = client(RedisBaton.builder().uri(redis.uri()).leaseTtl(RedisBaton.MIN_LEASE_TTL));
    assertThat(atTheFloor.backend()).isEqualTo("redis");
  }

  @Test
  void redisRestartedWhileHeld_losesTheLease_neverSilentlyHeld_andTokensStillGrow() {
    RedisBaton baton = client();
    Mutex mutex = baton.mutex("restart");
    Lease lease = mutex.acquire();
    List<LeaseState> seen = new CopyOnWriteArrayList<>();
    lease.addListener((l, state) -> seen.add(state));

    redis.restart(); // empty: the lock key and the fencing counter are gone

    await().atMost(Duration.ofSeconds(10)).until(() -> lease.state() == LeaseState.LOST);
    await().until(() -> seen.contains(LeaseState.LOST));
    assertThat(seen.subList(seen.indexOf(LeaseState.LOST), seen.size())).containsOnly(LeaseState.LOST);
    assertThat(lease.isValid()).isFalse();
    assertThat(lease.validUntil()).isBefore(java.time.Instant.now());

    Mutex other = client().mutex("restart");
    try (Lease next = other.acquire(Duration.ofSeconds(10))) {
      assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
    }
    lease.close();
  }

  @Test
  void aClientCutOff_losesItsLease_theLockExpires_andTheNextHolderGetsALargerToken() throws Exception {
    FaultProxy proxy = closeAfter(FaultProxy.start(new InetSocketAddress(redis.host(), redis.port())));
    RedisBaton cutOff = client(RedisBaton.builder().uri("redis://" + proxy.connectString())
        .leaseTtl(Duration.ofMillis(1500)).renewEvery(Duration.ofMillis(300))
        .commandTimeout(Duration.ofMillis(500)).connectTimeout(Duration.ofMillis(500)));
    Lease lease = cutOff.mutex("cut").acquire();
    List<LeaseState> seen = new CopyOnWriteArrayList<>();
    lease.addListener((l, state) -> seen.add(state));

    proxy.cut();

    await().until(() -> seen.contains(LeaseState.SUSPECT));
    await().atMost(Duration.ofSeconds(10)).until(() -> lease.state() == LeaseState.LOST);
    await().until(() -> seen.contains(LeaseState.LOST)); // listeners hear it on the event thread, after the state reads LOST
    assertThat(seen).containsSubsequence(LeaseState.SUSPECT, LeaseState.LOST);
    Lease next = client().mutex("cut").acquire(Duration.ofSeconds(10));
    assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
    next.close();
  }

  @Test
  void leasesOfASecondOrMore_renewedOnTheTimerWheel_outliveTheirTtl_andOneCutOffIsLostInTime() throws Exception {
    // A renewal period of a second or more waits on Lettuce's timer wheel, and a lease's exact
    // expiry check starts with its first renewal: both paths are checked here.
    Duration ttl = Duration.ofSeconds(3);
    FaultProxy proxy = closeAfter(FaultProxy.start(new InetSocketAddress(redis.host(), redis.port())));
    RedisBaton cutOff = client(RedisBaton.builder().uri("redis://" + proxy.connectString()).leaseTtl(ttl)
        .commandTimeout(Duration.ofMillis(500)).connectTimeout(Duration.ofMillis(500)));
    RedisBaton kept = client(RedisBaton.builder().uri(redis.uri()).leaseTtl(ttl));
    Lease held = kept.mutex("wheel-kept").acquire();
    Instant firstValidUntil = held.validUntil();
    Lease lost = cutOff.mutex("wheel-cut").acquire();
    List<LeaseState> seen = new CopyOnWriteArrayList<>();
    lost.addListener((l, state) -> seen.add(state));

    proxy.cut(); // before its first renewal: no expiry check is pending yet

    // Only the listener is polled: reading state() would itself find the time up.
    await().atMost(Duration.ofSeconds(10)).until(() -> seen.contains(LeaseState.LOST));
    assertThat(seen).containsSubsequence(LeaseState.SUSPECT, LeaseState.LOST);
    await().atMost(Duration.ofSeconds(10)).until(() -> Instant.now().isAfter(firstValidUntil.plusMillis(500)));
    assertThat(held.state()).isEqualTo(LeaseState.HELD);
    assertThat(held.validUntil()).isAfter(Instant.now());
    assertThat(raw().pttl("wheel-kept")).isPositive();
    Lease next = client().mutex("wheel-cut").acquire(Duration.ofSeconds(10));
    assertThat(next.fencingToken()).isGreaterThan(lost.fencingToken());
    next.close();
    held.close();
  }

  @Test
  void aStalledHolder_whoseTtlRanOut_cannotReleaseTheNextHolder_andItsWriteIsFencedOff() {
    FaultProxy proxy = closeAfter(FaultProxy.start(new InetSocketAddress(redis.host(), redis.port())));
    RedisBaton stalled = client(RedisBaton.builder().uri("redis://" + proxy.connectString())
        .leaseTtl(Duration.ofMillis(1500)).renewEvery(Duration.ofMillis(300))
        .commandTimeout(Duration.ofMillis(500)).connectTimeout(Duration.ofMillis(500)));
    FencedResource<List<String>> ledger = new FencedResource<>("ledger", new ArrayList<>());

    Lease a = stalled.mutex("ledger").acquire();
    ledger.write(a.fencingToken(), rows -> rows.add("a-1"));
    proxy.cut(); // A stalls: no renewal reaches Redis, its key expires
    Lease b = client().mutex("ledger").acquire(Duration.ofSeconds(10));
    ledger.write(b.fencingToken(), rows -> rows.add("b-1"));

    proxy.restore(); // A wakes up, writes and releases
    assertThatThrownBy(() -> ledger.write(a.fencingToken(), rows -> rows.add("a-2")))
        .isInstanceOf(StaleTokenException.class);
    await().atMost(Duration.ofSeconds(10)).until(() -> a.state() == LeaseState.LOST);
    a.close();

    Mutex observer = client().mutex("ledger");
    await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
        .until(() -> observer.holder().map(h -> h.fencingToken() == b.fencingToken()).orElse(false));
    assertThat(b.state()).isEqualTo(LeaseState.HELD);
    List<String> rows = ledger.read(List::copyOf);
    assertThat(rows).containsExactly("a-1", "b-1");
    b.close();
  }

  @Test
  void aKilledClientsLock_expiresAfterItsTtl_andTheNextHolderGetsALargerToken() throws Exception {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process holder = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
        LockHolderMain.class.getName(), redis.uri(), "killed", "1500").redirectErrorStream(true).start();
    try {
      BufferedReader lines = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
      String line;
      while ((line = lines.readLine()) != null && !line.startsWith("HELD ")) {
        // the child's log lines
      }
      assertThat(line).as("the child process took the lock").isNotNull();
      long childToken = Long.parseLong(line.substring("HELD ".length()).trim());
      Mutex mutex = client().mutex("killed");
      assertThat(mutex.tryAcquire(Duration.ZERO)).isEmpty();

      holder.destroyForcibly(); // SIGKILL: no release, no last renewal
      holder.waitFor(10, TimeUnit.SECONDS);

      try (Lease next = mutex.acquire(Duration.ofSeconds(10))) {
        assertThat(next.fencingToken()).isGreaterThan(childToken);
      }
    } finally {
      holder.destroyForcibly();
    }
  }

  /**
   * Renewals answered more than a period late (a slow link here; a client starved of CPU alike) put
   * the lease in doubt while its grant is still alive in Redis: SUSPECT is told with the rest of the
   * TTL to spare, rather than LOST at the moment another client may be granted. Never LOST here,
   * since every renewal lands, and HELD again once they come back in time.
   */
  @Test
  void renewalsAnsweredLate_tellSuspectWhileTheGrantLives_andHeldOnceOnTimeAgain() throws Exception {
    FaultProxy proxy = closeAfter(FaultProxy.start(new InetSocketAddress(redis.host(), redis.port())));
    RedisBaton slow = slowClient(proxy, Duration.ofSeconds(8), Duration.ofMillis(500), Duration.ofSeconds(6));
    Lease lease = slow.mutex("late-renewals").acquire();
    List<LeaseState> heard = new CopyOnWriteArrayList<>();
    lease.addListener((l, state) -> heard.add(state));

    proxy.delay(Duration.ofMillis(700)); // a round trip of 1.4 s: each renewal lands, a period late

    await().atMost(Duration.ofSeconds(20)).until(() -> heard.contains(LeaseState.SUSPECT));
    assertThat(raw().exists("late-renewals")).as("the grant, alive when its doubt was told").isEqualTo(1);
    proxy.delay(Duration.ZERO);
    await().atMost(Duration.ofSeconds(20)).until(() -> lease.state() == LeaseState.HELD);
    assertThat(heard).as("states heard").doesNotContain(LeaseState.LOST);
    lease.close();
  }

  /**
   * A client behind {@code proxy} whose command timeout is shorter than the delay the tests put on
   * the link, so that a command is applied in Redis while its caller hears a timeout.
   */
  private RedisBaton slowClient(FaultProxy proxy, Duration ttl, Duration renewEvery, Duration commandTimeout) {
    return client(RedisBaton.builder().uri("redis://" + proxy.connectString()).leaseTtl(ttl).renewEvery(renewEvery)
        .commandTimeout(commandTimeout).connectTimeout(Duration.ofMillis(500)));
  }

  /**
   * Acquires {@code mutex} so that Redis grants it but the reply is lost: the link is slower than the
   * command timeout, and cut once the key is there. {@code whileCut} runs before the link comes back,
   * and the retry then finds the grant.
   */
  private static Lease grantedWithItsReplyLost(FaultProxy proxy, Mutex mutex, Runnable whileCut) throws Exception {
    mutex.acquire().close(); // the server knows the scripts: an attempt needs no second round trip
    await().atMost(Duration.ofSeconds(10)).until(() -> raw().exists(mutex.path()) == 0); // the release is sent, not awaited
    proxy.delay(Duration.ofMillis(1500));
    CompletableFuture<Lease> pending = mutex.acquireAsync();
    await().atMost(Duration.ofSeconds(10)).until(() -> raw().exists(mutex.path()) == 1);
    proxy.cut();
    whileCut.run();
    proxy.restore();
    return pending.get(10, TimeUnit.SECONDS);
  }

  @ParameterizedTest
  @EnumSource(RedisLockLayout.class)
  void aGrantWhoseReplyWasLost_foundByTheRetry_neverLetsASecondClientInWhileTheLeaseReadsValid(RedisLockLayout layout)
      throws Exception {
    RedisMutexOptions options = RedisMutexOptions.defaults().withLayout(layout);
    FaultProxy proxy = closeAfter(FaultProxy.start(new InetSocketAddress(redis.host(), redis.port())));
    RedisBaton first = slowClient(proxy, Duration.ofSeconds(3), Duration.ofSeconds(1), Duration.ofSeconds(1));
    // The outage lasted most of the TTL: the grant's key has half a second left when the retry finds it.
    Lease lease = grantedWithItsReplyLost(proxy, first.mutex("retried", options), () -> raw().pexpire("retried", 500));

    Instant firstValidUntil = lease.validUntil();
    List<Boolean> firstValidWhenSecondGranted = new CopyOnWriteArrayList<>();
    CompletableFuture<Lease> second = client().mutex("retried", options).acquireAsync().thenApply(next -> {
      firstValidWhenSecondGranted.add(lease.isValid());
      return next;
    });
    // Long enough for the half second to run out, and for the first lease's renewal to be due.
    await().atMost(Duration.ofSeconds(10))
        .until(() -> second.isDone() || lease.validUntil().isAfter(firstValidUntil.plusMillis(500)));
    lease.close();
    try (Lease next = second.get(10, TimeUnit.SECONDS)) {
      assertThat(firstValidWhenSecondGranted).containsExactly(false);
      assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
    }
  }

  @Test
  void redissonLayout_aGrantWhoseReplyWasLost_isFoundByTheRetry_evenWithItsHolderRecordGone() throws Exception {
    RedisMutexOptions redisson = RedisMutexOptions.defaults().withLayout(RedisLockLayout.REDISSON);
    FaultProxy proxy = closeAfter(FaultProxy.start(new InetSocketAddress(redis.host(), redis.port())));
    RedisBaton first = slowClient(proxy, Duration.ofSeconds(3), Duration.ofSeconds(1), Duration.ofSeconds(1));
    Lease earlier = client().mutex("recordless", redisson).acquire();
    long earlierToken = earlier.fencingToken();
    earlier.close();

    Lease lease = grantedWithItsReplyLost(proxy, first.mutex("recordless", redisson),
        () -> raw().del("baton_lock_holder:{recordless}")); // evicted, or deleted by an operator

    assertThat(lease.state()).isEqualTo(LeaseState.HELD);
    assertThat(lease.fencingToken()).isGreaterThan(earlierToken);
    lease.close();
    try (Lease next = client().mutex("recordless", redisson).acquire(Duration.ofSeconds(10))) {
      assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
    }
  }

  @Test
  void aTryOnceWhoseReplyWasLost_leavesNoHolderBehind() {
    FaultProxy proxy = closeAfter(FaultProxy.start(new InetSocketAddress(redis.host(), redis.port())));
    RedisBaton slow = slowClient(proxy, Duration.ofSeconds(60), Duration.ofSeconds(20), Duration.ofSeconds(1));
    slow.mutex("ghost").acquire().close(); // the server knows the scripts: the try needs no second round trip
    await().atMost(Duration.ofSeconds(10)).until(() -> raw().exists("ghost") == 0); // the release is sent, not awaited
    proxy.delay(Duration.ofMillis(1500));

    assertThatThrownBy(() -> slow.mutex("ghost").tryAcquire(Duration.ZERO)).isInstanceOf(ConnectionException.class)
        .hasMessageContaining("in time");
    // The try arrives after its caller gave up, and is granted: a holder nobody knows of, for a minute.
    await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> raw().exists("ghost") == 1);
    proxy.delay(Duration.ZERO); // the link recovers; bytes on their way keep their delay

    try (Lease next = client().mutex("ghost").acquire(Duration.ofSeconds(10))) {
      assertThat(next.isValid()).isTrue();
    }
  }

  @Test
  void leaseListeners_hearTheChangesInTheOrderTheyHappened_evenWhenTheirExecutorIsSlowToTakeThem() throws Exception {
    FaultProxy proxy = closeAfter(FaultProxy.start(new InetSocketAddress(redis.host(), redis.port())));
    RedisBaton cutOff = client(RedisBaton.builder().uri("redis://" + proxy.connectString())
        .leaseTtl(Duration.ofMillis(1500)).renewEvery(Duration.ofMillis(300))
        .commandTimeout(Duration.ofMillis(500)).connectTimeout(Duration.ofMillis(500)));
    Lease lease = cutOff.mutex("ordered").acquire();
    List<LeaseState> heard = new CopyOnWriteArrayList<>();
    java.util.concurrent.CountDownLatch firstTaken = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch letFirstGo = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.atomic.AtomicBoolean first = new java.util.concurrent.atomic.AtomicBoolean(true);
    // Runs the listener on the thread that hands it over; the first hand-over stalls until the test lets it go.
    java.util.concurrent.Executor stallsFirst = task -> {
      if (first.getAndSet(false)) {
        firstTaken.countDown();
        try {
          letFirstGo.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      task.run();
    };
    lease.addListener((l, state) -> heard.add(state), stallsFirst);

    proxy.cut(); // SUSPECT, whose hand-over stalls
    assertThat(firstTaken.await(10, TimeUnit.SECONDS)).isTrue();
    // Meanwhile the lease's time runs out, found on another thread: LOST.
    await().atMost(Duration.ofSeconds(10)).until(() -> lease.state() == LeaseState.LOST);
    letFirstGo.countDown();

    await().atMost(Duration.ofSeconds(10)).until(() -> heard.contains(LeaseState.LOST));
    assertThat(heard).containsExactly(LeaseState.SUSPECT, LeaseState.LOST);
    lease.close();
  }

  @Test
  void aServerThatMayEvictKeys_isWarnedOfAtConnect() {
    java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
    java.io.PrintStream originalErr = System.err;
    raw().configSet("maxmemory-policy", "allkeys-lru");
    System.setErr(new java.io.PrintStream(log, true, StandardCharsets.UTF_8)); // where slf4j-simple writes
    try {
      client();
      await().atMost(Duration.ofSeconds(10)).until(() -> log.toString(StandardCharsets.UTF_8).contains("maxmemory-policy"));
      assertThat(log.toString(StandardCharsets.UTF_8)).contains("WARN").contains("allkeys-lru").contains(redis.uri());
    } finally {
      System.setErr(originalErr);
      raw().configSet("maxmemory-policy", "noeviction");
    }
  }
}
