package dev.baton.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.ClusterTestSupport;
import dev.baton.OutcomeUnknownException;
import dev.baton.testkit.FaultProxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Writes of the config center when the connection fails around them: a write made while the link
 * is cut waits and is applied once; a write whose reply is lost (it reached the ensemble, then
 * the link broke) is never applied twice, and says so when it cannot tell what happened.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConfigFaultTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private FaultProxy proxy;
  private ConfigCenter config;

  private void behindProxy(String prefix) {
    proxy = closing(FaultProxy.start(cluster.address(0)));
    config = closing(ConfigCenter.open(baton(proxy.connectString(), Duration.ofSeconds(20)), prefix));
  }

  @Test
  void writeMadeWhileCut_waitsForTheConnection_andIsAppliedOnce() throws Exception {
    behindProxy("/cfg-fault-cut");
    config.set("k", "1");
    proxy.cut();
    await().atMost(WAIT).until(() -> !config.isSynced());

    CompletableFuture<ConfigEntry> pending = CompletableFuture.supplyAsync(() -> config.update("k", "2"));
    proxy.restore();

    assertThat(pending.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(new ConfigEntry("k", "2", 1));
    assertThat(stat("/cfg-fault-cut/k").getVersion()).isEqualTo(1);
    assertThat(config.get("k")).contains("2");
  }

  @Test
  void createReplyLost_isReportedAsOutcomeUnknown_andCreatedOnce() throws Exception {
    behindProxy("/cfg-fault-create");
    config.set("other", "x"); // the prefix exists: the create is one request

    Throwable failure = (Throwable) replyLost(() -> config.create("k", "v"), "/cfg-fault-create/k", "v");

    assertThat(failure).isInstanceOf(OutcomeUnknownException.class)
        .hasMessageContaining("/cfg-fault-create/k").hasMessageContaining("may or may not have been applied");
    assertThat(stat("/cfg-fault-create/k").getVersion()).isZero();
    await().atMost(WAIT).until(() -> config.get("k").isPresent());
  }

  @Test
  void updateReplyLost_findsItsValueThere_andReturnsWithoutWritingAgain() throws Exception {
    behindProxy("/cfg-fault-update");
    config.set("k", "old");

    Object result = replyLost(() -> config.update("k", "new"), "/cfg-fault-update/k", "new");

    assertThat(result).isEqualTo(new ConfigEntry("k", "new", 1));
    assertThat(stat("/cfg-fault-update/k").getVersion()).as("written once").isEqualTo(1);
    assertThat(config.get("k")).contains("new");
  }

  @Test
  void compareAndSetReplyLost_isNeverAppliedTwice_andReportsOutcomeUnknown() throws Exception {
    behindProxy("/cfg-fault-cas");
    config.set("k", "1");

    Throwable failure = (Throwable) replyLost(() -> config.compareAndSet("k", 0, "2"), "/cfg-fault-cas/k", "2");

    assertThat(failure).isInstanceOf(OutcomeUnknownException.class).hasMessageContaining("/cfg-fault-cas/k");
    assertThat(stat("/cfg-fault-cas/k").getVersion()).as("written once").isEqualTo(1);
  }

  @Test
  void deleteReplyLost_returnsTrue_theKeyIsGone() throws Exception {
    behindProxy("/cfg-fault-delete");
    config.set("k", "1");
    config.set("other", "x");

    Object result = replyLost(() -> config.delete("k"), "/cfg-fault-delete/k", null);

    assertThat(result).isEqualTo(true);
    assertThat(raw.exists("/cfg-fault-delete/k")).isFalse();
    assertThat(config.get("k")).isEmpty();
  }

  /**
   * Runs {@code write} through a slow link, waits until the ensemble has applied it ({@code path}
   * holds {@code value}, or is gone for null), then cuts the link while the reply is still in the
   * proxy's delay line. Returns the write's result, or what it threw.
   */
  private Object replyLost(Supplier<Object> write, String path, String value) throws Exception {
    proxy.delay(Duration.ofMillis(500));
    CompletableFuture<Object> pending = CompletableFuture.supplyAsync(write);
    await().atMost(WAIT).until(() -> value == null ? !raw.exists(path)
        : raw.exists(path) && value.equals(new String(raw.data(path), StandardCharsets.UTF_8)));
    proxy.cut(); // the reply is dropped
    assertThat(pending).as("the reply never came").isNotDone();
    proxy.delay(Duration.ZERO);
    proxy.restore();
    try {
      return pending.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }

  private static Stat stat(String path) throws Exception {
    return raw.zk().exists(path, false);
  }
}
