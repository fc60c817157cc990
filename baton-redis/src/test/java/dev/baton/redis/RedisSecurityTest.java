package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.ConnectionException;
import dev.baton.embedded.EmbeddedRedis;
import dev.baton.lock.Lease;
import dev.baton.testkit.TestCertificates;
import io.lettuce.core.AclCategory;
import io.lettuce.core.RedisClient;
import io.lettuce.core.protocol.CommandType;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A password, an ACL user and TLS, each against a real redis-server set up for it. */
class RedisSecurityTest extends RedisTestSupport {

  @Test
  void aPasswordProtectedServer_acceptsTheRightPassword_andNamesTheServerOnAWrongOne() {
    try (EmbeddedRedis secured = EmbeddedRedis.builder().arg("--requirepass", "s3cret-pass").start()) {
      RedisBaton baton = client(RedisBaton.builder().uri(secured.uri()).password("s3cret-pass"));
      try (Lease lease = baton.mutex("guarded").acquire(Duration.ofSeconds(5))) {
        assertThat(lease.isValid()).isTrue();
      }
      assertThatThrownBy(() -> RedisBaton.builder().uri(secured.uri()).password("wrong").build())
          .isInstanceOf(ConnectionException.class)
          .hasMessageContaining(secured.host() + ":" + secured.port());
    }
  }

  @Test
  void anAclUser_withTheRightsALockNeeds_canLock() {
    try (EmbeddedRedis secured = EmbeddedRedis.builder().arg("--requirepass", "admin-pass").start()) {
      RedisClient admin = RedisClient.create("redis://admin-pass@" + secured.host() + ":" + secured.port());
      try (var connection = admin.connect()) {
        // The rights the README lists for a lock user.
        connection.sync().aclSetuser("locker", io.lettuce.core.AclSetuserArgs.Builder.on()
            .addPassword("locker-pass").allKeys().allChannels()
            .addCategory(AclCategory.READ).addCategory(AclCategory.WRITE).addCategory(AclCategory.SCRIPTING)
            .addCategory(AclCategory.PUBSUB).addCategory(AclCategory.CONNECTION)
            .addCommand(CommandType.TIME).addCommand(CommandType.WAIT));
      } finally {
        admin.shutdown(0, 1, TimeUnit.SECONDS);
      }
      RedisBaton baton = client(RedisBaton.builder().uri(secured.uri()).user("locker").password("locker-pass"));
      try (Lease lease = baton.mutex("acl").acquire(Duration.ofSeconds(5))) {
        assertThat(baton.mutex("acl").holder().orElseThrow().fencingToken()).isEqualTo(lease.fencingToken());
      }
    }
  }

  @Test
  void tls_withTheServersCertificateTrusted_works_andWithoutTrust_failsNamingTheServer(@TempDir Path dir) throws Exception {
    TestCertificates.Identity server = TestCertificates.selfSigned(dir, "redis-server", "changeit");
    TestCertificates.PemFiles pem = TestCertificates.pem(server, dir);
    Path trust = TestCertificates.trustStore(dir.resolve("trust.p12"), "changeit", server);
    int tlsPort;
    try (ServerSocket socket = new ServerSocket()) {
      socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      tlsPort = socket.getLocalPort();
    }
    try (EmbeddedRedis secured = EmbeddedRedis.builder().arg("--tls-port", Integer.toString(tlsPort),
        "--tls-cert-file", pem.certificate().toString(), "--tls-key-file", pem.privateKey().toString(),
        "--tls-ca-cert-file", pem.certificate().toString(), "--tls-auth-clients", "no").start()) {
      String uri = "rediss://" + secured.host() + ":" + tlsPort;
      RedisBaton baton = client(RedisBaton.builder().uri(uri).trustStore(trust, "changeit"));
      try (Lease lease = baton.mutex("tls").acquire(Duration.ofSeconds(5))) {
        assertThat(lease.isValid()).isTrue();
      }
      assertThatThrownBy(() -> RedisBaton.builder().uri(uri).connectTimeout(Duration.ofSeconds(3)).build())
          .isInstanceOf(ConnectionException.class)
          .hasMessageContaining(secured.host() + ":" + tlsPort);
    }
    assertThatThrownBy(() -> RedisBaton.builder().trustStore(dir.resolve("missing.p12"), "x"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("missing.p12");
  }
}
