package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.leader.LeaderLatch;
import dev.baton.leader.LeadershipListener;
import dev.baton.lock.Lease;
import dev.baton.testkit.FaultProxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Connection-state listeners hear SUSPENDED and RECONNECTED before any recipe listener hears what
 * the recipe made of it: code that reacts to both (pause on SUSPENDED, resume on "leader again")
 * sees them in cause-then-consequence order, as with Curator. Every listener here is on the
 * client's event executor, the default.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NotificationOrderTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @Test
  void leaderLatch_shortOutage_connectionListenersHearEachStateBeforeTheLatchListener() throws Exception {
    List<String> heard = new CopyOnWriteArrayList<>();
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0))) {
      Baton client = baton(proxy.connectString(), Duration.ofSeconds(10));
      LeaderLatch latch = closing(client.leaderLatch("/order/latch", "only"));
      latch.addListener(new LeadershipListener() {
        @Override
        public void leadershipGained(Lease leadership) {
          heard.add("leader");
        }

        @Override
        public void leadershipLost(Lease leadership) {
          heard.add("not leader");
        }
      });
      client.addConnectionStateListener(state -> heard.add(state.name()));
      latch.start();
      assertThat(latch.await(WAIT)).isTrue();
      await().atMost(WAIT).until(() -> heard.contains("leader"));

      proxy.cut();
      await().atMost(WAIT).until(() -> heard.contains("not leader"));
      proxy.restore();
      await().atMost(WAIT).until(() -> heard.size() == 5);

      assertThat(heard).containsExactly("leader", "SUSPENDED", "not leader", "RECONNECTED", "leader");
    }
  }

  @Test
  void lease_shortOutage_connectionListenersHearEachStateBeforeTheLeaseListener() throws Exception {
    List<String> heard = new CopyOnWriteArrayList<>();
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0))) {
      Baton client = baton(proxy.connectString(), Duration.ofSeconds(10));
      Lease lease = closing(client.mutex("/order/mutex").acquire(WAIT));
      lease.addListener((l, state) -> heard.add("lease " + state));
      client.addConnectionStateListener(state -> heard.add(state.name()));

      proxy.cut();
      await().atMost(WAIT).until(() -> heard.contains("lease SUSPECT"));
      proxy.restore();
      await().atMost(WAIT).until(() -> heard.size() == 4);

      assertThat(heard).containsExactly("SUSPENDED", "lease SUSPECT", "RECONNECTED", "lease HELD");
    }
  }
}
