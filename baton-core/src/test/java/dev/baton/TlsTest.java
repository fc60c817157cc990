package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.lock.Lease;
import dev.baton.testkit.TestCertificates.Identity;
import dev.baton.testkit.TestCertificates;
import dev.baton.testkit.TestCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS to ZooKeeper: a server with a secure client port (Netty) and a certificate this test makes
 * with the JDK's keytool, requiring client certificates (ZooKeeper's default). A client with the
 * trust store and its certificate connects and takes a lock; a plaintext client, a client that
 * does not trust the server, one without a certificate, and a TLS client on the plain port are
 * refused with {@link ConnectionException} within their connection timeout, leaving no thread.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TlsTest {
  private static final String PASSWORD = "changeit";
  private static final Duration REFUSED_WITHIN = Duration.ofSeconds(2);
  private static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir
  static Path folder;
  static Identity server;
  static Identity client;
  static Path trusted;
  static Path strangersTrust;
  static TestCluster cluster;

  @BeforeAll
  static void startSecureServer() {
    server = TestCertificates.selfSigned(folder, "server", PASSWORD);
    client = TestCertificates.selfSigned(folder, "client", PASSWORD);
    Identity stranger = TestCertificates.selfSigned(folder, "stranger", PASSWORD);
    trusted = TestCertificates.trustStore(folder.resolve("trusted.p12"), PASSWORD, server, client);
    strangersTrust = TestCertificates.trustStore(folder.resolve("strangers.p12"), PASSWORD, stranger);
    cluster = TestCluster.builder()
        .secureClientPort(server.keyStore(), PASSWORD, trusted, PASSWORD)
        .property("maxSessionTimeout", "30000")
        .start();
    // Once, so that the server's own connection threads exist before any test counts threads.
    try (Baton warmUp = tlsClient().build()) {
      warmUp.mutex("/tls/warm-up").acquire(WAIT).close();
    }
  }

  @AfterAll
  static void stopServer() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static Baton.Builder tlsClient() {
    return Baton.builder().connectString(cluster.secureConnectString()).sessionTimeout(WAIT)
        .connectionTimeout(WAIT)
        .tls(trusted, PASSWORD).tlsClientCertificate(client.keyStore(), PASSWORD);
  }

  // ---- accepted -------------------------------------------------------------------------------

  @Test
  void clientWithTrustStoreAndCertificate_connectsToTheSecurePort_andTakesALock() throws Exception {
    try (Baton baton = tlsClient().build();
        Baton other = tlsClient().build()) {
      assertThat(baton.connectionState().isConnected()).isTrue();
      try (Lease lease = baton.mutex("/tls/orders").acquire(WAIT)) {
        assertThat(lease.isValid()).isTrue();
        assertThat(other.mutex("/tls/orders").tryAcquire(Duration.ZERO)).isEmpty();
        assertThat(other.mutex("/tls/orders").holder().orElseThrow().sessionId()).isEqualTo(baton.sessionId());
      }
      try (Lease lease = other.mutex("/tls/orders").acquire(WAIT)) {
        assertThat(lease.isValid()).isTrue();
      }
    }
  }

  @Test
  void clientCertificate_isTheSessionsIdentity_forCreatorAcls() throws Exception {
    try (Baton owner = tlsClient().aclProvider(AclProvider.creatorAllOthersRead()).build();
        Lease lease = owner.mutex("/tls-acl/orders").acquire(WAIT);
        Baton plain = Baton.builder().connectString(cluster.connectString()).connectionTimeout(WAIT).build();
        HelperZk raw = HelperZk.connect(cluster.connectString())) {
      List<ACL> expected = List.of(new ACL(ZooDefs.Perms.ALL, new Id("x509", client.subject())),
          new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE));
      assertThat(raw.zk().getACL("/tls-acl/orders", new Stat())).containsExactlyInAnyOrderElementsOf(expected);
      assertThatThrownBy(() -> plain.mutex("/tls-acl/orders").tryAcquire(WAIT))
          .isInstanceOf(NotAuthorizedException.class).hasMessageContaining("/tls-acl/orders");
      assertThat(plain.mutex("/tls-acl/orders").holder().orElseThrow().sessionId()).isEqualTo(owner.sessionId());
      assertThat(lease.isValid()).isTrue();
    }
  }

  // ---- refused --------------------------------------------------------------------------------

  @Test
  void plaintextClient_onTheSecurePort_isRefusedWithinItsConnectionTimeout_leavingNoThread() {
    assertRefused(Baton.builder().connectString(cluster.secureConnectString()), cluster.secureConnectString(), false);
  }

  @Test
  void clientNotTrustingTheServersCertificate_isRefused_leavingNoThread() {
    assertRefused(Baton.builder().connectString(cluster.secureConnectString())
        .tls(strangersTrust, PASSWORD).tlsClientCertificate(client.keyStore(), PASSWORD),
        cluster.secureConnectString(), true);
  }

  @Test
  void clientWithoutCertificate_isRefusedByAServerThatRequiresOne_leavingNoThread() {
    assertRefused(Baton.builder().connectString(cluster.secureConnectString()).tls(trusted, PASSWORD),
        cluster.secureConnectString(), true);
  }

  @Test
  void tlsClient_onThePlainPort_isRefused_leavingNoThread() {
    assertRefused(tlsClient().connectString(cluster.connectString()), cluster.connectString(), true);
  }

  // ---- bad input ------------------------------------------------------------------------------

  @Test
  void tls_missingOrUnreadableStore_isRejectedNamingTheArgument() {
    Path missing = folder.resolve("missing.p12");
    assertThatThrownBy(() -> Baton.builder().tls(missing, PASSWORD))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("trustStore").hasMessageContaining(missing.toString());
    assertThatThrownBy(() -> Baton.builder().tlsClientCertificate(folder, PASSWORD))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keyStore");
    assertThatThrownBy(() -> Baton.builder().tls(null, PASSWORD))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("trustStore");
  }

  @Test
  void tlsClientCertificate_withoutTls_isRejectedAtBuild() {
    assertThatThrownBy(() -> Baton.builder().connectString(cluster.secureConnectString())
        .tlsClientCertificate(client.keyStore(), PASSWORD).build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("tls(trustStore");
  }

  @Test
  void storeWhoseTypeCannotBeToldFromItsName_isRejectedAtBuild_unlessTheTypeIsGiven() throws Exception {
    Path noExtension = Files.copy(trusted, folder.resolve("truststore"));
    assertThatThrownBy(() -> Baton.builder().connectString(cluster.secureConnectString())
        .tls(noExtension, PASSWORD).tlsClientCertificate(client.keyStore(), PASSWORD).build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining(noExtension.toString())
        .hasMessageContaining("zookeeper.ssl.trustStore.type");
    try (Baton baton = Baton.builder().connectString(cluster.secureConnectString()).connectionTimeout(WAIT)
        .tls(noExtension, PASSWORD).tlsClientCertificate(client.keyStore(), PASSWORD)
        .zkClientProperty("zookeeper.ssl.trustStore.type", "PKCS12").build()) {
      assertThat(baton.connectionState().isConnected()).isTrue();
    }
  }

  // ---- helpers --------------------------------------------------------------------------------

  private static void assertRefused(Baton.Builder builder, String connectString, boolean tls) {
    Set<Thread> before = Set.copyOf(Thread.getAllStackTraces().keySet());
    Set<String> poolsBefore = before.stream().map(TlsTest::nettyPool).collect(Collectors.toSet());
    var refused = assertThatThrownBy(() -> builder.connectionTimeout(REFUSED_WITHIN).build())
        .isInstanceOf(ConnectionException.class)
        .hasMessageContaining(connectString).hasMessageContaining("within 2 s");
    if (tls) {
      refused.hasMessageContaining("trust store");
    }
    await().atMost(WAIT).untilAsserted(() -> assertThat(Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .filter(t -> !before.contains(t))
        .filter(t -> t.getName().startsWith("baton-") || t.getName().contains("SendThread")
            || t.getName().contains("EventThread") || !poolsBefore.contains(nettyPool(t)))
        .map(Thread::getName))
        .as("threads the refused client started").isEmpty());
  }

  /**
   * The pool of a Netty event loop thread ({@code epollEventLoopGroup-7-2} is thread 2 of pool
   * 7), so that the server's own worker threads, started as connections come, are told apart
   * from a client's; "" for other threads.
   */
  private static String nettyPool(Thread thread) {
    String name = thread.getName();
    if (!name.contains("EventLoopGroup-")) {
      return "";
    }
    return name.substring(0, name.lastIndexOf('-'));
  }
}
