package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.embedded.EmbeddedRedis;
import dev.baton.embedded.EmbeddedRedisCluster;
import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code WAIT} in a cluster of two masters where only the second has a replica: a lock is
 * confirmed exactly when its own master has one, which it could not be if {@code WAIT} went to
 * any other node than the one that ran the lock's script.
 */
class RedisClusterReplicaTest {
  private static EmbeddedRedisCluster cluster;
  private static EmbeddedRedis replica;
  private static RedisClient rawClient;
  private static RedisBaton baton;

  @BeforeAll
  static void startCluster() {
    cluster = EmbeddedRedis.cluster(2);
    replica = cluster.addReplica(cluster.nodes().get(1));
    rawClient = RedisClient.create(replica.uri());
    baton = RedisBaton.connect(cluster.uri());
  }

  @AfterAll
  static void stopCluster() {
    if (baton != null) {
      baton.close();
    }
    if (rawClient != null) {
      rawClient.shutdown(0, 1, TimeUnit.SECONDS);
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private static String nameOn(EmbeddedRedis master) {
    for (int i = 0; ; i++) {
      if (cluster.nodeForSlot(SlotHash.getSlot("replicated-" + i)) == master) {
        return "replicated-" + i;
      }
    }
  }

  private static Mutex replicated(String name, int acks) {
    return baton.mutex(name, RedisMutexOptions.defaults().withReplicaAcks(acks, Duration.ofSeconds(1)));
  }

  @Test
  void aLockOnTheMasterWithAReplica_isConfirmed_andTheReplicaHasIt() {
    String name = nameOn(cluster.nodes().get(1));
    try (Lease lease = replicated(name, 1).acquire(Duration.ofSeconds(5));
         StatefulRedisConnection<String, String> onReplica = rawClient.connect()) {
      assertThat(lease.isValid()).isTrue();
      onReplica.sync().readOnly(); // a cluster replica redirects reads unless told otherwise
      assertThat(onReplica.sync().get(name)).contains("\"token\":" + lease.fencingToken());
    }
  }

  @Test
  void aLockOnTheMasterWithoutAReplica_isRefused_andItsGrantReleased() {
    String name = nameOn(cluster.nodes().get(0));
    assertThatThrownBy(() -> replicated(name, 1).acquire(Duration.ofSeconds(5)))
        .isInstanceOf(LockNotReplicatedException.class)
        .hasMessageContaining("only 0 of the 1");
    await().until(() -> baton.mutex(name).holder().isEmpty());
    baton.mutex(name).tryAcquire(Duration.ZERO).orElseThrow().close();
  }

  @Test
  void tooFewAcknowledgements_onTheMasterWithAReplica_failTheAcquisition() {
    String name = nameOn(cluster.nodes().get(1));
    assertThatThrownBy(() -> replicated(name, 2).acquire(Duration.ofSeconds(5)))
        .isInstanceOf(LockNotReplicatedException.class)
        .hasMessageContaining("only 1 of the 2");
  }
}
