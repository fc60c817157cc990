package dev.baton.atomic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.BatonException;
import dev.baton.ClientClosedException;
import dev.baton.ConnectionState;
import dev.baton.HelperZk;
import dev.baton.OutcomeUnknownException;
import dev.baton.testkit.FaultProxy;
import dev.baton.testkit.TestCluster;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The distributed counter against a real server: exact totals under contention from several
 * clients, compare-and-set semantics, the node's life cycle, bad data and bad input, and a
 * write whose reply is lost (applied once, never twice).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CounterTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static TestCluster cluster;
  private static HelperZk raw;
  private static Baton baton;


  @BeforeAll
  static void startCluster() throws Exception {
    // Empty containers are removed within 100 ms instead of a minute, so a test can see the
    // counter's parents go.
    cluster = TestCluster.builder().standalone().emptyContainersCheckedEvery(Duration.ofMillis(100))
        .property("maxSessionTimeout", "30000").start();
    raw = HelperZk.connect(cluster.connectString());
    baton = client(cluster.connectString());
  }

  @AfterAll
  static void stopCluster() {
    if (baton != null) {
      baton.close();
    }
    if (raw != null) {
      raw.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private static Baton client(String connectString) {
    return Baton.builder().connectString(connectString).connectionTimeout(Duration.ofSeconds(10)).build();
  }

  private static String text(String path) throws Exception {
    return new String(raw.data(path), StandardCharsets.UTF_8);
  }

  private static int version(String path) throws Exception {
    return raw.zk().exists(path, false).getVersion();
  }

  private static void createRaw(String path, byte[] data) throws Exception {
    raw.zk().create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
  }

  // ---- the node -------------------------------------------------------------------------------

  @Test
  void get_missingNode_isZeroAndCreatesNothing() throws Exception {
    Counter counter = baton.counter("/counters/never-written/c");

    assertThat(counter.get()).isZero();
    assertThat(raw.exists("/counters/never-written")).isFalse();
  }

  @Test
  void incrementAndGet_missingNode_createsPersistentNodeUnderContainerParents() throws Exception {
    Counter counter = baton.counter("/counters-fresh/a/hits");

    assertThat(counter.incrementAndGet()).isEqualTo(1);

    assertThat(text("/counters-fresh/a/hits")).isEqualTo("1");
    assertThat(raw.zk().exists("/counters-fresh/a/hits", false).getEphemeralOwner()).as("not ephemeral").isZero();
    raw.zk().delete("/counters-fresh/a/hits", -1);
    await("the parents are containers: removed once empty").atMost(WAIT)
        .until(() -> !raw.exists("/counters-fresh"));
  }

  @Test
  void get_nodeWithEmptyData_isZeroAndCountsOnFromThere() throws Exception {
    createRaw("/counters-empty", new byte[0]);
    Counter counter = baton.counter("/counters-empty");

    assertThat(counter.get()).isZero();
    assertThat(counter.incrementAndGet()).isEqualTo(1);
    assertThat(text("/counters-empty")).isEqualTo("1");
  }

  @Test
  void get_valueWrittenByAnotherToolWithWhitespace_isRead() throws Exception {
    createRaw("/counters-zkcli", " -17\n".getBytes(StandardCharsets.US_ASCII));

    assertThat(baton.counter("/counters-zkcli").get()).isEqualTo(-17);
  }

  @Test
  void addAndGet_positiveAndNegativeDeltas_sumAndMayGoBelowZero() {
    Counter counter = baton.counter("/counters/deltas");
    counter.set(10);

    assertThat(counter.addAndGet(-15)).isEqualTo(-5);
    assertThat(counter.decrementAndGet()).isEqualTo(-6);
    assertThat(counter.addAndGet(1_000_000_000_000L)).isEqualTo(999_999_999_994L);
    assertThat(baton.counter("/counters/deltas").get()).isEqualTo(999_999_999_994L);
  }

  @Test
  void set_overwritesAnyValue_andCreatesAMissingNode() throws Exception {
    Counter counter = baton.counter("/counters/set/x");
    counter.set(Long.MIN_VALUE);
    assertThat(text("/counters/set/x")).isEqualTo(Long.toString(Long.MIN_VALUE));

    counter.set(7);
    assertThat(counter.get()).isEqualTo(7);
    assertThat(version("/counters/set/x")).isEqualTo(1);
  }

  @Test
  void addAndGet_overflow_throwsArithmeticNamingThePath_andWritesNothing() throws Exception {
    Counter counter = baton.counter("/counters/overflow");
    counter.set(Long.MAX_VALUE - 1);

    assertThatThrownBy(() -> counter.addAndGet(2))
        .isInstanceOf(ArithmeticException.class)
        .hasMessageContaining("/counters/overflow")
        .hasMessageContaining("overflows");
    assertThat(counter.get()).isEqualTo(Long.MAX_VALUE - 1);
    assertThat(version("/counters/overflow")).isZero();
  }

  @Test
  void counter_namespacedClient_keepsTheNodeUnderTheNamespace() throws Exception {
    try (Baton namespaced = Baton.builder().connectString(cluster.connectString()).namespace("/apps/shop").build()) {
      namespaced.counter("/counters/orders").addAndGet(5);

      assertThat(text("/apps/shop/counters/orders")).isEqualTo("5");
      assertThat(raw.exists("/counters/orders")).isFalse();
    }
  }

  // ---- contention -----------------------------------------------------------------------------

  @Test
  void incrementAndGet_manyThreadsOnSeveralClients_finalValueExactAndEveryResultUnique() throws Exception {
    String path = "/counters/contended";
    int clients = 3;
    int threadsPerClient = 4;
    int increments = 40;
    Set<Long> results = ConcurrentHashMap.newKeySet();
    List<Baton> batons = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(clients * threadsPerClient);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> done = new ArrayList<>();
      for (int c = 0; c < clients; c++) {
        Baton client = client(cluster.connectString());
        batons.add(client);
        for (int t = 0; t < threadsPerClient; t++) {
          Counter counter = client.counter(path);
          done.add(pool.submit(() -> {
            start.await();
            for (int i = 0; i < increments; i++) {
              assertThat(results.add(counter.incrementAndGet())).as("a result seen twice").isTrue();
            }
            return null;
          }));
        }
      }
      start.countDown();
      for (Future<?> future : done) {
        future.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
      batons.forEach(Baton::close);
    }

    long total = (long) clients * threadsPerClient * increments;
    assertThat(baton.counter(path).get()).isEqualTo(total);
    assertThat(results).containsExactlyInAnyOrderElementsOf(
        LongStream.rangeClosed(1, total).boxed().collect(Collectors.toList()));
    assertThat(version(path)).as("one write per increment, none lost, none doubled").isEqualTo((int) total - 1);
  }

  @Test
  void compareAndExchange_buyersOnSeveralClientsTakeOneWhilePositive_neverBelowZero() throws Exception {
    String path = "/counters/stock";
    baton.counter(path).set(60);
    AtomicInteger sold = new AtomicInteger();
    List<Baton> batons = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(6);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int c = 0; c < 2; c++) {
        Baton client = client(cluster.connectString());
        batons.add(client);
        for (int t = 0; t < 3; t++) {
          Counter stock = client.counter(path);
          done.add(pool.submit(() -> {
            for (long left = stock.get(); left > 0; ) {
              long seen = stock.compareAndExchange(left, left - 1);
              if (seen == left) {
                sold.incrementAndGet();
                left = left - 1;
              } else {
                left = seen;
              }
            }
            return null;
          }));
        }
      }
      for (Future<?> future : done) {
        future.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
      batons.forEach(Baton::close);
    }

    assertThat(sold.get()).isEqualTo(60);
    assertThat(baton.counter(path).get()).isZero();
  }

  @Test
  void compareAndSet_manyRacingFromTheSameValue_exactlyOneWins() throws Exception {
    String path = "/counters/race";
    baton.counter(path).set(0);
    try (Baton other = client(cluster.connectString())) {
      ExecutorService pool = Executors.newFixedThreadPool(8);
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Boolean>> outcomes = new ArrayList<>();
      for (int i = 1; i <= 8; i++) {
        Counter counter = (i % 2 == 0 ? baton : other).counter(path);
        long mine = i;
        outcomes.add(pool.submit(() -> {
          start.await();
          return counter.compareAndSet(0, mine);
        }));
      }
      start.countDown();
      List<Long> winners = new ArrayList<>();
      for (int i = 0; i < outcomes.size(); i++) {
        if (outcomes.get(i).get(WAIT.toSeconds(), TimeUnit.SECONDS)) {
          winners.add(i + 1L);
        }
      }
      pool.shutdownNow();

      assertThat(winners).hasSize(1);
      assertThat(baton.counter(path).get()).isEqualTo(winners.get(0));
    }
  }

  // ---- compare-and-set semantics --------------------------------------------------------------

  @Test
  void compareAndSet_matchingValue_appliesAndReturnsTrue() {
    Counter counter = baton.counter("/counters/cas/match");
    counter.set(5);

    assertThat(counter.compareAndSet(5, 6)).isTrue();
    assertThat(counter.get()).isEqualTo(6);
  }

  @Test
  void compareAndSet_otherValue_returnsFalseAndWritesNothing() throws Exception {
    Counter counter = baton.counter("/counters/cas/mismatch");
    counter.set(5);

    assertThat(counter.compareAndSet(4, 100)).isFalse();
    assertThat(counter.compareAndExchange(4, 100)).isEqualTo(5);
    assertThat(counter.get()).isEqualTo(5);
    assertThat(version("/counters/cas/mismatch")).isZero();
  }

  @Test
  void compareAndSet_missingNode_isComparedAsZeroAndCreatesIt() throws Exception {
    Counter counter = baton.counter("/counters/cas/missing");

    assertThat(counter.compareAndSet(1, 2)).isFalse();
    assertThat(raw.exists("/counters/cas/missing")).isFalse();
    assertThat(counter.compareAndSet(0, 2)).isTrue();
    assertThat(text("/counters/cas/missing")).isEqualTo("2");
  }

  @Test
  void compareAndSet_afterAnotherClientChangedIt_decidesOnTheCurrentValue() {
    Counter mine = baton.counter("/counters/cas/stale");
    Counter theirs = baton.counter("/counters/cas/stale");
    mine.set(5);
    assertThat(mine.get()).isEqualTo(5); // this object now remembers version 0

    theirs.set(7);
    assertThat(mine.compareAndExchange(5, 6)).isEqualTo(7);
    assertThat(mine.compareAndSet(7, 8)).isTrue();
    assertThat(theirs.get()).isEqualTo(8);
  }

  /** A version conflict with a write that left the same value: the value is what is compared. */
  @Test
  void compareAndSet_anotherClientRewroteTheSameValue_stillApplies() throws Exception {
    Counter mine = baton.counter("/counters/cas/aba");
    mine.set(5);
    mine.get();
    baton.counter("/counters/cas/aba").set(5); // version 1, same value

    assertThat(mine.compareAndSet(5, 6)).isTrue();
    assertThat(mine.get()).isEqualTo(6);
    assertThat(version("/counters/cas/aba")).isEqualTo(2);
  }

  @Test
  void incrementAndGet_nodeDeletedMeanwhile_startsAgainFromZero() throws Exception {
    Counter counter = baton.counter("/counters/deleted");
    counter.set(41);
    raw.zk().delete("/counters/deleted", -1);

    assertThat(counter.incrementAndGet()).isEqualTo(1);
  }

  // ---- bad data and bad input -----------------------------------------------------------------

  static Stream<Arguments> everyMethod() {
    return Stream.of(
        Arguments.of("get", (Consumer<Counter>) Counter::get),
        Arguments.of("incrementAndGet", (Consumer<Counter>) Counter::incrementAndGet),
        Arguments.of("decrementAndGet", (Consumer<Counter>) Counter::decrementAndGet),
        Arguments.of("addAndGet", (Consumer<Counter>) c -> c.addAndGet(3)),
        Arguments.of("compareAndSet", (Consumer<Counter>) c -> c.compareAndSet(0, 1)),
        Arguments.of("compareAndExchange", (Consumer<Counter>) c -> c.compareAndExchange(0, 1)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("everyMethod")
  void anyMethod_nonNumericData_failsNamingPathAndValue_andLeavesTheNode(String name, Consumer<Counter> call)
      throws Exception {
    String path = "/counters-bad-" + name;
    createRaw(path, "twelve".getBytes(StandardCharsets.UTF_8));

    assertThatThrownBy(() -> call.accept(baton.counter(path)))
        .isInstanceOf(BatonException.class)
        .hasMessageContaining(path)
        .hasMessageContaining("'twelve'")
        .hasMessageContaining("not a decimal long");
    assertThat(text(path)).isEqualTo("twelve");
    assertThat(version(path)).isZero();
  }

  @Test
  void get_binaryData_showsTheBytesAndNamesCuratorsFormat() throws Exception {
    createRaw("/counters-binary", new byte[] {0, 0, 0, 0, 0, 0, 0, 42});

    assertThatThrownBy(() -> baton.counter("/counters-binary").get())
        .isInstanceOf(BatonException.class)
        .hasMessageContaining("/counters-binary")
        .hasMessageContaining("8 bytes 0x000000000000002a")
        .hasMessageContaining("DistributedAtomicLong");
  }

  @Test
  void set_nonNumericData_isOverwritten() throws Exception {
    createRaw("/counters-repair", "oops".getBytes(StandardCharsets.UTF_8));
    Counter counter = baton.counter("/counters-repair");

    counter.set(3);

    assertThat(counter.incrementAndGet()).isEqualTo(4);
  }

  @Test
  void counter_nullPath_throwsNullPointerNamingTheArgument() {
    assertThatThrownBy(() -> baton.counter(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("counter path");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "counters/x", "/counters/", "/a//b", "/a/../b", "/"})
  void counter_invalidPath_throwsIllegalArgumentNamingThePath(String path) throws Exception {
    Set<String> before = raw.tree();

    assertThatThrownBy(() -> baton.counter(path))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("counter path '" + path + "'");
    assertThat(raw.tree()).isSubsetOf(before);
  }

  @Test
  void counter_closedClient_throwsClientClosed() {
    Baton closed = client(cluster.connectString());
    Counter madeBefore = closed.counter("/counters/closed");
    closed.close();

    assertThatThrownBy(() -> closed.counter("/counters/closed")).isInstanceOf(ClientClosedException.class);
    assertThatThrownBy(madeBefore::get).isInstanceOf(ClientClosedException.class);
    assertThatThrownBy(madeBefore::incrementAndGet).isInstanceOf(ClientClosedException.class);
  }

  // ---- connection loss ------------------------------------------------------------------------

  @Test
  void incrementAndGet_sentWhileConnectionIsCut_appliesOnceWhenItReturns() throws Exception {
    String path = "/counters/cut";
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
        Baton behindProxy = Baton.builder().connectString(proxy.connectString())
            .sessionTimeout(Duration.ofSeconds(20)).connectionTimeout(Duration.ofSeconds(10)).build()) {
      Counter counter = behindProxy.counter(path);
      counter.set(10);
      proxy.cut();
      await().atMost(WAIT).until(() -> behindProxy.connectionState() == ConnectionState.SUSPENDED);

      CompletableFuture<Long> pending = CompletableFuture.supplyAsync(counter::incrementAndGet);
      proxy.restore();

      assertThat(pending.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(11);
      assertThat(text(path)).isEqualTo("11");
      assertThat(version(path)).isEqualTo(1);
    }
  }

  /**
   * The write reaches the server but its reply is lost with the connection. Re-running the
   * read-add-write cycle (as Curator's DistributedAtomicLong does) would add twice; the counter
   * instead sees that the node moved on and reports that it cannot tell.
   */
  @Test
  void incrementAndGet_replyLost_isNotAppliedTwiceAndReportsOutcomeUnknown() throws Exception {
    String path = "/counters/reply-lost";
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
        Baton behindProxy = Baton.builder().connectString(proxy.connectString())
            .sessionTimeout(Duration.ofSeconds(20)).connectionTimeout(Duration.ofSeconds(10)).build()) {
      Counter counter = behindProxy.counter(path);
      counter.set(10);
      proxy.delay(Duration.ofMillis(500));

      CompletableFuture<Long> pending = CompletableFuture.supplyAsync(counter::incrementAndGet);
      await().atMost(WAIT).until(() -> text(path).equals("11"));
      proxy.cut(); // the reply is still in the proxy's delay line: it is dropped
      assertThat(pending).isNotDone();
      await().atMost(WAIT).until(() -> behindProxy.connectionState() == ConnectionState.SUSPENDED);
      proxy.restore();

      assertThatThrownBy(() -> pending.get(WAIT.toSeconds(), TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(OutcomeUnknownException.class)
          .hasMessageContaining(path)
          .hasMessageContaining("may or may not have been applied");
      assertThat(counter.get()).isEqualTo(11);
      assertThat(version(path)).isEqualTo(1);
    }
  }
}
