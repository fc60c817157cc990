package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import dev.baton.testkit.MutualExclusionChecker;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Baton against the lock teams write by hand on the same key: {@code SET key owner NX PX ttl},
 * and a Lua compare-and-delete to release.
 */
class PlainPeerInteropTest extends RedisTestSupport {
  private static final String COMPARE_AND_DELETE =
      "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

  /** The hand-written lock, one connection per instance, as a service would have it. */
  private final class HandWrittenLock implements AutoCloseable {
    private final RedisClient client = RedisClient.create(redis.uri());
    private final StatefulRedisConnection<String, String> connection = client.connect();
    private final String owner;

    HandWrittenLock(String owner) {
      this.owner = owner;
    }

    boolean tryLock(String key) {
      return "OK".equals(commands().set(key, owner, SetArgs.Builder.nx().px(30_000)));
    }

    boolean unlock(String key) {
      Long deleted = commands().eval(COMPARE_AND_DELETE, ScriptOutputType.INTEGER, new String[] {key}, owner);
      return deleted == 1L;
    }

    RedisCommands<String, String> commands() {
      return connection.sync();
    }

    @Override
    public void close() {
      connection.close();
      client.shutdown(0, 1, TimeUnit.SECONDS);
    }
  }

  @Test
  void aBatonHold_keepsTheHandWrittenLockOut_andItsDeleteCannotFreeIt() {
    HandWrittenLock peer = closeAfter(new HandWrittenLock("host-a:8080:1700000000:4242"));
    try (Lease lease = client().mutex("invoice").acquire()) {
      assertThat(peer.tryLock("invoice")).isFalse();
      assertThat(peer.unlock("invoice")).isFalse();
      assertThat(lease.isValid()).isTrue();
    }
    await().until(() -> peer.tryLock("invoice"));
    assertThat(peer.unlock("invoice")).isTrue();
  }

  @Test
  void aHandWrittenHold_keepsBatonOut_andBatonsWaiterGetsItOnceDeleted() throws Exception {
    HandWrittenLock peer = closeAfter(new HandWrittenLock("host-b:9090:1700000000:777"));
    assertThat(peer.tryLock("invoice")).isTrue();
    Mutex mutex = client().mutex("invoice");
    assertThat(mutex.tryAcquire(Duration.ZERO)).isEmpty();
    assertThat(mutex.holder().orElseThrow().host()).isEqualTo("host-b:9090:1700000000:777");

    CompletableFuture<Lease> waiting = mutex.acquireAsync(Duration.ofSeconds(20));
    await().until(() -> mutex.waiters().size() == 1);
    assertThat(peer.unlock("invoice")).isTrue(); // the hand-written side publishes nothing

    try (Lease lease = waiting.get(15, TimeUnit.SECONDS)) {
      assertThat(peer.tryLock("invoice")).isFalse();
    }
  }

  @Test
  void mutualExclusion_betweenHandWrittenAndBatonClients_onOneKey() throws Exception {
    // The hand-written side has no tokens, so only overlap is checked.
    MutualExclusionChecker checker = MutualExclusionChecker.withCapacity(1);
    List<Callable<Void>> workers = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      HandWrittenLock peer = closeAfter(new HandWrittenLock("peer-" + i));
      String name = "hand-" + i;
      workers.add(() -> {
        for (int n = 0; n < 40; n++) {
          while (!peer.tryLock("shared")) {
            LockSupport.parkNanos(200_000); // the peer's own retry loop, as written by hand
          }
          try (MutualExclusionChecker.Section section = checker.enter(name, 0)) {
            Thread.yield();
          } finally {
            peer.unlock("shared");
          }
        }
        return null;
      });
      workers.add(Workers.batonLoop(client().mutex("shared"), checker, "baton-" + i, 40));
    }
    Workers.runAll(workers);
    checker.assertNoViolations();
    assertThat(checker.sectionCount()).isEqualTo(160);
  }
}
