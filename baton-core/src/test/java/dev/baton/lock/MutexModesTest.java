package dev.baton.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import dev.baton.testkit.FaultProxy;
import dev.baton.testkit.MutualExclusionChecker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Safety is not traded for speed: the core guarantees, checked in every mode of the mutex
 * (default, local hand-over, caching, both): mutual exclusion with Curator clients on the same
 * path, tokens strictly increasing, a lost holder told before another client enters, a waiter
 * that survives its session's expiry, and no node left once the clients close.
 */
class MutexModesTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @ParameterizedTest
  @EnumSource(MutexMode.class)
  void contentionWithCuratorClients_keepsExclusionAndTokenOrder_andLeavesNoNode(MutexMode mode) throws Exception {
    String path = "/modes/contention-" + mode;
    MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
    int sections = 25;
    ExecutorService threads = pool(11);
    List<Future<?>> done = new ArrayList<>();
    List<Baton> clients = new ArrayList<>();
    for (int c = 0; c < 3; c++) {
      Baton client = Baton.builder().connectString(cluster.connectString()).sessionTimeout(Duration.ofSeconds(10)).build();
      clients.add(client);
      Mutex mutex = client.mutex(path, mode.options);
      String name = mode + "-" + c;
      for (int t = 0; t < 3; t++) {
        done.add(threads.submit(() -> {
          for (int i = 0; i < sections; i++) {
            try (Lease lease = mutex.acquire(WAIT);
                MutualExclusionChecker.Section s = checker.enter(name, lease.fencingToken())) {
              Thread.onSpinWait();
            }
          }
          return null;
        }));
      }
    }
    CuratorFramework curator = closing(CuratorFrameworkFactory.newClient(cluster.connectString(), new RetryOneTime(100)));
    curator.start();
    for (int t = 0; t < 2; t++) {
      HelperCuratorMutex curatorMutex = new HelperCuratorMutex(curator, path);
      done.add(threads.submit(() -> {
        for (int i = 0; i < sections; i++) {
          curatorMutex.acquire();
          try (MutualExclusionChecker.Section s = checker.enter("curator", curatorMutex.ownFencingToken())) {
            Thread.onSpinWait();
          } finally {
            curatorMutex.release();
          }
        }
        return null;
      }));
    }
    for (Future<?> f : done) {
      f.get(3, TimeUnit.MINUTES);
    }
    checker.assertNoViolations();
    assertThat(checker.sectionCount()).isEqualTo(11L * sections);
    clients.forEach(Baton::close);
    awaitChildren(path, 0);
  }

  @ParameterizedTest
  @EnumSource(MutexMode.class)
  void holderLost_isToldBeforeAnotherClientEnters_whichGetsALargerToken(MutexMode mode) throws Exception {
    String path = "/modes/lost-" + mode;
    MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0))) {
      Baton holderClient = baton(proxy.connectString(), Duration.ofSeconds(1));
      Mutex holderMutex = holderClient.mutex(path, mode.options);
      holderMutex.acquire(WAIT).close(); // a cached mode now keeps the node
      Lease first = holderMutex.acquire(WAIT);
      MutualExclusionChecker.Section firstSection = checker.enter("holder", first.fencingToken());
      AtomicLong toldAt = new AtomicLong();
      // The notice is the lease's first step out of HELD: SUSPECT already means "stop acting on
      // it"; LOST follows by the client's own clock, which a loaded machine may run late.
      first.addListener((lease, state) -> {
        if (state != LeaseState.HELD && toldAt.compareAndSet(0, System.nanoTime())) {
          firstSection.lost();
        }
      }, Runnable::run);
      CompletableFuture<Lease> waiting = baton().mutex(path, mode.options).acquireAsync();
      proxy.blackhole();
      Lease second = waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      long enteredAt = System.nanoTime();
      checker.enter("waiter", second.fencingToken()).exit();
      assertThat(toldAt.get()).isNotZero().isLessThan(enteredAt);
      assertThat(first.isValid()).isFalse();
      assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
      checker.assertNoViolations();
      proxy.restore();
      await().atMost(WAIT).until(() -> first.state() == LeaseState.LOST);
      first.close();
      firstSection.exit();
      second.close();
      holderClient.close();
    }
  }

  @ParameterizedTest
  @EnumSource(MutexMode.class)
  void waiterWhoseSessionExpires_queuesAgainAndGetsTheLock(MutexMode mode) throws Exception {
    String path = "/modes/waiter-expiry-" + mode;
    Lease held = baton().mutex(path).acquire(WAIT);
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0))) {
      Baton waiterClient = baton(proxy.connectString(), Duration.ofSeconds(1));
      long firstSession = waiterClient.sessionId();
      CompletableFuture<Lease> waiting = waiterClient.mutex(path, mode.options).acquireAsync();
      awaitChildren(path, 2);
      proxy.blackhole();
      awaitChildren(path, 1); // the waiter's node went with its session
      proxy.restore();
      await().atMost(WAIT).until(() -> waiterClient.sessionId() != firstSession
          && waiterClient.connectionState().isConnected());
      awaitChildren(path, 2); // queued again on the new session
      assertThat(waiting).isNotDone();
      long heldToken = held.fencingToken();
      held.close();
      Lease got = waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(got.fencingToken()).isGreaterThan(heldToken);
      got.close();
      waiterClient.close();
    }
    awaitChildren(path, 0);
  }
}
