package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testkit.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * One standalone test server per test class (sessions up to 30 s allowed), a raw client to look
 * at the nodes it holds, and clients and thread pools closed after each test, last made first.
 */
public abstract class ClusterTestSupport {
  public static TestCluster cluster;
  public static HelperZk raw;

  private final List<AutoCloseable> toClose = new ArrayList<>();

  @BeforeAll
  public static void startCluster() throws Exception {
    cluster = TestCluster.builder().standalone().property("maxSessionTimeout", "30000").start();
    raw = HelperZk.connect(cluster.connectString());
  }

  @AfterAll
  public static void stopCluster() throws Exception {
    if (raw != null) {
      raw.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @AfterEach
  public void closeAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
    toClose.clear();
  }

  public <T extends AutoCloseable> T closing(T resource) {
    toClose.add(resource);
    return resource;
  }

  public Baton baton(String connectString, Duration sessionTimeout) {
    return closing(Baton.builder().connectString(connectString).sessionTimeout(sessionTimeout)
        .connectionTimeout(Duration.ofSeconds(10)).build());
  }

  /** A client of the test server with a 10 s session. */
  public Baton baton() {
    return baton(cluster.connectString(), Duration.ofSeconds(10));
  }

  /** A fixed pool, shut down after the test. */
  public ExecutorService pool(int threads) {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    closing(pool::shutdownNow);
    return pool;
  }

  public static void awaitChildren(String path, int count) {
    await().atMost(Duration.ofSeconds(15)).untilAsserted(
        () -> assertThat(raw.children(path)).as("children of " + path).hasSize(count));
  }
}
