package dev.baton.internal.redis.mutex;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.embedded.EmbeddedRedis;
import dev.baton.internal.redis.RedisSession;
import dev.baton.internal.redis.RedisSettings;
import dev.baton.internal.redis.Tenure;
import dev.baton.lock.LeaseState;
import dev.baton.redis.RedisMutexOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A grant that races a local waiter's give-up in {@link LocalCohort}, made deterministic by holding the
 * cohort's monitor: the grant's callback waits at it while the give-up and a new waiter run first.
 */
class LocalCohortRaceTest {
  private EmbeddedRedis redis;
  private RedisClient rawClient;
  private StatefulRedisConnection<String, String> rawConnection;
  private RedisSession session;

  @BeforeEach
  void start() {
    redis = EmbeddedRedis.start();
    rawClient = RedisClient.create(redis.uri());
    rawConnection = rawClient.connect();
    session = RedisSession.open(new RedisSettings(redis.uri(), null, null, false, null, null, Duration.ofSeconds(2),
        Duration.ofSeconds(2), Duration.ofSeconds(3), Duration.ofSeconds(1), Duration.ofSeconds(3)));
  }

  @AfterEach
  void stop() {
    session.close();
    rawConnection.close();
    rawClient.shutdown();
    redis.close();
  }

  private RedisCommands<String, String> raw() {
    return rawConnection.sync();
  }

  /** Whether a thread other than this one waits to enter {@code monitor}. */
  private static boolean someoneBlockedOn(Object monitor) {
    int id = System.identityHashCode(monitor);
    ThreadInfo[] threads = ManagementFactory.getThreadMXBean().dumpAllThreads(false, false);
    return Arrays.stream(threads).anyMatch(t -> t.getThreadState() == Thread.State.BLOCKED
        && t.getLockInfo() != null && t.getLockInfo().getIdentityHashCode() == id);
  }

  @Test
  void aGrantRacingAGiveUp_neverRunsASecondTenureBesideOneInUse() throws Exception {
    RedisLockMutex mutex = new RedisLockMutex(session, "raced", RedisMutexOptions.defaults().withLocalHandOver(4));
    LocalCohort cohort = mutex.cohort();
    raw().set("raced", "{\"id\":\"other:1\",\"token\":1}", SetArgs.Builder.px(60_000)); // another client holds
    CompletableFuture<Tenure> first = cohort.acquire(Thread.currentThread(), -1, IllegalStateException::new);
    await().atMost(Duration.ofSeconds(10)).until(() -> raw().zcard("baton_lock_queue:{raced}") == 1);

    CompletableFuture<Tenure> second;
    synchronized (cohort) {
      // The other holder's key goes; the queued acquisition's next look is granted, and its callback waits at the monitor.
      raw().del("raced");
      await().atMost(Duration.ofSeconds(10)).until(() -> someoneBlockedOn(cohort));
      first.completeExceptionally(new CancellationException("the first waiter gave up")); // too late: granted
      second = cohort.acquire(Thread.currentThread(), -1, IllegalStateException::new);
    }
    Tenure inUse = second.get(10, TimeUnit.SECONDS); // the late grant passes to the waiter that came meanwhile
    assertThat(inUse.state()).isEqualTo(LeaseState.HELD);

    AtomicBoolean firstEndedWhenThirdBegan = new AtomicBoolean();
    CompletableFuture<Tenure> third = cohort.acquire(Thread.currentThread(), -1, IllegalStateException::new)
        .whenComplete((t, e) -> firstEndedWhenThirdBegan.set(inUse.ended()));
    // The key is lost (evicted, deleted): the hold in use hears it at its next renewal, a second
    // away; whoever queues first in Redis is told at once, as a release would tell it.
    java.util.List<String> queued = raw().zrange("baton_lock_queue:{raced}", 0, 0);
    raw().del("raced");
    queued.forEach(head -> raw().publish("baton_lock_channel:{raced}", head));
    await().atMost(Duration.ofSeconds(10)).until(() -> third.isDone() || inUse.state() == LeaseState.LOST);
    inUse.exit();

    Tenure next = third.get(10, TimeUnit.SECONDS);
    assertThat(firstEndedWhenThirdBegan).isTrue();
    assertThat(next.token()).isGreaterThan(inUse.token());
    next.exit();
  }
}
