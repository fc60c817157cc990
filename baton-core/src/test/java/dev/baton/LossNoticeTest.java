package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.leader.LeaderLatch;
import dev.baton.leader.LeadershipListener;
import dev.baton.lock.Lease;
import dev.baton.testkit.FaultProxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A holder's loss is heard before another client is granted, whatever user code does with the
 * client's async results: a {@code thenAccept} that blocks (here until the test ends) must not
 * hold back the lease's or the latch's listeners, which run on their default executor.
 */
// A hang guard, not a timing check: the steps' own bounds (two connects of 10 s, waits of 20 s) add
// up to more than a minute on a loaded machine, where 60 s once cut a run that was still going.
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class LossNoticeTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final Duration SHORT_SESSION = Duration.ofSeconds(2);

  @Test
  void blockingThenAccept_holdersLossHeardBeforeTheNextClientIsGranted() throws Exception {
    List<String> heard = new CopyOnWriteArrayList<>();
    CountDownLatch userJob = new CountDownLatch(1);
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0))) {
      Baton holder = baton(proxy.connectString(), SHORT_SESSION);
      Lease lease = holder.mutex("/notice/lock").acquire(WAIT);
      lease.addListener((l, state) -> heard.add("holder " + state));
      blockTheClientsAsyncResults(holder, "/notice/unrelated", userJob);

      CompletableFuture<Lease> next = baton().mutex("/notice/lock").acquireAsync();
      awaitChildren("/notice/lock", 2);
      proxy.cut(); // the holder's session ends on the ensemble after its timeout
      Lease granted = next.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      heard.add("next granted");

      assertThat(heard).containsExactly("holder SUSPECT", "holder LOST", "next granted");
      granted.close();
    } finally {
      userJob.countDown();
    }
  }

  @Test
  void blockingThenAccept_leadersLossHeardBeforeTheNextLeaderIsTold() throws Exception {
    List<String> heard = new CopyOnWriteArrayList<>();
    CountDownLatch userJob = new CountDownLatch(1);
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0))) {
      Baton first = baton(proxy.connectString(), SHORT_SESSION);
      LeaderLatch leader = closing(first.leaderLatch("/notice/latch", "first"));
      leader.addListener(recorder("first", heard));
      leader.start();
      assertThat(leader.await(WAIT)).isTrue();
      blockTheClientsAsyncResults(first, "/notice/unrelated-latch", userJob);

      LeaderLatch second = closing(baton().leaderLatch("/notice/latch", "second"));
      second.addListener(recorder("second", heard));
      second.start();
      awaitChildren("/notice/latch", 2);
      proxy.cut();
      await().atMost(WAIT).until(() -> heard.contains("second leads"));

      assertThat(heard).containsExactly("first leads", "first lost", "second leads");
    } finally {
      userJob.countDown();
    }
  }

  /** A user's job in {@code thenAccept} of an async acquire, holding the thread it runs on. */
  private static void blockTheClientsAsyncResults(Baton client, String path, CountDownLatch release) {
    CountDownLatch running = new CountDownLatch(1);
    client.mutex(path).acquireAsync().thenAccept(lease -> {
      running.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      lease.close();
    });
    await().atMost(WAIT).until(() -> running.getCount() == 0);
  }

  private static LeadershipListener recorder(String who, List<String> heard) {
    return new LeadershipListener() {
      @Override
      public void leadershipGained(Lease leadership) {
        heard.add(who + " leads");
      }

      @Override
      public void leadershipLost(Lease leadership) {
        heard.add(who + " lost");
      }
    };
  }
}
