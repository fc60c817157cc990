package dev.baton.cli.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.cli.command.Chromium;
import dev.baton.embedded.EmbeddedRedis;
import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import dev.baton.redis.RedisBaton;
import dev.baton.testkit.TestCluster;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The console in a real browser: headless Chromium shows the page against an embedded ZooKeeper
 * while a lock changes hands, and the page follows without a reload. The screenshot goes to
 * {@code baton-cli/target/console-screenshot.png}. Skipped, saying why, where no Chromium is
 * installed ({@code .ci/run} installs Debian's {@code chromium}).
 */
class ConsoleBrowserTest {
  private static final String TOKEN = "browser-test-token-0123456789";

  private static Baton client(TestCluster cluster) {
    return Baton.builder().connectString(cluster.connectString()).sessionTimeout(Duration.ofSeconds(30)).build();
  }

  @Test
  void thePage_withItsToken_followsALockChangingHands_live_andRevokesWithAllowWrites() throws Exception {
    Path browser = Chromium.find().orElse(null);
    Assumptions.assumeTrue(browser != null,
        "no chromium on the PATH: the browser test is skipped (apt-get install chromium to run it)");
    // Sessions of 30 s: a browser starting on two cores must not expire them.
    try (TestCluster cluster = TestCluster.builder().standalone().property("maxSessionTimeout", "30000").start();
         Baton console = client(cluster);
         Baton first = client(cluster);
         Baton second = client(cluster);
         // With a token, as an exposed console: the page takes it from its address and sends it back.
         ConsoleServer server = new ConsoleServer(console, new ConsoleModel(console, "/shop"), null, true,
             new InetSocketAddress("127.0.0.1", 0), ConsoleAccess.of(java.util.List.of(), TOKEN, false), null)) {
      server.start(Duration.ofSeconds(10));
      Mutex firstMutex = first.mutex("/shop/locks/sku-42");
      AtomicBoolean revocationAsked = new AtomicBoolean();
      AtomicReference<Lease> firstLease = new AtomicReference<>();
      Thread firstHolder = new Thread(() -> firstLease.set(firstMutex.acquire(Duration.ofSeconds(10))), "checkout-worker-1");
      firstHolder.start();
      firstHolder.join();
      firstLease.get().makeRevocable(l -> {
        revocationAsked.set(true);
        l.close();
      });
      AtomicReference<CompletableFuture<Lease>> secondLease = new AtomicReference<>();
      Thread secondWaiter = new Thread(() -> secondLease.set(second.mutex("/shop/locks/sku-42").acquireAsync()),
          "checkout-worker-2");
      secondWaiter.start();
      secondWaiter.join();

      try (Chromium page = Chromium.open(browser, "http://127.0.0.1:" + server.port() + "/#token=" + TOKEN)) {
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(page.text())
            .contains("/shop/locks/sku-42", "checkout-worker-1 token " + firstLease.get().fencingToken())
            .contains("checkout-worker-2", "waiting")
            .contains("CONNECTED"));
        page.screenshot(Path.of("target", "console-screenshot.png"));

        // The operator revokes from the page; the holder lets go, the waiter gets the lock.
        assertThat(page.clickButtonInRow("/shop/locks/sku-42", "revoke")).isTrue();
        await().atMost(Duration.ofSeconds(30)).untilTrue(revocationAsked);
        Lease next = secondLease.get().get(30, java.util.concurrent.TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(page.text())
            .contains("checkout-worker-2 token " + next.fencingToken())
            .doesNotContain("checkout-worker-1"));
        page.screenshot(Path.of("target", "console-screenshot-after-revoke.png"));
        next.close();
      }
      assertThat(Files.size(Path.of("target", "console-screenshot.png"))).isPositive();
    }
  }

  /** The Redis console in the browser: the holder with its token and the time left, then free once released. */
  @Test
  void theRedisPage_showsTheHolderWithItsExpiry_andFollowsTheRelease() throws Exception {
    Path browser = Chromium.find().orElse(null);
    Assumptions.assumeTrue(browser != null,
        "no chromium on the PATH: the browser test is skipped (apt-get install chromium to run it)");
    try (EmbeddedRedis redis = EmbeddedRedis.start();
         RedisBaton reader = RedisBaton.connect(redis.uri());
         RedisBaton holder = RedisBaton.connect(redis.uri());
         ConsoleServer server = new ConsoleServer(RedisConsoleModel.open(reader, redis.uri(), null, null, Duration.ofSeconds(10)),
             new InetSocketAddress("127.0.0.1", 0), ConsoleAccess.of(java.util.List.of(), TOKEN, false), null)) {
      server.start(Duration.ofSeconds(10));
      AtomicReference<Lease> lease = new AtomicReference<>();
      Thread worker = new Thread(() -> lease.set(holder.mutex("sku-42").acquire(Duration.ofSeconds(10))), "checkout-worker-1");
      worker.start();
      worker.join();

      try (Chromium page = Chromium.open(browser, "http://127.0.0.1:" + server.port() + "/#token=" + TOKEN)) {
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(page.text())
            .contains("sku-42", "checkout-worker-1 token " + lease.get().fencingToken(), "expires in")
            .contains(redis.uri(), "CONNECTED", "granted", "Read from Redis every second")
            .doesNotContain("revoke", "Elections"));
        page.screenshot(Path.of("target", "console-redis-screenshot.png"));
        lease.get().close();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(page.text())
            .contains("sku-42", "free")
            .doesNotContain("checkout-worker-1"));
      }
    }
  }
}
