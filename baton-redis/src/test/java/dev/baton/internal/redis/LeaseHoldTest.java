package dev.baton.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.embedded.EmbeddedRedis;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The interleavings {@link LeaseHoldLincheckTest} found, as plain tests. */
class LeaseHoldTest {
  private EmbeddedRedis redis;
  private RedisSession session;

  @BeforeEach
  void start() {
    redis = EmbeddedRedis.start();
    session = RedisSession.open(new RedisSettings(redis.uri(), null, null, false, null, null, Duration.ofSeconds(2),
        Duration.ofSeconds(2), Duration.ofSeconds(60), Duration.ofSeconds(1), Duration.ofSeconds(3)));
  }

  @AfterEach
  void stop() {
    session.close();
    redis.close();
  }

  /** A grant whose release Redis answers at once, in memory. */
  private final class Hold extends LeaseHold {
    Hold() {
      super(session, "checked", 1, Duration.ofSeconds(60), true, System.nanoTime());
    }

    @Override
    protected CompletableFuture<Long> renewCommand(boolean extend) {
      return CompletableFuture.completedFuture(1L);
    }

    @Override
    protected CompletableFuture<?> releaseCommand() {
      return CompletableFuture.completedFuture(null);
    }
  }

  @Test
  void aHoldReleasedUnderItsHolder_tellsTheListenerRELEASEDOnce_whenTheHolderThenCloses() {
    Hold hold = new Hold();
    Tenure tenure = new Tenure(hold, hold.token(), hold::release);
    Lease lease = tenure.newLease();
    List<LeaseState> heard = new CopyOnWriteArrayList<>();
    lease.addListener((l, state) -> heard.add(state), Runnable::run);

    hold.releaseOnClose(); // the client closes while the lease is held
    lease.close();         // then the holder closes its lease

    assertThat(heard).containsExactly(LeaseState.RELEASED);
  }
}
