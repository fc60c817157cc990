package dev.baton.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.ClusterTestSupport;
import dev.baton.testkit.FaultProxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Gray releases when several operators act at once, or a key's life moves on under its
 * candidate: {@code promote} acts on the candidate the ensemble holds, not on the promoter's copy,
 * and a candidate belongs to the key it was released beside.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConfigGrayConsistencyTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private ConfigCenter instance(String prefix, String id) {
    return closing(ConfigCenter.open(baton(), prefix, ConfigOptions.defaults().withInstance(id, Map.of())));
  }

  /** An instance whose link to the ensemble is slow: its copy hears others' writes late. */
  private ConfigCenter slowInstance(String prefix, String id, FaultProxy proxy) {
    return closing(ConfigCenter.open(baton(proxy.connectString(), Duration.ofSeconds(20)), prefix,
        ConfigOptions.defaults().withInstance(id, Map.of())));
  }

  private static String plainRead(String path) throws Exception {
    return new String(raw.data(path), StandardCharsets.UTF_8);
  }

  @Test
  void promote_afterAnAbortElsewhere_isRefused_andReleasesNothing() throws Exception {
    String prefix = "/gray-promote-aborted";
    ConfigCenter other = instance(prefix, "other");
    other.set("k", "v1");
    FaultProxy proxy = closing(FaultProxy.start(cluster.address(0)));
    ConfigCenter promoter = slowInstance(prefix, "promoter", proxy);
    other.grayRelease("k", "risky", GrayRule.forIds("other"));
    await().atMost(WAIT).until(() -> promoter.gray("k").isPresent());
    proxy.cut(); // the promoter's copy keeps the candidate it saw
    await().atMost(WAIT).until(() -> !promoter.isSynced());

    assertThat(other.abort("k")).isTrue();
    CompletableFuture<ConfigEntry> promote = whileDisconnected(() -> promoter.promote("k"), proxy);

    assertThatThrownBy(() -> promote.get(WAIT.toSeconds(), TimeUnit.SECONDS)).cause()
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("No gray release");
    assertThat(plainRead(prefix + "/k")).isEqualTo("v1");
    await().atMost(WAIT).until(() -> promoter.gray("k").isEmpty());
    assertThat(promoter.get("k")).contains("v1");
  }

  @Test
  void promote_afterANewerGrayReleaseElsewhere_releasesTheNewerCandidate() throws Exception {
    String prefix = "/gray-promote-newer";
    ConfigCenter other = instance(prefix, "other");
    other.set("k", "v1");
    FaultProxy proxy = closing(FaultProxy.start(cluster.address(0)));
    ConfigCenter promoter = slowInstance(prefix, "promoter", proxy);
    other.grayRelease("k", "v2", GrayRule.forIds("other"));
    await().atMost(WAIT).until(() -> promoter.gray("k").isPresent());
    proxy.cut();
    await().atMost(WAIT).until(() -> !promoter.isSynced());

    other.grayRelease("k", "v3", GrayRule.forIds("other"));
    CompletableFuture<ConfigEntry> promote = whileDisconnected(() -> promoter.promote("k"), proxy);

    assertThat(promote.get(WAIT.toSeconds(), TimeUnit.SECONDS).value()).isEqualTo("v3");
    assertThat(plainRead(prefix + "/k")).isEqualTo("v3");
    assertThat(raw.exists(prefix + ".gray/k")).isFalse();
    assertThat(promoter.get("k")).as("read-your-writes").contains("v3");
    assertThat(promoter.gray("k")).isEmpty();
  }

  /**
   * A promote whose reply is lost after the ensemble applied it: the gray node is gone and the key
   * holds the candidate, so it was this call's, and it returns the entry instead of failing or
   * writing again.
   */
  @Test
  void promoteReplyLost_findsItApplied_andReturnsTheEntry() throws Exception {
    String prefix = "/gray-promote-lost";
    ConfigCenter other = instance(prefix, "other");
    other.set("k", "v1");
    FaultProxy proxy = closing(FaultProxy.start(cluster.address(0)));
    ConfigCenter promoter = slowInstance(prefix, "promoter", proxy);
    other.grayRelease("k", "v2", GrayRule.forIds("other"));
    await().atMost(WAIT).until(() -> promoter.gray("k").isPresent());
    proxy.delay(Duration.ofMillis(500));

    CompletableFuture<ConfigEntry> promote = CompletableFuture.supplyAsync(() -> promoter.promote("k"));
    await().atMost(WAIT).until(() -> !raw.exists(prefix + ".gray/k"));
    proxy.cut(); // the transaction's reply is dropped
    assertThat(promote).as("the reply never came").isNotDone();
    proxy.delay(Duration.ZERO);
    proxy.restore();

    assertThat(promote.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(new ConfigEntry("k", "v2", 1));
    assertThat(raw.zk().exists(prefix + "/k", false).getVersion()).as("written once").isEqualTo(1);
  }

  /**
   * Starts {@code call} while the proxy is cut, waits until it is waiting for the connection
   * (so it has read whatever it reads of its local copy), then restores the link.
   */
  private static <T> CompletableFuture<T> whileDisconnected(Supplier<T> call, FaultProxy proxy) {
    AtomicReference<Thread> caller = new AtomicReference<>();
    CompletableFuture<T> result = CompletableFuture.supplyAsync(() -> {
      caller.set(Thread.currentThread());
      return call.get();
    });
    await().atMost(WAIT).pollInterval(Duration.ofMillis(1))
        .until(() -> result.isDone() || caller.get() != null && caller.get().getState() == Thread.State.TIMED_WAITING);
    proxy.restore();
    return result;
  }

  @Test
  void aCandidate_doesNotOutliveItsKey() {
    String prefix = "/gray-key-recreated";
    ConfigCenter operator = instance(prefix, "ops");
    ConfigCenter canary = instance(prefix, "canary");
    operator.set("k", "v1");
    operator.grayRelease("k", "candidate-of-v1", GrayRule.forIds("canary"));
    await().atMost(WAIT).until(() -> canary.get("k").orElseThrow().equals("candidate-of-v1"));
    List<String> heard = new CopyOnWriteArrayList<>();
    canary.addListener((key, oldValue, newValue) -> heard.add(key + ":" + oldValue + "->" + newValue));

    assertThat(operator.delete("k")).isTrue();
    operator.set("k", "new-life");
    operator.set("marker", "m"); // the canary hears this after the key's new life
    await().atMost(WAIT).until(() -> heard.contains("marker:null->m"));

    assertThat(canary.get("k")).contains("new-life");
    assertThat(canary.snapshot()).containsEntry("k", "new-life");
    assertThat(canary.gray("k")).isEmpty();
    assertThat(heard).containsExactly("k:candidate-of-v1->null", "k:null->new-life", "marker:null->m");
    assertThatThrownBy(() -> operator.promote("k")).isInstanceOf(IllegalStateException.class);
    assertThat(operator.get("k")).contains("new-life");
  }

  /**
   * Regression: listeners of a matching instance were kept from hearing the old released value
   * for a moment after a promote, but reads were not: {@code get} went candidate, old value,
   * candidate. The slow link holds the window open until the instance's released copy catches up.
   */
  @Test
  void promote_onASlowLink_theMatchingInstanceNeverReadsTheOldValue() throws Exception {
    String prefix = "/gray-promote-read";
    ConfigCenter operator = instance(prefix, "ops");
    operator.set("k", "v1");
    FaultProxy proxy = closing(FaultProxy.start(cluster.address(0)));
    ConfigCenter canary = slowInstance(prefix, "canary", proxy);
    operator.grayRelease("k", "v2", GrayRule.forIds("canary"));
    await().atMost(WAIT).until(() -> canary.get("k").orElseThrow().equals("v2"));
    proxy.delay(Duration.ofMillis(150));

    operator.promote("k");

    List<String> read = new CopyOnWriteArrayList<>();
    await().atMost(WAIT).pollInterval(Duration.ofMillis(1)).until(() -> {
      read.add(canary.get("k").orElse(null) + "/" + canary.snapshot().get("k"));
      return canary.gray("k").isEmpty() && canary.isSynced();
    });
    proxy.delay(Duration.ZERO);
    assertThat(read).containsOnly("v2/v2");
    await().atMost(WAIT).until(() -> canary.entry("k").orElseThrow().value().equals("v2"));
    assertThat(canary.get("k")).contains("v2");
  }

  /**
   * A matching instance's entry is the released value with its version: the pair a
   * compare-and-set writes on. Pairing the candidate's text with the released version made a
   * read-modify-write publish a candidate-based value to every instance.
   */
  @Test
  void entry_onAMatchingInstance_isTheReleasedValueAndVersion() throws Exception {
    String prefix = "/gray-entry";
    ConfigCenter operator = instance(prefix, "ops");
    operator.set("k", "released");
    ConfigCenter canary = instance(prefix, "canary");
    operator.grayRelease("k", "candidate", GrayRule.forIds("canary"));
    await().atMost(WAIT).until(() -> canary.get("k").orElseThrow().equals("candidate"));

    ConfigEntry entry = canary.entry("k").orElseThrow();
    assertThat(entry).isEqualTo(new ConfigEntry("k", "released", 0));
    assertThat(canary.compareAndSet("k", entry.version(), entry.value() + "+1")).isTrue();
    assertThat(plainRead(prefix + "/k")).isEqualTo("released+1");
    assertThat(canary.get("k")).as("the candidate is still what the canary runs on").contains("candidate");
  }
}
