package dev.baton.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.LockLostException;
import dev.baton.testkit.FaultProxy;
import dev.baton.testkit.ZooKeeperExtension;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.integration.zookeeper.lock.ZookeeperLockRegistry;

/** The registry contract on ZooKeeper, the lost lease, and Spring's ZookeeperLockRegistry beside it. */
class ZooKeeperLockRegistryContractTest extends LockRegistryContract {
  @RegisterExtension
  static final ZooKeeperExtension zk = new ZooKeeperExtension();

  private Baton client(String connectString, Duration session) {
    return zk.closing(Baton.builder().connectString(connectString).sessionTimeout(session).build());
  }

  @Override
  BatonLockRegistry newRegistry() {
    return new BatonLockRegistry(client(zk.connectString(), Duration.ofSeconds(10))::mutex, LockKeyLayout.zookeeper("/registry"));
  }

  @Test
  void unlock_afterTheSessionExpiredWhileHeld_lockLostAndRenewRefused() throws Exception {
    FaultProxy proxy = zk.closing(FaultProxy.start(zk.address()));
    BatonLockRegistry registry = new BatonLockRegistry(client(proxy.connectString(), Duration.ofSeconds(1))::mutex,
        LockKeyLayout.zookeeper("/registry"));
    Lock lock = registry.obtain("lost");
    Lock other = newRegistry().obtain("lost");
    lock.lock();
    Lease lease = registry.currentLease("lost").orElseThrow(); // per thread: Awaitility polls on another

    proxy.blackhole();
    await().atMost(Duration.ofSeconds(20)).until(() -> lease.state() == LeaseState.LOST);

    assertThatThrownBy(() -> registry.renewLock("lost")).isInstanceOf(IllegalStateException.class).hasMessageContaining("LOST");
    assertThat(CompletableFuture.supplyAsync(() -> {
      try {
        boolean got = other.tryLock(20, TimeUnit.SECONDS);
        other.unlock();
        return got;
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    }).get(30, TimeUnit.SECONDS)).as("another process gets the lock once the session is gone").isTrue();
    assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
  }

  @Test
  void zookeeperLockRegistryLayout_springsRegistryOnTheSameKey_excludeEachOther() throws Exception {
    CuratorFramework curator = CuratorFrameworkFactory.newClient(zk.connectString(), new RetryOneTime(100));
    curator.start();
    zk.closing(curator);
    ZookeeperLockRegistry spring = new ZookeeperLockRegistry(curator);
    zk.closing(spring::destroy);
    BatonLockRegistry baton = new BatonLockRegistry(client(zk.connectString(), Duration.ofSeconds(10))::mutex,
        LockKeyLayout.zookeeperLockRegistry());

    Lock ours = baton.obtain("invoice-7");
    ours.lock();
    try {
      assertThat(CompletableFuture.supplyAsync(() -> tryFor(spring.obtain("invoice-7"), 300)).get(30, TimeUnit.SECONDS))
          .as("Spring's registry while Baton's holds").isFalse();
    } finally {
      ours.unlock();
    }
    Lock theirs = spring.obtain("invoice-7");
    theirs.lock();
    try {
      assertThat(CompletableFuture.supplyAsync(() -> tryFor(baton.obtain("invoice-7"), 300)).get(30, TimeUnit.SECONDS))
          .as("Baton's registry while Spring's holds").isFalse();
    } finally {
      theirs.unlock();
    }
    assertThat(CompletableFuture.supplyAsync(() -> tryFor(baton.obtain("invoice-7"), 10_000)).get(30, TimeUnit.SECONDS))
        .as("Baton's once Spring's released").isTrue();
  }

  @Test
  void zookeeperLockRegistryLayout_nonStringKey_refusedNamingItsType() {
    BatonLockRegistry registry = new BatonLockRegistry(client(zk.connectString(), Duration.ofSeconds(10))::mutex,
        LockKeyLayout.zookeeperLockRegistry());

    assertThatThrownBy(() -> registry.obtain(42)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("java.lang.Integer");
  }

  private static boolean tryFor(Lock lock, long millis) {
    try {
      boolean got = lock.tryLock(millis, TimeUnit.MILLISECONDS);
      if (got) {
        lock.unlock();
      }
      return got;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
