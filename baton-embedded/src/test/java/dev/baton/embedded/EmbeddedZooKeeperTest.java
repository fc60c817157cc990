package dev.baton.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.lock.AcquireTimeoutException;
import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.server.quorum.QuorumPeerConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class EmbeddedZooKeeperTest {
  static EmbeddedZooKeeper zk;

  @BeforeAll
  static void start() {
    zk = EmbeddedZooKeeper.builder().tickTime(Duration.ofMillis(100)).forceSync(false).start();
  }

  @AfterAll
  static void stop() {
    zk.close();
  }

  @Test
  void acquireRelease_reentrant_contended() throws Exception {
    try (Baton a = Baton.connect(zk.connectString()); Baton b = Baton.connect(zk.connectString())) {
      Mutex ma = a.mutex("/smoke/lock");
      Mutex mb = b.mutex("/smoke/lock");
      Lease first = ma.acquire();
      Lease nested = ma.acquire();
      assertThat(nested.fencingToken()).isEqualTo(first.fencingToken());
      assertThat(mb.tryAcquire(Duration.ZERO)).isEmpty();
      assertThatThrownBy(() -> mb.acquire(Duration.ofMillis(200))).isInstanceOf(AcquireTimeoutException.class);
      CompletableFuture<Lease> waiting = mb.acquireAsync();
      assertThat(ma.holder()).isPresent();
      assertThat(ma.waiters()).hasSize(1);
      first.close();
      assertThat(waiting).isNotDone();
      nested.close();
      Lease second = waiting.get(5, TimeUnit.SECONDS);
      assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
      assertThat(first.isValid()).isFalse();
      assertThat(second.isValid()).isTrue();
      second.close();
    }
  }

  /** An ensemble member configured earlier in the JVM (a test's, say) leaves ZooKeeper's static standaloneEnabled false. */
  @Test
  void startsAfterAnEnsembleMemberWasConfiguredInTheSameJvm() {
    boolean before = QuorumPeerConfig.isStandaloneEnabled();
    QuorumPeerConfig.setStandaloneEnabled(false);
    try (EmbeddedZooKeeper other = EmbeddedZooKeeper.builder().tickTime(Duration.ofMillis(100)).forceSync(false).start();
         Baton client = Baton.connect(other.connectString())) {
      assertThat(client.mutex("/smoke/standalone").tryAcquire(Duration.ZERO)).isPresent();
    } finally {
      QuorumPeerConfig.setStandaloneEnabled(before);
    }
  }
}
