package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.ConnectionState;
import dev.baton.ConnectionStateListener;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** A Redis client's connection state through a server that dies and comes back, as listeners hear it. */
class RedisConnectionStateTest extends RedisTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @Test
  void connectionState_fresh_connectedAndNeverDown() {
    RedisBaton baton = client();

    assertThat(baton.connectionState()).isEqualTo(ConnectionState.CONNECTED);
    assertThat(baton.disconnectedSince()).isEmpty();
  }

  @Test
  void connectionState_serverKilledThenBack_suspendedThenLostAfterTheTtlThenReconnected() {
    RedisBaton baton = client(); // lease TTL 1.5 s
    List<ConnectionState> heard = new CopyOnWriteArrayList<>();
    baton.addConnectionStateListener(heard::add);
    Lease lease = baton.mutex("state").acquire(WAIT);
    List<LeaseState> leaseStates = new CopyOnWriteArrayList<>();
    lease.addListener((l, state) -> leaseStates.add(state));

    redis.kill();

    await().atMost(WAIT).until(() -> heard.contains(ConnectionState.SUSPENDED));
    assertThat(baton.disconnectedSince()).isPresent();
    await().atMost(WAIT).until(() -> baton.connectionState() == ConnectionState.LOST);
    await().atMost(WAIT).until(() -> leaseStates.contains(LeaseState.LOST));

    redis.restart();

    await().atMost(WAIT).until(() -> baton.connectionState() == ConnectionState.RECONNECTED);
    await().atMost(WAIT).until(() -> heard.size() == 3);
    assertThat(heard).containsExactly(ConnectionState.SUSPENDED, ConnectionState.LOST, ConnectionState.RECONNECTED);
    assertThat(baton.disconnectedSince()).isEmpty();
    lease.close();
    try (Lease again = baton.mutex("state").acquire(WAIT)) {
      assertThat(again.isValid()).as("locks work again once reconnected").isTrue();
    }
  }

  @Test
  void connectionState_backWithinTheTtl_suspendedThenReconnectedNeverLost() {
    RedisBaton baton = client(RedisBaton.builder().uri(redis.uri()).leaseTtl(Duration.ofMinutes(5)));
    List<ConnectionState> heard = new CopyOnWriteArrayList<>();
    baton.addConnectionStateListener(heard::add, Runnable::run);

    redis.restart();

    await().atMost(WAIT).until(() -> heard.contains(ConnectionState.RECONNECTED));
    assertThat(heard).containsExactly(ConnectionState.SUSPENDED, ConnectionState.RECONNECTED);
  }

  @Test
  void removedListener_hearsNothingMore() {
    RedisBaton baton = client(RedisBaton.builder().uri(redis.uri()).leaseTtl(Duration.ofMinutes(5)));
    List<ConnectionState> removed = new CopyOnWriteArrayList<>();
    List<ConnectionState> kept = new CopyOnWriteArrayList<>();
    ConnectionStateListener listener = removed::add;
    baton.addConnectionStateListener(listener);
    baton.addConnectionStateListener(kept::add);
    baton.removeConnectionStateListener(listener);

    redis.restart();

    await().atMost(WAIT).until(() -> kept.contains(ConnectionState.RECONNECTED));
    assertThat(removed).isEmpty();
  }
}
