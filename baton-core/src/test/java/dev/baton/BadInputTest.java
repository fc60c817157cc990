package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.Mutex;
import dev.baton.testkit.TestCluster;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every kind of bad input a user can give the client and mutex API: each gets a specific
 * exception whose message names the argument, path or connect string, and nothing is written to
 * the ensemble.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BadInputTest {
  private static TestCluster cluster;
  private static HelperZk raw;
  private static Baton baton;

  private Set<String> treeBefore;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = TestCluster.standalone();
    raw = HelperZk.connect(cluster.connectString());
    baton = client().build();
  }

  @AfterAll
  static void stopCluster() throws Exception {
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

  @BeforeEach
  void snapshotTree() throws Exception {
    treeBefore = raw.tree();
  }

  private static Baton.Builder client() {
    return Baton.builder().connectString(cluster.connectString()).connectionTimeout(Duration.ofSeconds(10));
  }

  /** No node appeared since the test began (containers of earlier tests may have gone). */
  private void assertNothingWritten() throws Exception {
    assertThat(raw.tree()).as("nodes on the server").isSubsetOf(treeBefore);
  }

  /** How a path is shown in an error: control and undefined characters escaped, as {@code \u0000}. */
  private static String printable(String path) {
    StringBuilder out = new StringBuilder();
    for (char c : path.toCharArray()) {
      boolean escape = Character.isISOControl(c) || !Character.isDefined(c);
      out.append(escape ? String.format("\\u%04x", (int) c) : String.valueOf(c));
    }
    return out.toString();
  }

  // ---- mutex paths ----------------------------------------------------------------------------

  static Stream<Arguments> invalidPaths() {
    return Stream.of(
        Arguments.of("empty", ""),
        Arguments.of("relative", "locks/a"),
        Arguments.of("trailing slash", "/a/"),
        Arguments.of("double slash at start", "//a"),
        Arguments.of("double slash inside", "/a//b"),
        Arguments.of("dot segment", "/a/./b"),
        Arguments.of("dot-dot segment", "/a/../b"),
        Arguments.of("dot-dot at end", "/a/.."),
        Arguments.of("NUL", "/a\u0000b"),
        Arguments.of("control char U+0001", "/a\u0001b"),
        Arguments.of("tab", "/a\tb"),
        Arguments.of("DEL", "/a\u007fb"),
        Arguments.of("lone surrogate", "/a\ud800b"),
        Arguments.of("non-character U+FFFF", "/a\uffffb"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidPaths")
  void mutex_invalidPath_throwsIllegalArgumentNamingPath(String kind, String path) throws Exception {
    assertThatThrownBy(() -> baton.mutex(path))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("mutex path")
        .hasMessageContaining("'" + printable(path) + "'");
    assertNothingWritten();
  }

  @Test
  void mutex_nullPath_throwsNullPointerNamingArgument() throws Exception {
    assertThatThrownBy(() -> baton.mutex(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("mutex path");
    assertNothingWritten();
  }

  @Test
  void mutex_rootPath_isRejectedNamingThePath() throws Exception {
    assertThatThrownBy(() -> baton.mutex("/").tryAcquire(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("mutex path")
        .hasMessageContaining("'/'");
    assertNothingWritten();
  }

  @Test
  void acquire_pathBelowEphemeralNode_failsNamingThePathAndWritesNothing() throws Exception {
    String parent = "/bad-ephemeral-parent";
    raw.zk().create(parent, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
    try {
      treeBefore = raw.tree();
      Mutex mutex = baton.mutex(parent + "/lock");
      assertThatThrownBy(() -> mutex.acquire(Duration.ofSeconds(10)))
          .isInstanceOf(BatonException.class)
          .hasMessageContaining(parent)
          .hasMessageContaining("ephemeral");
      assertNothingWritten();
      assertThat(raw.children(parent)).isEmpty();
    } finally {
      raw.zk().delete(parent, -1);
    }
  }

  @Test
  void acquire_pathWhoseAclRefusesTheClient_failsNotAuthorizedNamingThePath() throws Exception {
    String parent = "/bad-acl";
    String digest = "owner:" + Base64.getEncoder().encodeToString(
        MessageDigest.getInstance("SHA1").digest("owner:secret".getBytes(StandardCharsets.UTF_8)));
    // (a mutable list: ZooKeeper's ACL check calls contains(null), which List.of refuses)
    List<ACL> acl = new ArrayList<>(List.of(new ACL(ZooDefs.Perms.ALL, new Id("digest", digest)),
        new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE)));
    raw.zk().create(parent, new byte[0], acl, CreateMode.PERSISTENT);
    try (Baton stranger = client().digestAuth("stranger", "guess").build()) {
      treeBefore = raw.tree();
      assertThatThrownBy(() -> baton.mutex(parent + "/lock").acquire(Duration.ofSeconds(10)))
          .isInstanceOf(BatonException.class)
          .hasMessageContaining("Not authorized")
          .hasMessageContaining(parent + "/lock");
      assertThatThrownBy(() -> stranger.mutex(parent).tryAcquire(Duration.ZERO))
          .isInstanceOf(BatonException.class)
          .hasMessageContaining("Not authorized")
          .hasMessageContaining(parent);
      assertNothingWritten();
      // The owner's credentials work: the check is about identity, not about the path.
      try (Baton owner = client().digestAuth("owner", "secret").build();
          Lease lease = owner.mutex(parent).acquire(Duration.ofSeconds(10))) {
        assertThat(lease.isValid()).isTrue();
      }
    } finally {
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
        raw.zk().addAuthInfo("digest", "owner:secret".getBytes(StandardCharsets.UTF_8));
        raw.deleteRecursively(parent);
        assertThat(raw.exists(parent)).isFalse();
      });
    }
  }

  // ---- durations ------------------------------------------------------------------------------

  static Stream<Arguments> badTimeouts() {
    Duration negative = Duration.ofMillis(-1);
    return Stream.of(
        Arguments.of("acquire(null)", (Consumer<Mutex>) m -> m.acquire(null), NullPointerException.class),
        Arguments.of("acquire(-1ms)", (Consumer<Mutex>) m -> m.acquire(negative), IllegalArgumentException.class),
        Arguments.of("tryAcquire(null)", (Consumer<Mutex>) m -> m.tryAcquire(null), NullPointerException.class),
        Arguments.of("tryAcquire(-1ms)", (Consumer<Mutex>) m -> m.tryAcquire(negative),
            IllegalArgumentException.class),
        Arguments.of("acquireAsync(null)", (Consumer<Mutex>) m -> m.acquireAsync(null),
            NullPointerException.class),
        Arguments.of("acquireAsync(-1ms)", (Consumer<Mutex>) m -> m.acquireAsync(negative),
            IllegalArgumentException.class),
        Arguments.of("acquire(-1 day)", (Consumer<Mutex>) m -> m.acquire(Duration.ofDays(-1)),
            IllegalArgumentException.class));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badTimeouts")
  void acquireFamily_nullOrNegativeTimeout_throwsNamingTimeoutAndWritesNothing(
      String call, Consumer<Mutex> bad, Class<? extends Throwable> expected) throws Exception {
    String path = "/bad/timeouts";
    Mutex mutex = baton.mutex(path);
    assertThatThrownBy(() -> bad.accept(mutex)).isInstanceOf(expected).hasMessageContaining("timeout");
    assertNothingWritten();
    assertThat(raw.exists(path)).isFalse();
    assertThat(mutex.isHeldByCurrentThread()).isFalse();
  }

  @Test
  void acquireFamily_timeoutBeyondNanosecondRange_isTreatedAsUnbounded() throws Exception {
    String path = "/bad/huge-timeout";
    Mutex mutex = baton.mutex(path);
    Duration forever = Duration.ofSeconds(Long.MAX_VALUE);
    try (Lease lease = mutex.acquire(forever)) {
      assertThat(lease.isValid()).isTrue();
    }
    try (Lease lease = mutex.tryAcquire(forever).orElseThrow()) {
      assertThat(lease.isValid()).isTrue();
    }
    try (Lease lease = mutex.acquireAsync(forever).get(10, TimeUnit.SECONDS)) {
      assertThat(lease.isValid()).isTrue();
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> raw.children(path).isEmpty());
  }

  // ---- builder --------------------------------------------------------------------------------

  @Test
  void builder_nullConnectString_throwsNamingConnectString() {
    assertThatThrownBy(() -> Baton.builder().connectString(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("connectString");
    assertThatThrownBy(() -> Baton.connect(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("connectString");
  }

  @ParameterizedTest(name = "\"{0}\"")
  @ValueSource(strings = {"", " ", "\t\n"})
  void builder_blankConnectString_throwsNamingConnectString(String blank) {
    assertThatThrownBy(() -> Baton.builder().connectString(blank))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("connectString");
    assertThatThrownBy(() -> Baton.connect(blank))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("connectString");
  }

  @Test
  void builder_connectStringWithPath_throwsPointingToNamespace() {
    String withChroot = "127.0.0.1:2181/apps/shop";
    assertThatThrownBy(() -> Baton.builder().connectString(withChroot))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(withChroot)
        .hasMessageContaining("namespace");
  }

  @ParameterizedTest(name = "\"{0}\"")
  @ValueSource(strings = {",", " , ", "127.0.0.1:notaport", "127.0.0.1:99999", "127.0.0.1:-1"})
  void builder_malformedConnectString_throwsIllegalArgumentNamingConnectString(String malformed) {
    assertThatThrownBy(() -> Baton.builder().connectString(malformed)
            .connectionTimeout(Duration.ofSeconds(1)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("connectString")
        .hasMessageContaining(malformed.trim());
  }

  @ParameterizedTest(name = "\"{0}\"")
  @ValueSource(strings = {",", "127.0.0.1:notaport", "127.0.0.1:99999"})
  void build_malformedConnectString_failsWithBatonOrArgumentErrorNamingIt(String malformed) {
    assertThatThrownBy(() -> Baton.builder().connectString(malformed)
            .connectionTimeout(Duration.ofSeconds(1)).build())
        .isInstanceOfAny(IllegalArgumentException.class, ConnectionException.class)
        .hasMessageContaining(malformed);
  }

  static Stream<Arguments> badDurationsForBuilder() {
    return Stream.of(
        Arguments.of("sessionTimeout", null, NullPointerException.class),
        Arguments.of("sessionTimeout", Duration.ZERO, IllegalArgumentException.class),
        Arguments.of("sessionTimeout", Duration.ofSeconds(-5), IllegalArgumentException.class),
        Arguments.of("connectionTimeout", null, NullPointerException.class),
        Arguments.of("connectionTimeout", Duration.ZERO, IllegalArgumentException.class),
        Arguments.of("connectionTimeout", Duration.ofMillis(-1), IllegalArgumentException.class));
  }

  @ParameterizedTest(name = "{0}({1})")
  @MethodSource("badDurationsForBuilder")
  void builder_nonPositiveOrNullTimeout_throwsNamingTheSetting(
      String setting, Duration value, Class<? extends Throwable> expected) {
    Baton.Builder builder = Baton.builder();
    assertThatThrownBy(() -> {
      if (setting.equals("sessionTimeout")) {
        builder.sessionTimeout(value);
      } else {
        builder.connectionTimeout(value);
      }
    }).isInstanceOf(expected).hasMessageContaining(setting);
  }

  @Test
  void builder_nullRetryPolicy_throwsNamingRetryPolicy() {
    assertThatThrownBy(() -> Baton.builder().retryPolicy(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("retryPolicy");
  }

  @Test
  void builder_nullEventExecutor_throwsNamingIt() {
    assertThatThrownBy(() -> Baton.builder().eventExecutor(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("eventExecutor");
  }

  @Test
  void builder_nullNamespace_throwsNamingNamespace() {
    assertThatThrownBy(() -> Baton.builder().namespace(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("namespace");
  }

  @ParameterizedTest(name = "\"{0}\"")
  @ValueSource(strings = {"apps", "/apps/", "//apps", "/apps//shop", "/apps/./shop", "/apps/..", "/apps\u0000"})
  void builder_invalidNamespace_throwsNamingNamespace(String namespace) throws Exception {
    assertThatThrownBy(() -> Baton.builder().namespace(namespace))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("namespace")
        .hasMessageContaining(printable(namespace));
    assertNothingWritten();
  }

  @ParameterizedTest(name = "user \"{0}\"")
  @ValueSource(strings = {"us:er", ":", "user:", ""})
  void builder_digestUserEmptyOrWithColon_throwsNamingTheUser(String user) {
    assertThatThrownBy(() -> Baton.builder().digestAuth(user, "secret"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("digest user")
        .hasMessageContaining("'" + user + "'");
  }

  @Test
  void builder_digestNullUserOrPassword_throwsNamingWhichOne() {
    assertThatThrownBy(() -> Baton.builder().digestAuth(null, "secret"))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("user");
    assertThatThrownBy(() -> Baton.builder().digestAuth("user", null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("password");
  }

  @Test
  void build_withoutConnectString_throwsIllegalStateNamingConnectString() {
    assertThatThrownBy(() -> Baton.builder().build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("connectString");
  }

  @Test
  void build_namespaceBelowEphemeralNode_failsWithBatonExceptionNamingNamespace() throws Exception {
    String parent = "/bad-ephemeral-namespace";
    raw.zk().create(parent, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
    try {
      treeBefore = raw.tree();
      Set<Thread> before = clientThreads();
      assertThatThrownBy(() -> client().namespace(parent + "/app").build())
          .isInstanceOf(BatonException.class)
          .hasMessageContaining(parent + "/app");
      assertNothingWritten();
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
        Set<Thread> leaked = clientThreads();
        leaked.removeAll(before);
        assertThat(leaked).as("client threads left by the failed build").isEmpty();
      });
    } finally {
      raw.zk().delete(parent, -1);
    }
  }

  @Test
  void build_namespaceWhoseAclRefusesTheClient_failsWithBatonExceptionNamingNamespace() throws Exception {
    String parent = "/bad-acl-namespace";
    List<ACL> readOnly = new ArrayList<>(ZooDefs.Ids.READ_ACL_UNSAFE);
    raw.zk().create(parent, new byte[0], readOnly, CreateMode.PERSISTENT);
    try {
      treeBefore = raw.tree();
      assertThatThrownBy(() -> client().namespace(parent + "/app").build())
          .isInstanceOf(BatonException.class)
          .hasMessageContaining("Not authorized")
          .hasMessageContaining(parent + "/app");
      assertNothingWritten();
    } finally {
      raw.zk().delete(parent, -1);
    }
  }

  @Test
  void build_sessionTimeoutBeyondIntMillis_getsTheLongestTheEnsembleAllowsOrIsRejected() {
    // 30 days: more milliseconds than an int holds. The ensemble clamps what it is asked for,
    // so the client should end up with the longest session it allows, never the shortest.
    Baton longSession;
    try {
      longSession = client().sessionTimeout(Duration.ofDays(30))
          .connectionTimeout(Duration.ofSeconds(5)).build();
    } catch (IllegalArgumentException rejected) {
      assertThat(rejected).hasMessageContaining("sessionTimeout");
      return;
    }
    try (longSession) {
      Duration longest = cluster.tickTime().multipliedBy(20);
      assertThat(longSession.sessionTimeout()).isEqualTo(longest);
    }
  }

  @Test
  void build_connectionTimeoutBeyondNanosecondRange_waitsWithoutLimitOrIsRejected() {
    Baton.Builder builder;
    try {
      builder = client().connectionTimeout(Duration.ofSeconds(Long.MAX_VALUE));
    } catch (IllegalArgumentException rejected) {
      assertThat(rejected).hasMessageContaining("connectionTimeout");
      return;
    }
    try (Baton patient = builder.build()) {
      assertThat(patient.connectionState().isConnected()).isTrue();
    }
  }

  // ---- unreachable ensembles ------------------------------------------------------------------

  private static Set<Thread> clientThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().contains("-SendThread(") || t.getName().endsWith("-EventThread")
            || t.getName().startsWith("baton-"))
        .collect(Collectors.toSet());
  }

  @Test
  void build_unreachableEnsemble_throwsConnectionExceptionNamingConnectStringAndLeaksNoThreads()
      throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort(); // free once closed: nobody listens there
    }
    String connectString = "127.0.0.1:" + port;
    Set<Thread> before = clientThreads();

    assertThatThrownBy(() -> Baton.builder().connectString(connectString)
            .connectionTimeout(Duration.ofSeconds(1)).build())
        .isInstanceOf(ConnectionException.class)
        .hasMessageContaining(connectString)
        .hasMessageContaining("1 s");

    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      Set<Thread> leaked = clientThreads();
      leaked.removeAll(before);
      assertThat(leaked).as("client threads left by the failed connect").isEmpty();
    });
  }

  @Test
  void build_unresolvableHost_throwsConnectionExceptionNamingTheHostAndLeaksNoThreads() {
    String connectString = "no-such-host.invalid:2181";
    Set<Thread> before = clientThreads();
    assertThatThrownBy(() -> Baton.builder().connectString(connectString)
            .connectionTimeout(Duration.ofSeconds(1)).build())
        .isInstanceOf(ConnectionException.class)
        .hasMessageContaining(connectString);
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      Set<Thread> leaked = clientThreads();
      leaked.removeAll(before);
      assertThat(leaked).as("client threads left by the failed connect").isEmpty();
    });
  }

  @Test
  void build_unresolvableHost_messageSaysTheHostCannotBeResolved() {
    String connectString = "no-such-host.invalid:2181";
    assertThatThrownBy(() -> Baton.builder().connectString(connectString)
            .connectionTimeout(Duration.ofSeconds(1)).build())
        .isInstanceOf(ConnectionException.class)
        .hasMessageContaining("no-such-host.invalid")
        .hasMessageContainingAll("resolve");
  }

  @Test
  void build_oneUnresolvableHostAmongGoodOnes_connects() {
    String connectString = "no-such-host.invalid:2181," + cluster.connectString();
    try (Baton mixed = Baton.builder().connectString(connectString)
        .connectionTimeout(Duration.ofSeconds(10)).build()) {
      assertThat(mixed.connectionState().isConnected()).isTrue();
    }
  }

  // ---- closed clients -------------------------------------------------------------------------

  @Test
  void mutex_afterClientClosed_throwsClientClosedNamingConnectString() throws Exception {
    Baton closed = client().build();
    closed.close();
    assertThatThrownBy(() -> closed.mutex("/bad/closed/new"))
        .isInstanceOf(ClientClosedException.class).hasMessageContaining(cluster.connectString());
    assertNothingWritten();
  }

  static Stream<Arguments> callsOnClosedClient() {
    return Stream.of(
        Arguments.of("acquire()", (Consumer<Mutex>) Mutex::acquire),
        Arguments.of("acquire(1s)", (Consumer<Mutex>) m -> m.acquire(Duration.ofSeconds(1))),
        Arguments.of("tryAcquire(ZERO)", (Consumer<Mutex>) m -> m.tryAcquire(Duration.ZERO)),
        Arguments.of("acquireAsync()", (Consumer<Mutex>) m -> m.acquireAsync().join()),
        Arguments.of("acquireAsync(1s)", (Consumer<Mutex>) m -> m.acquireAsync(Duration.ofSeconds(1)).join()),
        Arguments.of("holder()", (Consumer<Mutex>) Mutex::holder),
        Arguments.of("waiters()", (Consumer<Mutex>) Mutex::waiters));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("callsOnClosedClient")
  void mutexMadeBeforeClose_usedAfterClose_throwsClientClosed(String call, Consumer<Mutex> use)
      throws Exception {
    Baton closing = client().build();
    Mutex mutex = closing.mutex("/bad/closed/before");
    closing.close();
    assertThatThrownBy(() -> use.accept(mutex))
        .isInstanceOf(ClientClosedException.class).hasMessageContaining(cluster.connectString());
    assertNothingWritten();
  }

  @Test
  void close_clientTwice_isHarmlessAndLeaseOfClosedClientIsReleased() throws Exception {
    String path = "/bad/closed/lease";
    Baton closing = client().build();
    Lease lease = closing.mutex(path).acquire(Duration.ofSeconds(10));
    closing.close();
    assertThatCode(closing::close).doesNotThrowAnyException();
    assertThat(lease.state()).isEqualTo(LeaseState.RELEASED);
    assertThatCode(lease::close).doesNotThrowAnyException();
    assertThatCode(lease::close).doesNotThrowAnyException();
    assertThat(raw.children(path)).isEmpty();
  }

  // ---- leases ---------------------------------------------------------------------------------

  @Test
  void close_leaseTwice_isHarmlessAndLockIsFreeAfterwards() throws Exception {
    String path = "/bad/lease-twice";
    Mutex mutex = baton.mutex(path);
    Lease lease = mutex.acquire(Duration.ofSeconds(10));
    lease.close();
    assertThatCode(lease::close).doesNotThrowAnyException();
    assertThat(lease.state()).isEqualTo(LeaseState.RELEASED);
    assertThat(lease.isValid()).isFalse();
    try (Baton other = client().build();
        Lease next = other.mutex(path).acquire(Duration.ofSeconds(10))) {
      assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
    }
  }

  @Test
  void addListener_null_throwsNamingListener() throws Exception {
    try (Lease lease = baton.mutex("/bad/listener").acquire(Duration.ofSeconds(10))) {
      assertThatThrownBy(() -> lease.addListener(null))
          .isInstanceOf(NullPointerException.class).hasMessageContaining("listener");
    }
    assertThatThrownBy(() -> baton.addConnectionStateListener(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("listener");
    assertThatThrownBy(() -> baton.addConnectionStateListener(state -> { }, null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("executor");
  }

  // ---- retry policy ---------------------------------------------------------------------------

  static Stream<Arguments> badRetryPolicies() {
    Duration second = Duration.ofSeconds(1);
    return Stream.of(
        Arguments.of("null baseDelay", (Runnable) () -> new RetryPolicy(null, second, 3),
            NullPointerException.class, List.of("baseDelay")),
        Arguments.of("null maxDelay", (Runnable) () -> new RetryPolicy(second, null, 3),
            NullPointerException.class, List.of("maxDelay")),
        Arguments.of("negative baseDelay", (Runnable) () -> new RetryPolicy(Duration.ofMillis(-1), second, 3),
            IllegalArgumentException.class, List.of("baseDelay", "-0.001")),
        Arguments.of("maxDelay below baseDelay",
            (Runnable) () -> RetryPolicy.exponentialBackoff(Duration.ofSeconds(2), second, 3),
            IllegalArgumentException.class, List.of("maxDelay", "baseDelay")),
        Arguments.of("negative maxRetries",
            (Runnable) () -> RetryPolicy.exponentialBackoff(Duration.ZERO, second, -1),
            IllegalArgumentException.class, List.of("maxRetries", "-1")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badRetryPolicies")
  void retryPolicy_badArguments_throwNamingTheArgument(
      String kind, Runnable construct, Class<? extends Throwable> expected, List<String> named) {
    assertThatThrownBy(construct::run).isInstanceOf(expected)
        .hasMessageContainingAll(named.toArray(String[]::new));
  }
}
