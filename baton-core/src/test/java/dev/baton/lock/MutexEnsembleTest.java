package dev.baton.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.BatonException;
import dev.baton.HelperZk;
import dev.baton.testkit.MutualExclusionChecker;
import dev.baton.testkit.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The mutex on a 3-node ensemble whose leader is killed while clients contend: no two valid
 * holders, tokens strictly increasing, progress after the failover, no orphan nodes at the end.
 */
class MutexEnsembleTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static TestCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = TestCluster.builder().ensemble(3).property("maxSessionTimeout", "30000").start();
  }

  @AfterAll
  static void stopCluster() {
    cluster.close();
  }

  @Test
  void leaderKilledMidRun_noOverlap_tokensIncrease_progressResumes() throws Exception {
    String path = "/ensemble/leader-killed";
    MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong failures = new AtomicLong();
    List<Baton> clients = new ArrayList<>();
    ExecutorService threads = Executors.newFixedThreadPool(6);
    try {
      for (int c = 0; c < 3; c++) {
        // Each client prefers a different server, so some are connected to the leader.
        String preferred = cluster.connectString(c) + "," + cluster.connectString();
        clients.add(Baton.builder().connectString(preferred).sessionTimeout(Duration.ofSeconds(10)).build());
      }
      List<Future<?>> workers = new ArrayList<>();
      for (int t = 0; t < 6; t++) {
        Baton client = clients.get(t % 3);
        String name = "client" + (t % 3) + "-thread" + t;
        Mutex mutex = client.mutex(path);
        workers.add(threads.submit(() -> {
          while (!stop.get()) {
            try (Lease lease = mutex.acquire(WAIT)) {
              MutualExclusionChecker.Section section = checker.enter(name, lease.fencingToken());
              lease.addListener((l, state) -> section.lost(), Runnable::run);
              if (!lease.isValid()) {
                section.lost();
              }
              Thread.onSpinWait();
              section.exit();
            } catch (BatonException e) {
              failures.incrementAndGet(); // an acquire that failed during the failover; retry
            }
          }
        }));
      }
      await().atMost(WAIT).until(() -> checker.sectionCount() >= 200);
      int killed = cluster.stopLeader();
      long atKill = checker.sectionCount();
      await().atMost(WAIT).until(() -> checker.sectionCount() >= atKill + 200);
      cluster.start(killed);
      cluster.awaitServing();
      long atRestart = checker.sectionCount();
      await().atMost(WAIT).until(() -> checker.sectionCount() >= atRestart + 100);
      stop.set(true);
      for (Future<?> worker : workers) {
        worker.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      }
      checker.assertNoViolations();
      assertThat(checker.sectionsByClient()).hasSize(6);
    } finally {
      stop.set(true);
      threads.shutdownNow();
      clients.forEach(Baton::close);
    }
    await().atMost(WAIT).until(() -> HelperZk.childrenOf(cluster.connectString(), path).isEmpty());
  }
}
