package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.lock.AcquireTimeoutException;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.MultiLock;
import dev.baton.lock.MultiLock.MultiLease;
import dev.baton.lock.Mutex;
import dev.baton.testkit.FaultProxy;
import dev.baton.testkit.MutualExclusionChecker;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** The neutral multi-lock on a real Redis: global order, all or nothing, per-lock tokens. */
class RedisMultiLockTest extends RedisTestSupport {

  @Test
  void multiLocksListedInOppositeOrdersOnTwoClientsNeitherDeadlockNorOverlap() throws Exception {
    MutualExclusionChecker onA = MutualExclusionChecker.exclusive();
    MutualExclusionChecker onB = MutualExclusionChecker.exclusive();
    List<RedisBaton> clients = List.of(client(), client());
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        RedisBaton client = clients.get(i);
        String name = "client-" + i;
        Mutex a = client.mutex("/accounts/a");
        Mutex b = client.mutex("/accounts/b");
        MultiLock multi = i == 0 ? client.multiLock(a, b) : client.multiLock(b, a);
        done.add(threads.submit(() -> {
          for (int round = 0; round < 20; round++) {
            try (MultiLease lease = multi.acquire(Duration.ofSeconds(20));
                 MutualExclusionChecker.Section sa = onA.enter(name, lease.fencingToken(a));
                 MutualExclusionChecker.Section sb = onB.enter(name, lease.fencingToken(b))) {
              raw().incr("transfers"); // a round trip while holding both
            }
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      threads.shutdownNow();
    }
    onA.assertNoViolations();
    onB.assertNoViolations();
    assertThat(raw().get("transfers")).isEqualTo("40");
  }

  @Test
  void aTimeoutReleasesWhatWasTakenAndLeavesNoWaiter() {
    RedisBaton holder = client();
    Lease held = holder.mutex("/b").acquire();
    RedisBaton client = client();
    Mutex a = client.mutex("/a");
    Mutex b = client.mutex("/b");
    MultiLock multi = client.multiLock(b, a);
    assertThat(multi.locks()).extracting(Mutex::path).containsExactly("/a", "/b");

    assertThatThrownBy(() -> multi.acquire(Duration.ofMillis(300))).isInstanceOf(AcquireTimeoutException.class)
        .hasMessageContaining("/b");
    // A lease is released at once but its key is deleted in the background (Lease#close).
    await().until(() -> a.holder().isEmpty());
    await().until(() -> b.waiters().isEmpty());

    CompletableFuture<MultiLease> pending = multi.acquireAsync(Duration.ofSeconds(30));
    await().until(() -> b.waiters().size() == 1);
    pending.cancel(false);
    await().until(() -> a.holder().isEmpty());
    await().until(() -> b.waiters().isEmpty());
    held.close();

    try (MultiLease lease = multi.acquire(Duration.ofSeconds(5))) {
      assertThat(lease.state()).isEqualTo(LeaseState.HELD);
      assertThat(lease.fencingToken(b)).isGreaterThan(held.fencingToken());
      assertThat(a.holder()).isPresent();
    }
    await().until(() -> a.holder().isEmpty() && b.holder().isEmpty());
    assertThatThrownBy(() -> client.multiLock()).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> client.multiLock(a, client.mutex("/a"))).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aPartLostWhileALaterLockIsAwaitedIsGivenBackAndTheMultiLockStartsOver() {
    // /a is taken through a link that is then cut past the TTL, while /b is still awaited.
    FaultProxy proxy = closeAfter(FaultProxy.start(new InetSocketAddress(redis.host(), redis.port())));
    RedisBaton cutOff = client(RedisBaton.builder().uri("redis://" + proxy.connectString())
        .leaseTtl(Duration.ofMillis(1500)).renewEvery(Duration.ofMillis(300))
        .commandTimeout(Duration.ofMillis(500)).connectTimeout(Duration.ofMillis(500)));
    RedisBaton direct = client();
    Lease heldB = direct.mutex("/b").acquire();
    Mutex a = cutOff.mutex("/a");
    Mutex b = direct.mutex("/b");
    CompletableFuture<MultiLease> pending = direct.multiLock(a, b).acquireAsync(Duration.ofSeconds(60));
    await().until(() -> b.waiters().size() == 1);
    long firstTokenOfA = direct.mutex("/a").holder().orElseThrow().fencingToken();

    proxy.cut();
    // /a's lease is LOST and its key expires: someone else takes /a meanwhile.
    Lease intruder = direct.mutex("/a").acquire(Duration.ofSeconds(15));
    assertThat(intruder.fencingToken()).isGreaterThan(firstTokenOfA);
    await().until(() -> b.waiters().isEmpty()); // the multi-lock withdrew from /b to start over
    intruder.close();
    proxy.restore();
    heldB.close();

    MultiLease lease = pending.orTimeout(60, java.util.concurrent.TimeUnit.SECONDS).join();
    assertThat(lease.isValid()).isTrue();
    assertThat(lease.fencingToken(a)).isGreaterThan(intruder.fencingToken());
    assertThat(lease.fencingToken(b)).isGreaterThan(heldB.fencingToken());
    lease.close();
  }
}
