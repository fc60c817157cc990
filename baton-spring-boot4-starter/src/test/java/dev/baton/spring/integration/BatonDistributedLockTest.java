package dev.baton.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.testkit.ZooKeeperExtension;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * Spring Integration 7's side of the registry: {@code DistributedLock}'s time-to-live and {@code
 * renewLock(key, ttl)}, each registry on a client of its own, as two processes would be.
 */
class BatonDistributedLockTest {
  @RegisterExtension
  static final ZooKeeperExtension zk = new ZooKeeperExtension();

  private RenewableLockRegistry<DistributedLock> newRegistry() {
    Baton client = zk.closing(Baton.connect(zk.connectString()));
    return new BatonLockRegistry(client::mutex, LockKeyLayout.zookeeper("/ttl"));
  }

  @Test
  void lockWithTtl_holderNeverUnlocks_releasedForOthersAndUnlockSaysItExpired() throws Exception {
    DistributedLock stuck = newRegistry().obtain("stuck");
    DistributedLock other = newRegistry().obtain("stuck");

    stuck.lock(Duration.ofMillis(500));
    stuck.lock(); // reentrant: the time-to-live ends every level of the hold

    assertThat(elsewhere(() -> other.tryLock(Duration.ofSeconds(20), Duration.ofSeconds(20))))
        .as("another process gets the lock once the time-to-live ran out").isTrue();
    assertThatThrownBy(stuck::unlock).isInstanceOf(LockExpiredException.class).hasMessageContaining("/ttl/stuck");
    assertThatThrownBy(stuck::unlock).isInstanceOf(LockExpiredException.class);
    assertThatThrownBy(stuck::unlock).as("both levels given back").isInstanceOf(IllegalMonitorStateException.class);
  }

  @Test
  void renewLockWithTtl_heldPastTheFirstTtlAndOthersWait() throws Exception {
    RenewableLockRegistry<DistributedLock> registry = newRegistry();
    DistributedLock other = newRegistry().obtain("renewed");
    assertThatThrownBy(() -> registry.renewLock("renewed", Duration.ofMinutes(5)))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("does not hold");
    DistributedLock lock = registry.obtain("renewed");
    lock.lock(Duration.ofMillis(500));
    try {
      registry.renewLock("renewed", Duration.ofMinutes(5));

      assertThat(elsewhere(() -> other.tryLock(2, TimeUnit.SECONDS)))
          .as("still held well past the first time-to-live").isFalse();
    } finally {
      lock.unlock();
    }
    assertThat(elsewhere(() -> other.tryLock(Duration.ofSeconds(20), Duration.ofSeconds(20)))).isTrue();
  }

  private static boolean elsewhere(java.util.concurrent.Callable<Boolean> task) throws Exception {
    return CompletableFuture.supplyAsync(() -> {
      try {
        return task.call();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }).get(30, TimeUnit.SECONDS);
  }
}
