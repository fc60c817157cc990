package dev.baton.cli.command;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.Baton;
import dev.baton.cli.BatonCommand;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the commands print besides their answer: library logs, waits, the granted session, defaults. */
class OutputHygieneTest extends StandaloneZooKeeper {

  /** Runs {@code baton ARGS} as the real command does (its own JVM, its main), with {@code home} as the user's home. */
  private static Process baton(Path home, Path out, Path err, String... args) throws IOException {
    List<String> line = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Duser.home=" + home, "-cp", System.getProperty("java.class.path"), BatonCommand.class.getName()));
    line.addAll(List.of(args));
    return new ProcessBuilder(line).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
  }

  /**
   * A library warning (the tree cache cannot read a node: its ACL) was printed on the terminal
   * amid the command's JSON. It goes to ~/.baton/baton.log now, and to stderr with --verbose.
   */
  @Test
  void libraryLogLines_goToTheLogFile_notAmidTheOutput_andToStderrWithVerbose(@TempDir Path home) throws Exception {
    try (Baton alice = Baton.builder().connectString(cluster.connectString()).digestAuth("alice", "secret").build()) {
      List<ACL> aliceOnly = List.of(new ACL(ZooDefs.Perms.ALL,
          new Id("digest", DigestAuthenticationProvider.generateDigest("alice:secret"))));
      alice.transaction(org.apache.zookeeper.Op.create("/hygiene", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT),
          org.apache.zookeeper.Op.create("/hygiene/private", new byte[0], aliceOnly, CreateMode.PERSISTENT));
    }
    Path out = home.resolve("out");
    Path err = home.resolve("err");
    Process quiet = baton(home, out, err, "tree", "/hygiene", "--json", "--connect", cluster.connectString());
    assertThat(quiet.waitFor(60, TimeUnit.SECONDS)).isTrue();

    assertThat(quiet.exitValue()).as(Files.readString(err)).isZero();
    new ObjectMapper().readTree(Files.readString(out)); // one JSON document, nothing else
    assertThat(Files.readString(err)).doesNotContain("not readable");
    assertThat(home.resolve(".baton").resolve("baton.log")).content().contains("/hygiene/private is not readable");

    Process verbose = baton(home, out, err, "tree", "/hygiene", "--json", "--verbose", "--connect", cluster.connectString());
    assertThat(verbose.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(Files.readString(err)).contains("/hygiene/private is not readable");
    new ObjectMapper().readTree(Files.readString(out));
  }

  /** The ZooKeeper client retries a refused port until its timeout: nothing listening took the full 10 s to say. */
  @Test
  void aRefusedPort_failsAtOnce_namingIt() throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort(); // free once closed: nothing listens there
    }
    Cli.Run run = Cli.run("lock", "holder", "/x", "--connect", "127.0.0.1:" + port, "--connect-timeout", "60s");

    assertThat(run.exitCode()).isEqualTo(BatonCommand.FAILURE);
    assertThat(run.err()).contains("Nothing listens at 127.0.0.1:" + port, "connection refused");
  }

  /** Lettuce gives up on a refused port at once: the message said "within 30 s" after a few milliseconds. */
  @Test
  void aRedisThatRefuses_namesTheTimeReallyWaited() throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    Cli.Run run = Cli.run("lock", "holder", "orders", "--redis", "redis://127.0.0.1:" + port, "--connect-timeout", "30s");

    assertThat(run.exitCode()).isEqualTo(BatonCommand.FAILURE);
    assertThat(run.err()).contains("redis://127.0.0.1:" + port).doesNotContain("within 30 s");
  }

  /** The test server grants at most 10 s ({@link StandaloneZooKeeper}): asked 30 s, the holder is told. */
  @Test
  void aSessionTimeoutCutByTheServer_isSaidOnStderr() {
    Cli.Run hold = Cli.run("lock", "hold", "/hygiene-locks/job", "--connect", cluster.connectString(), "--", "true");
    assertThat(hold.exitCode()).as(hold.err()).isZero();
    assertThat(hold.err()).contains("baton lock hold: the ensemble granted a session timeout of 10 s, not the 30 s asked");

    Cli.Run asked = Cli.run("lock", "holder", "/hygiene-locks/job", "--connect", cluster.connectString(),
        "--session-timeout", "20s");
    assertThat(asked.err()).contains("granted a session timeout of 10 s, not the 20 s asked");
    Cli.Run inspect = Cli.run("lock", "holder", "/hygiene-locks/job", "--connect", cluster.connectString());
    assertThat(inspect.err()).as("an inspection that asked nothing is not told").isEmpty();
  }

  @Test
  void withoutConnect_localhost2181_isUsed_andSaidOnStderr() {
    org.junit.jupiter.api.Assumptions.assumeTrue(System.getenv("BATON_CONNECT") == null
        && !Files.exists(ConfigFile.location()), "this machine names an ensemble of its own");
    Cli.Run run = Cli.run("lock", "holder", "/x", "--connect-timeout", "1s");

    assertThat(run.exitCode()).as("not bad usage").isNotEqualTo(BatonCommand.USAGE);
    assertThat(run.err()).startsWith("baton lock holder: no --connect, BATON_CONNECT or connect= in ")
        .contains(": using localhost:2181");
  }
}
