package dev.baton.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.testkit.ZooKeeperExtension;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** ShedLock's provider cases on ZooKeeper, each node a client of its own. */
class ZooKeeperLockProviderTest extends LockProviderContract {
  @RegisterExtension
  static final ZooKeeperExtension zk = new ZooKeeperExtension();

  /** Through the public factory, as users make it. */
  @Override
  BatonLockProvider newProvider() {
    Baton baton = zk.closing(Baton.connect(zk.connectString()));
    return zk.closing(BatonLockProvider.zookeeper(baton, "/shedlock"));
  }

  @Override
  BatonLockProvider newProvider(ScheduledExecutorService timer) {
    Baton baton = zk.closing(Baton.connect(zk.connectString()));
    return zk.closing(new BatonLockProvider(baton::semaphoreMutex, "/shedlock/", timer));
  }

  @Test
  void lock_held_aSemaphoreMutexBelowTheRootWithAToken() throws Exception {
    BatonLockProvider provider = newProvider();
    var lock = provider.lock(config("nightly-report")).orElseThrow();
    try (Baton look = Baton.connect(zk.connectString())) {
      assertThat(look.semaphoreMutex("/shedlock/nightly-report").holder()).as("holder of the job's node").isPresent();
    }
    assertThat(provider.currentLease("nightly-report").orElseThrow().fencingToken()).isPositive();
    lock.unlock();
  }

  @Test
  void zookeeper_relativeRoot_refusedNamingIt() {
    try (Baton baton = Baton.connect(zk.connectString())) {
      assertThatThrownBy(() -> BatonLockProvider.zookeeper(baton, "shedlock"))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'shedlock'");
    }
  }
}
