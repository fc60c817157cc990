package dev.baton.cli.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testkit.TestCluster;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every kind of bad input a user can type at the {@code baton} command (issue 6): unknown
 * commands and options, missing arguments, invalid lock paths, bad durations, out-of-range
 * counts, an unknown mode, malformed, unresolvable and unreachable {@code --connect} addresses,
 * and server ports out of range or taken. Each must end with a non-zero exit code (2 for a usage
 * error, 1 for a failure the input could not foresee), a message naming the argument, no stack
 * trace, and, where a test server is given, nothing written to it: its whole tree is compared
 * before and after.
 *
 * <p>Cases: 57 usage errors in {@link #usageErrors()} and 7 more in four tests below, 64 in all;
 * a fifth test checks that a boundary value (a zero {@code --timeout}) is still accepted.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CliBadInputTest {
  /** Replaced by the test server's connect string in the arguments of a case. */
  private static final String ZK = "{zk}";

  private static TestCluster cluster;
  private static ZooKeeper raw;

  @BeforeAll
  static void start() throws Exception {
    // A session the server grants as asked: at the testkit's 2 s, the raw client's session expired
    // on a loaded machine between two cases.
    cluster = StandaloneZooKeeper.startServer();
    CountDownLatch connected = new CountDownLatch(1);
    raw = new ZooKeeper(cluster.connectString(), Integer.parseInt(StandaloneZooKeeper.MAX_SESSION_TIMEOUT_MS), event -> {
      if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
        connected.countDown();
      }
    });
    assertThat(connected.await(10, TimeUnit.SECONDS)).as("raw client connected").isTrue();
  }

  @AfterAll
  static void stop() throws Exception {
    if (raw != null) {
      raw.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  /** Every path on the test server but ZooKeeper's own. */
  private static Set<String> tree() throws Exception {
    Set<String> paths = new TreeSet<>();
    Deque<String> todo = new ArrayDeque<>(List.of("/"));
    while (!todo.isEmpty()) {
      String path = todo.pop();
      if (path.equals("/zookeeper")) {
        continue;
      }
      paths.add(path);
      try {
        for (String child : raw.getChildren(path, false)) {
          todo.push(path.equals("/") ? "/" + child : path + "/" + child);
        }
      } catch (KeeperException.NoNodeException e) {
        // removed while walking
      }
    }
    return paths;
  }

  /** Runs {@code args} against the test server and checks that nothing on it changed. */
  private static Cli.Run runAgainstServer(String... args) throws Exception {
    String[] resolved = Arrays.stream(args).map(a -> a.replace(ZK, cluster.connectString())).toArray(String[]::new);
    Set<String> before = tree();
    Cli.Run run = Cli.run(resolved);
    assertThat(tree()).as("the server's tree after: baton " + String.join(" ", resolved)).isEqualTo(before);
    return run;
  }

  private static void assertExplained(Cli.Run run, int exitCode, String... named) {
    assertThat(run.exitCode()).as("exit code; stderr: %s", run.err()).isEqualTo(exitCode);
    assertThat(run.err()).as("stderr").contains(named);
    assertThat(run.err()).as("no stack trace for a user's mistake").doesNotContain("\tat ")
        .doesNotContainPattern("\\b(java|org)\\.[\\w.]+(Exception|Error)\\b");
    assertThat(run.out()).as("stdout").isEmpty();
  }

  private static Arguments usage(String what, List<String> args, String... named) {
    return Arguments.of(what, args, named);
  }

  private static List<String> hold(String path, String... more) {
    List<String> args = new ArrayList<>(List.of("lock", "hold", path, "--connect", ZK));
    args.addAll(List.of(more));
    args.addAll(List.of("--", "true"));
    return args;
  }

  private static List<String> demo(String... options) {
    List<String> args = new ArrayList<>(List.of("demo", "--connect", ZK));
    args.addAll(List.of(options));
    return args;
  }

  private static List<String> holder(String... more) {
    List<String> args = new ArrayList<>(List.of("lock", "holder", "/locks/x"));
    args.addAll(List.of(more));
    return args;
  }

  static Stream<Arguments> usageErrors() {
    return Stream.of(
        // commands and options
        usage("unknown command", List.of("dmeo"), "unknown command 'dmeo'", "demo, server, lock"),
        usage("unknown lock command", List.of("lock", "frob", "/x"), "unknown command 'frob'", "holder, waiters, hold"),
        usage("unknown option", demo("--frobnicate"), "'--frobnicate'"),
        usage("unknown option of lock hold", hold("/locks/x", "--wait", "5s"), "'--wait'"),
        // No --connect is no mistake: localhost:2181, said on stderr (OutputHygieneTest).
        usage("missing <path>", List.of("lock", "holder", "--connect", ZK), "<path>"),
        usage("missing <command> of hold", List.of("lock", "hold", "/locks/x", "--connect", ZK), "<command>"),
        usage("option without its value", List.of("demo", "--connect", ZK, "--nodes"), "--nodes"),
        usage("option given twice", demo("--nodes", "2", "--nodes", "3"), "'--nodes'", "only once"),
        // lock paths
        usage("empty path", hold(""), "<path>", "mutex path ''"),
        usage("relative path", hold("locks/relative"), "<path>", "'locks/relative'", "must start with /"),
        usage("trailing slash", hold("/locks/trailing/"), "<path>", "'/locks/trailing/'", "must not end with /"),
        usage("'..' in the path", hold("/locks/../up"), "<path>", "'/locks/../up'", "relative paths not allowed"),
        usage("'.' in the path", hold("/locks/./here"), "<path>", "'/locks/./here'", "relative paths not allowed"),
        usage("empty segment", hold("/locks//double"), "<path>", "'/locks//double'", "empty node name"),
        usage("the root", hold("/"), "<path>", "'/' is the root"),
        usage("control character", hold("/locks/bell\u0007"), "<path>", "\\u0007"),
        usage("bad path for holder", List.of("lock", "holder", "no-slash", "--connect", ZK), "<path>", "'no-slash'"),
        usage("bad path for waiters", List.of("lock", "waiters", "/w/", "--connect", ZK), "<path>", "'/w/'"),
        // durations
        usage("negative --connect-timeout", holder("--connect", ZK, "--connect-timeout", "-5s"),
            "--connect-timeout", "'-5s'"),
        usage("negative ISO --connect-timeout", holder("--connect", ZK, "--connect-timeout", "PT-5S"),
            "--connect-timeout", "'PT-5S' is negative"),
        usage("zero --connect-timeout", holder("--connect", ZK, "--connect-timeout", "0s"),
            "--connect-timeout must be more than zero"),
        usage("garbage --connect-timeout", holder("--connect", ZK, "--connect-timeout", "soon"),
            "--connect-timeout", "'soon' is not a duration"),
        usage("unit not known", holder("--connect", ZK, "--connect-timeout", "10 parsecs"),
            "--connect-timeout", "'10 parsecs' is not a duration"),
        usage("zero --session-timeout", holder("--connect", ZK, "--session-timeout", "0s"),
            "--session-timeout must be more than zero"),
        usage("negative --session-timeout", holder("--connect", ZK, "--session-timeout", "-3s"),
            "--session-timeout", "'-3s'"),
        usage("--session-timeout over ZooKeeper's limit", holder("--connect", ZK, "--session-timeout", "600h"),
            "--session-timeout", "at most 2147483647 ms"),
        usage("negative --timeout", hold("/locks/x", "--timeout", "-1s"), "--timeout", "'-1s'"),
        usage("negative ISO --timeout", hold("/locks/x", "--timeout", "PT-0.5S"), "--timeout", "'PT-0.5S' is negative"),
        usage("garbage --timeout", hold("/locks/x", "--timeout", "forever"), "--timeout", "'forever' is not a duration"),
        usage("zero demo --connect-timeout", demo("--connect-timeout", "0ms"), "--connect-timeout must be more than zero"),
        // demo counts and mode
        usage("--nodes 0", demo("--nodes", "0"), "--nodes must be a positive number", "was 0"),
        usage("--nodes negative", demo("--nodes", "-4"), "--nodes must be a positive number", "was -4"),
        usage("--nodes over the limit", demo("--nodes", "101"), "--nodes", "no larger than 100", "was 101"),
        usage("--nodes past int", demo("--nodes", "99999999999"), "--nodes", "'99999999999' is not an int"),
        usage("--nodes not a number", demo("--nodes", "four"), "--nodes", "'four' is not an int"),
        usage("--buyers 0", demo("--buyers", "0"), "--buyers must be a positive number", "was 0"),
        usage("--buyers negative", demo("--buyers", "-3"), "--buyers must be a positive number", "was -3"),
        usage("--buyers over the limit", demo("--buyers", "1001"), "--buyers", "no larger than 1,000"),
        usage("--buyers not a number", demo("--buyers", "2.5"), "--buyers", "'2.5' is not an int"),
        usage("--items 0", demo("--items", "0"), "--items must be a positive number", "was 0"),
        usage("--items negative", demo("--items", "-10"), "--items must be a positive number", "was -10"),
        usage("--items over the limit", demo("--items", "10000001"), "--items", "no larger than 10,000,000"),
        usage("--items not a number", demo("--items", "lots"), "--items", "'lots' is not an int"),
        usage("--work-us negative", demo("--work-us", "-1"), "--work-us", "was -1"),
        usage("unknown --mode", demo("--mode", "optimistic"), "--mode must be lock or cas", "'optimistic'"),
        usage("empty --mode", demo("--mode", ""), "--mode must be lock or cas", "was ''"),
        usage("--mode with --no-lock", demo("--mode", "cas", "--no-lock"), "--no-lock and --mode cannot be combined"),
        // --connect
        usage("empty --connect", holder("--connect", ""), "--connect", "empty host entry"),
        usage("--connect with a path", holder("--connect", "zk1:2181/apps"), "--connect", "(no path)", "'zk1:2181/apps'"),
        usage("--connect port not a number", holder("--connect", "zk1:21x81"), "--connect", "'21x81'", "not a number"),
        usage("--connect port out of range", holder("--connect", "zk1:99999"), "--connect", "99999", "between 1 and 65535"),
        usage("--connect port 0", holder("--connect", "127.0.0.1:0"), "--connect", "port 0", "between 1 and 65535"),
        usage("--connect without a host", holder("--connect", ":2181"), "--connect", "':2181' has no host"),
        usage("--connect empty entry", holder("--connect", "zk1:2181,,zk2:2181"), "--connect", "empty host entry"),
        usage("--connect empty port", holder("--connect", "zk1:"), "--connect", "port '' of 'zk1:'"),
        usage("demo --connect malformed", List.of("demo", "--connect", "zk1:2181/apps"), "--connect", "(no path)"),
        // server
        usage("--port over the range", List.of("server", "--port", "70000"), "--port must be between 0 and 65535", "70000"),
        usage("--port negative", List.of("server", "--port", "-1"), "--port must be between 0 and 65535", "was -1"),
        usage("--port not a number", List.of("server", "--port", "http"), "--port", "'http' is not an int"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("usageErrors")
  void usageError_exitsWith2_namingTheArgument_andWritesNothing(String what, List<String> args, String[] named)
      throws Exception {
    Cli.Run run = runAgainstServer(args.toArray(String[]::new));
    assertExplained(run, 2, named);
  }

  /** A name that resolves nowhere is refused before any wait, however long the timeout. */
  @Test
  @Timeout(value = 20, unit = TimeUnit.SECONDS)
  void connectToAnUnresolvableHost_isRefusedAtOnce_namingTheHost() {
    Cli.Run run = Cli.run("lock", "holder", "/locks/x", "--connect", "no-such-host.invalid:2181",
        "--connect-timeout", "5m");
    assertExplained(run, 2, "--connect", "cannot resolve no-such-host.invalid");

    Cli.Run demo = Cli.run("demo", "--connect", "no-such-host.invalid:2181", "--items", "10");
    assertExplained(demo, 2, "--connect", "cannot resolve no-such-host.invalid");
  }

  /**
   * Nothing listens at the address: a failure (1) at once, naming the address, for the commands;
   * the demo's own client still waits the connect timeout.
   */
  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void connectToAPortNobodyListensOn_failsNamingTheAddress() throws Exception {
    String nobody = "127.0.0.1:" + portNobodyListensOn();
    Cli.Run hold = Cli.run("lock", "hold", "/locks/x", "--connect", nobody, "--connect-timeout", "500ms", "--", "true");
    assertExplained(hold, 1, "Nothing listens at " + nobody + " (connection refused)");

    Cli.Run demo = Cli.run("demo", "--connect", nobody, "--connect-timeout", "500ms", "--items", "10");
    assertThat(demo.exitCode()).as(demo.err()).isEqualTo(1);
    assertThat(demo.err()).contains("No ZooKeeper server answered at " + nobody + " within 0.5 s")
        .doesNotContain("\tat ");
  }

  @Test
  void serverOnATakenPort_failsNamingThePortAndTheOption() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Cli.Run run = Cli.run("server", "--port", Integer.toString(taken.getLocalPort()));
      assertExplained(run, 1, "Cannot listen on 127.0.0.1:" + taken.getLocalPort(), "--port");
    }
  }

  @Test
  void serverWithABadTickOrHost_isBadUsage() {
    assertExplained(Cli.run("server", "--port", "0", "--tick-time-ms", "0"), 2,
        "--tick-time-ms must be at least 1", "was 0");
    assertExplained(Cli.run("server", "--port", "0", "--host", "no-such-host.invalid"), 2,
        "--host 'no-such-host.invalid' cannot be resolved");
  }

  /** The boundaries themselves are accepted: the checks above are not off by one. */
  @Test
  void holdWithZeroTimeoutOnAFreeLock_isAccepted_andLeavesNothingBehind() throws Exception {
    Cli.Run run = Cli.run("lock", "hold", "/cli-bad-input/free", "--connect", cluster.connectString(),
        "--timeout", "0s", "--", "true");
    assertThat(run.exitCode()).as(run.err()).isZero();
    // The lock path itself is a container node, which the server removes later, once empty.
    await().atMost(Duration.ofSeconds(20)).untilAsserted(
        () -> assertThat(raw.getChildren("/cli-bad-input/free", false)).isEmpty());
  }

  /** A port that was free a moment ago: connections to it are refused. */
  private static int portNobodyListensOn() throws Exception {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
