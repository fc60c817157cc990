package dev.baton.redis.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Coordinator;
import dev.baton.lock.FencedResource;
import dev.baton.lock.Lease;
import dev.baton.lock.StaleTokenException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fencing tokens across an asynchronous failover when the lock's counter is ahead of the promoted
 * replica's clock. A token is the larger of the counter plus one and the serving master's clock in
 * microseconds; the counter's last increment may be lost with the master, so only the clock carries
 * the lost grant's token over, and it does not when the counter is ahead of it (as a master whose
 * clock ran ahead of its replica's leaves it). The counter is set ahead by hand here, standing for
 * that skew: both servers run on this machine's one clock.
 */
class RedisFailoverFencingTest {
  @RegisterExtension
  static final RedisFailoverBackend BACKEND = new RedisFailoverBackend();

  @Test
  @Disabled("Known defect, not fixed: with the counter ahead of the promoted replica's clock (a master"
      + " whose clock ran ahead of its replica's), the next holder after a failover that lost a grant"
      + " gets the lost grant's token again, and a FencedResource takes the lost holder's late write."
      + " Run with -Djunit.jupiter.conditions.deactivate=org.junit.*DisabledCondition to see it.")
  void aCounterAheadOfThePromotedReplicasClock_stillGivesTheNextHolderALargerTokenThanTheLostGrant() {
    String name = "skewed-failover";
    long aMinuteAhead = (System.currentTimeMillis() + 60_000) * 1000;
    BACKEND.onMaster(c -> c.sync().set("baton_lock_token:{" + name + "}", Long.toString(aMinuteAhead)));
    Coordinator first = BACKEND.newClient(Duration.ofSeconds(20));
    BACKEND.holdBackReplication();
    Lease lost = first.mutex(name).acquire(Duration.ofSeconds(10));
    FencedResource<StringBuilder> resource = new FencedResource<>(name, new StringBuilder());

    BACKEND.failOver();
    Coordinator second = BACKEND.newClient();
    AtomicReference<Lease> granted = new AtomicReference<>();
    Awaitility.await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
      second.mutex(name).tryAcquire(Duration.ofMillis(300)).ifPresent(granted::set);
      return granted.get() != null;
    });
    Lease next = granted.get();
    resource.write(next.fencingToken(), log -> log.append("new holder "));

    assertThat(next.fencingToken()).as("the new holder's token against the lost grant's").isGreaterThan(lost.fencingToken());
    assertThatThrownBy(() -> resource.write(lost.fencingToken(), log -> log.append("lost holder ")))
        .isInstanceOf(StaleTokenException.class);
    next.close();
    lost.close();
  }
}
