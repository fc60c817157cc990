package dev.baton.cli.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.cli.BatonCommand;
import dev.baton.lock.Lease;
import dev.baton.testkit.TestCertificates.Identity;
import dev.baton.testkit.TestCertificates;
import dev.baton.testkit.TestCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The identity options every ensemble command shares: {@code --digest} for ZooKeeper's digest
 * scheme and {@code --tls-*} for a server's secure port, against a server that requires both
 * (a TLS port with client certificates, and a lock path only one digest identity may read).
 */
class ConnectIdentityTest {
  private static final String PASSWORD = "changeit";
  private static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir
  static Path folder;
  static TestCluster cluster;
  static Path trusted;
  static Identity client;

  @BeforeAll
  static void start() throws Exception {
    Identity server = TestCertificates.selfSigned(folder, "server", PASSWORD);
    client = TestCertificates.selfSigned(folder, "client", PASSWORD);
    trusted = TestCertificates.trustStore(folder.resolve("trusted.p12"), PASSWORD, server, client);
    cluster = TestCluster.builder().secureClientPort(server.keyStore(), PASSWORD, trusted, PASSWORD).start();
    try (Baton alice = Baton.builder().connectString(cluster.connectString()).digestAuth("alice", "secret").build()) {
      // Only alice may see what is below /private: the lock path's children need READ.
      String digest = DigestAuthenticationProvider.generateDigest("alice:secret");
      List<ACL> aliceOnly = List.of(new ACL(ZooDefs.Perms.ALL, new Id("digest", digest)));
      alice.transaction(org.apache.zookeeper.Op.create("/private", new byte[0], aliceOnly, CreateMode.PERSISTENT),
          org.apache.zookeeper.Op.create("/private/orders", new byte[0], aliceOnly, CreateMode.PERSISTENT));
    }
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @Test
  void tlsOptions_reachTheSecurePort_andSeeTheHolder() {
    try (Baton holder = Baton.builder().connectString(cluster.secureConnectString()).connectionTimeout(WAIT)
        .tls(trusted, PASSWORD).tlsClientCertificate(client.keyStore(), PASSWORD).build();
        Lease lease = holder.mutex("/locks/tls").acquire(WAIT)) {
      Cli.Run run = Cli.run("lock", "holder", "/locks/tls", "--connect", cluster.secureConnectString(),
          "--tls-truststore", trusted.toString(), "--tls-truststore-password", PASSWORD,
          "--tls-keystore", client.keyStore().toString(), "--tls-keystore-password", PASSWORD);

      assertThat(run.exitCode()).as(run.err()).isZero();
      assertThat(run.out()).contains("token=" + lease.fencingToken() + " ")
          .contains("session=0x" + Long.toHexString(holder.sessionId()));
    }
  }

  @Test
  void securePort_withoutTls_failsNamingTheAddress() {
    Cli.Run run = Cli.run("lock", "holder", "/locks/tls", "--connect", cluster.secureConnectString(),
        "--connect-timeout", "1s");

    assertThat(run.exitCode()).isEqualTo(BatonCommand.FAILURE);
    assertThat(run.err()).contains("No ZooKeeper server answered at " + cluster.secureConnectString());
  }

  @Test
  void tlsWithoutTheServersCertificate_failsWithATlsHint() {
    Identity stranger = TestCertificates.selfSigned(folder, "stranger", PASSWORD);
    Path strangersTrust = TestCertificates.trustStore(folder.resolve("strangers.p12"), PASSWORD, stranger);
    Cli.Run run = Cli.run("lock", "holder", "/locks/tls", "--connect", cluster.secureConnectString(),
        "--connect-timeout", "1s", "--tls-truststore", strangersTrust.toString(),
        "--tls-truststore-password", PASSWORD);

    assertThat(run.exitCode()).isEqualTo(BatonCommand.FAILURE);
    assertThat(run.err()).contains("No ZooKeeper server answered").contains("--tls-truststore holds their certificate");
  }

  @Test
  void digest_readsAPathOnlyThatIdentityMayRead() {
    Cli.Run run = Cli.run("lock", "waiters", "/private/orders", "--connect", cluster.connectString(),
        "--digest", "alice:secret");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("nobody waits for /private/orders");
  }

  @Test
  void withoutDigest_theRefusalNamesThePath() {
    Cli.Run stranger = Cli.run("lock", "waiters", "/private/orders", "--connect", cluster.connectString());
    Cli.Run wrongPassword = Cli.run("lock", "waiters", "/private/orders", "--connect", cluster.connectString(),
        "--digest", "alice:guess");

    for (Cli.Run run : List.of(stranger, wrongPassword)) {
      assertThat(run.exitCode()).isEqualTo(BatonCommand.FAILURE);
      assertThat(run.err()).contains("/private/orders").containsIgnoringCase("not authorized");
    }
  }

  @Test
  void badIdentityOptions_areUsageErrors_namingTheOption() {
    String connect = cluster.connectString();
    Path missing = folder.resolve("no-such-store.p12");
    assertUsageError(Cli.run("lock", "holder", "/locks/x", "--connect", connect, "--digest", "alice"),
        "--digest must be USER:PASSWORD");
    assertUsageError(Cli.run("lock", "holder", "/locks/x", "--connect", connect, "--digest", ":secret"),
        "--digest must be USER:PASSWORD");
    assertUsageError(Cli.run("lock", "holder", "/locks/x", "--connect", connect, "--digest", "alice:"),
        "--digest must be USER:PASSWORD");
    assertUsageError(Cli.run("lock", "holder", "/locks/x", "--connect", connect,
        "--tls-truststore", missing.toString(), "--tls-truststore-password", PASSWORD),
        "--tls-truststore '" + missing + "' is not a readable file");
    assertUsageError(Cli.run("lock", "holder", "/locks/x", "--connect", connect,
        "--tls-keystore", client.keyStore().toString(), "--tls-keystore-password", PASSWORD),
        "--tls-keystore needs --tls-truststore");
    assertUsageError(Cli.run("lock", "holder", "/locks/x", "--connect", connect,
        "--tls-truststore", trusted.toString()),
        "--tls-truststore-password is missing");
  }

  private static void assertUsageError(Cli.Run run, String message) {
    assertThat(run.exitCode()).as(run.err()).isEqualTo(BatonCommand.USAGE);
    assertThat(run.err()).contains(message);
    assertThat(run.out()).isEmpty();
  }
}
