package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.embedded.EmbeddedRedis;
import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code WAIT} after each grant, against a real replica of the test server. */
class ReplicaAckTest extends RedisTestSupport {
  private EmbeddedRedis replica;

  @BeforeEach
  void startReplica() {
    replica = EmbeddedRedis.builder().replicaOf(redis).start();
    await().atMost(Duration.ofSeconds(20)).until(() -> raw().info("replication").contains("connected_slaves:1"));
  }

  @AfterEach
  void stopReplica() {
    replica.close();
  }

  @Test
  void aGrantAcknowledgedByTheReplica_isHeld_andTheReplicaHasTheLock() {
    Mutex mutex = client().mutex("replicated", RedisMutexOptions.defaults().withReplicaAcks(1, Duration.ofSeconds(2)));
    try (Lease lease = mutex.acquire(Duration.ofSeconds(5))) {
      assertThat(lease.isValid()).isTrue();
      try (RedisBaton onReplica = RedisBaton.connect(replica.uri())) {
        assertThat(onReplica.mutex("replicated").holder().orElseThrow().fencingToken()).isEqualTo(lease.fencingToken());
      }
    }
  }

  @Test
  void tooFewAcknowledgements_failTheAcquisition_andReleaseTheGrant() {
    Mutex mutex = client().mutex("replicated", RedisMutexOptions.defaults().withReplicaAcks(2, Duration.ofMillis(300)));
    assertThatThrownBy(() -> mutex.acquire(Duration.ofSeconds(5)))
        .isInstanceOf(LockNotReplicatedException.class)
        .hasMessageContaining("only 1 of the 2 replicas");
    await().until(() -> raw().exists("replicated") == 0);
    assertThat(client().mutex("replicated").tryAcquire(Duration.ZERO)).isPresent();
  }
}
