package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.Mutex;
import dev.baton.lock.MutexOptions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Paths ZooKeeper cannot serve are refused where they enter, by every recipe, before anything is
 * sent: a path whose requests cannot fit the packet limit (the server would drop the connection,
 * and the client would send it again after every reconnect), ZooKeeper's reserved {@code
 * /zookeeper} tree, and control characters. Messages show the path escaped and shortened. A
 * client given a bad path keeps its connection, its session and its other leases.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PathLimitsTest extends ClusterTestSupport {
  /** Over ZooKeeper's default packet limit of 1 MiB (0xfffff bytes) by itself. */
  private static final String OVERSIZED = "/x" + "x".repeat(1_100_000);
  /** Under the limit by itself, but not with the nodes a recipe creates below it. */
  private static final String NEARLY_FULL = "/y" + "y".repeat(0xfffff - 200);

  /** Every recipe's factory, as a user calls it. */
  static Stream<Arguments> recipes() {
    return Stream.of(
        recipe("mutex", (b, p) -> b.mutex(p)),
        recipe("mutex with options", (b, p) -> b.mutex(p, MutexOptions.defaults().withLocalHandOver(4))),
        recipe("read-write lock", (b, p) -> b.readWriteLock(p)),
        recipe("counter", (b, p) -> b.counter(p)),
        recipe("semaphore", (b, p) -> b.semaphore(p, 2)),
        recipe("semaphore mutex", (b, p) -> b.semaphoreMutex(p)),
        recipe("barrier", (b, p) -> b.barrier(p)),
        recipe("double barrier", (b, p) -> b.doubleBarrier(p, 2)),
        recipe("leader latch", (b, p) -> b.leaderLatch(p, "me")),
        recipe("leader selector", (b, p) -> b.leaderSelector(p, "me", lease -> { })),
        recipe("queue", (b, p) -> b.queue(p, Codec.utf8())));
  }

  private interface Factory {
    Object open(Baton baton, String path);
  }

  private static Arguments recipe(String name, Factory factory) {
    return Arguments.of(name, factory);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("recipes")
  void recipe_pathOverThePacketLimit_isRefusedWithAShortMessage(String name, Factory factory) {
    for (String path : List.of(OVERSIZED, NEARLY_FULL)) {
      assertThatThrownBy(() -> factory.open(baton(), path))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("too long")
          .hasMessageContaining("jute.maxbuffer")
          .hasMessageContaining(path.length() + " characters")
          .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(1_000));
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("recipes")
  void recipe_pathInZooKeepersReservedTree_isRefused(String name, Factory factory) {
    for (String path : List.of("/zookeeper", "/zookeeper/quota", "/zookeeper/locks/a")) {
      assertThatThrownBy(() -> factory.open(baton(), path))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'" + path + "'")
          .hasMessageContaining("reserved /zookeeper tree");
    }
    // A name that only starts like it is an ordinary path.
    assertThat(factory.open(baton(), "/zookeeper-locks/" + name.replace(' ', '-'))).isNotNull();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("recipes")
  void recipe_controlCharacters_areEscapedInTheMessage(String name, Factory factory) {
    for (String path : List.of("/a\u0000b", "/a\nb", "/a\rb")) {
      assertThatThrownBy(() -> factory.open(baton(), path))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("path")
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\u0000", "\n", "\r")
              .containsPattern("\\\\u000[0ad]"));
    }
  }

  @Test
  void reservedTree_isJudgedOnTheEnsemble_soANamespaceMakesItAnOrdinaryPath() throws Exception {
    Baton namespaced = closing(Baton.builder().connectString(cluster.connectString()).namespace("/ns-paths").build());
    try (Lease lease = namespaced.mutex("/zookeeper/a").acquire(Duration.ofSeconds(10))) {
      assertThat(raw.exists("/ns-paths/zookeeper/a")).isTrue();
      assertThat(lease.isValid()).isTrue();
    }
    assertThatThrownBy(() -> Baton.builder().connectString(cluster.connectString()).namespace("/zookeeper/ns"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("namespace '/zookeeper/ns'")
        .hasMessageContaining("reserved");
  }

  @Test
  void badPaths_leaveTheClientsConnectionSessionAndOtherLeasesAlone() throws Exception {
    Baton client = baton();
    List<ConnectionState> states = new CopyOnWriteArrayList<>();
    client.addConnectionStateListener(states::add, Runnable::run);
    long session = client.sessionId();
    Mutex mutex = client.mutex("/paths/held");
    try (Lease held = mutex.acquire(Duration.ofSeconds(10))) {
      List<LeaseState> told = new CopyOnWriteArrayList<>();
      held.addListener((l, state) -> told.add(state), Runnable::run);
      Consumer<String> tryAll = path -> recipes().forEach(args -> {
        Factory factory = (Factory) args.get()[1];
        assertThatThrownBy(() -> factory.open(client, path)).isInstanceOf(IllegalArgumentException.class);
      });
      tryAll.accept(OVERSIZED);
      tryAll.accept(NEARLY_FULL);
      tryAll.accept("/zookeeper/x");
      tryAll.accept("/a\u0000b");

      // The client still works: a round trip on the same session, and a second lock.
      try (Lease other = client.mutex("/paths/other").acquire(Duration.ofSeconds(10))) {
        assertThat(other.isValid()).isTrue();
      }
      assertThat(held.state()).isEqualTo(LeaseState.HELD);
      assertThat(told).as("lease states heard").isEmpty();
      assertThat(states).as("connection states heard").isEmpty();
      assertThat(client.connectionState()).isEqualTo(ConnectionState.CONNECTED);
      assertThat(client.sessionId()).isEqualTo(session);
    }
    awaitChildren("/paths/held", 0);
  }

  @Test
  void transaction_overThePacketLimit_isRefusedBeforeItIsSent() throws Exception {
    Baton client = baton();
    List<ConnectionState> states = new CopyOnWriteArrayList<>();
    client.addConnectionStateListener(states::add, Runnable::run);
    byte[] big = new byte[600_000];
    assertThatThrownBy(() -> client.transaction(
        org.apache.zookeeper.Op.create("/paths/tx-a", big, org.apache.zookeeper.ZooDefs.Ids.OPEN_ACL_UNSAFE,
            org.apache.zookeeper.CreateMode.PERSISTENT),
        org.apache.zookeeper.Op.create("/paths/tx-b", big, org.apache.zookeeper.ZooDefs.Ids.OPEN_ACL_UNSAFE,
            org.apache.zookeeper.CreateMode.PERSISTENT)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("jute.maxbuffer").hasMessageContaining("nothing was sent");
    assertThat(raw.exists("/paths/tx-a")).isFalse();
    // One that fits still goes through, on the same connection.
    client.transaction(org.apache.zookeeper.Op.create("/paths-tx-small", new byte[10],
        org.apache.zookeeper.ZooDefs.Ids.OPEN_ACL_UNSAFE, org.apache.zookeeper.CreateMode.PERSISTENT));
    assertThat(raw.exists("/paths-tx-small")).isTrue();
    raw.deleteRecursively("/paths-tx-small");
    assertThat(states).as("connection states heard").isEmpty();
  }
}
