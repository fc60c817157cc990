package dev.baton.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.embedded.EmbeddedZooKeeper;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** ShedLock's provider cases on ZooKeeper, each node a client of its own. */
class ZooKeeperLockProviderTest extends LockProviderContract {
  private static EmbeddedZooKeeper zk;
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @BeforeAll
  static void startServer() {
    zk = EmbeddedZooKeeper.start();
  }

  @AfterAll
  static void stopServer() {
    zk.close();
  }

  @AfterEach
  void closeAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  @Override
  BatonLockProvider newProvider() {
    Baton baton = Baton.connect(zk.connectString());
    toClose.add(baton);
    BatonLockProvider provider = BatonLockProvider.zookeeper(baton, "/shedlock");
    toClose.add(provider);
    return provider;
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
