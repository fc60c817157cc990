package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.embedded.EmbeddedRedis;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A master, its replica and a Sentinel (the shipped redis-server runs as Sentinel too): the client
 * finds the master through Sentinel, and after the master is killed and the replica promoted it
 * goes on against the new master without two holders at once.
 */
class SentinelFailoverTest extends RedisTestSupport {
  private EmbeddedRedis master;
  private EmbeddedRedis replica;
  private EmbeddedRedis sentinel;

  @BeforeEach
  void startTopology() {
    master = EmbeddedRedis.start();
    replica = EmbeddedRedis.builder().replicaOf(master).start();
    sentinel = EmbeddedRedis.sentinel(master, "orders-master");
    RedisClient admin = RedisClient.create(sentinel.uri());
    try (var connection = admin.connect()) {
      await().atMost(Duration.ofSeconds(30))
          .until(() -> connection.sync().info("sentinel").contains("slaves=1"));
    } finally {
      admin.shutdown(0, 1, TimeUnit.SECONDS);
    }
  }

  @AfterEach
  void stopTopology() {
    sentinel.close();
    replica.close();
    master.close();
  }

  private RedisBaton viaSentinel() {
    return client(RedisBaton.builder()
        .uri("redis-sentinel://" + sentinel.host() + ":" + sentinel.port() + "#orders-master")
        .leaseTtl(Duration.ofSeconds(3)).renewEvery(Duration.ofMillis(500))
        .commandTimeout(Duration.ofMillis(500)).connectTimeout(Duration.ofSeconds(2)));
  }

  @Test
  void afterAFailover_theClientFollowsTheNewMaster_andNoTwoHoldersOverlap() {
    RedisBaton first = viaSentinel();
    Lease held = first.mutex("failover").acquire();
    long token = held.fencingToken();
    await().atMost(Duration.ofSeconds(10)).until(() -> replica.isRunning()
        && rawOn(replica).contains("\"token\":" + token));

    master.kill();

    // The lease settles: kept if the promoted replica has the key, lost if not; never two holders.
    await().atMost(Duration.ofSeconds(30)).until(() -> held.state() != LeaseState.SUSPECT);
    RedisBaton second = viaSentinel();
    await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
        .until(() -> second.mutex("other").tryAcquire(Duration.ZERO).map(l -> {
          l.close();
          return true;
        }).orElse(false));
    if (held.isValid()) {
      assertThat(second.mutex("failover").tryAcquire(Duration.ZERO)).isEmpty();
    }
    held.close();
    try (Lease next = second.mutex("failover").acquire(Duration.ofSeconds(15))) {
      assertThat(next.fencingToken()).isGreaterThan(token);
    }
  }

  private static String rawOn(EmbeddedRedis server) {
    RedisClient client = RedisClient.create(server.uri());
    try (var connection = client.connect()) {
      String value = connection.sync().get("failover");
      return value == null ? "" : value;
    } finally {
      client.shutdown(0, 1, TimeUnit.SECONDS);
    }
  }
}
