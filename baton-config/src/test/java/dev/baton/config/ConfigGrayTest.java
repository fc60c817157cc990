package dev.baton.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.ClusterTestSupport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Gray releases: the candidate is seen through {@code get} by exactly the instances its rule
 * matches, each instance's listeners hear exactly what it sees change (through released writes,
 * the release, promote and abort), plain readers of the key's node and config centers without
 * gray see the released value, and bad rules and keys are refused with nothing written.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConfigGrayTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private ConfigCenter instance(String prefix, String id, String zone) {
    return closing(ConfigCenter.open(baton(), prefix, ConfigOptions.defaults().withInstance(id, Map.of("zone", zone))));
  }

  private static List<String> record(ConfigCenter config) {
    List<String> heard = new CopyOnWriteArrayList<>();
    config.addListener((key, oldValue, newValue) -> heard.add(key + ":" + oldValue + "->" + newValue));
    return heard;
  }

  private static String plainRead(String path) throws Exception {
    return new String(raw.data(path), StandardCharsets.UTF_8);
  }

  @Test
  void grayRelease_seenByMatchingInstancesOnly_listenersHearWhatEachSees_thenPromote() throws Exception {
    String prefix = "/gray-promote";
    ConfigCenter operator = instance(prefix, "ops", "none");
    operator.set("k", "v1");
    ConfigCenter inA = instance(prefix, "a-1", "a");
    ConfigCenter inB = instance(prefix, "b-1", "b");
    ConfigCenter plain = closing(ConfigCenter.open(baton(), prefix));
    List<String> heardA = record(inA);
    List<String> heardB = record(inB);
    List<String> heardPlain = record(plain);

    operator.grayRelease("k", "v2", GrayRule.forLabels(Map.of("zone", "a")));

    await().atMost(WAIT).until(() -> inA.get("k").orElseThrow().equals("v2"));
    assertThat(inA.entry("k").orElseThrow().value()).as("entry is the released value and version").isEqualTo("v1");
    assertThat(inA.snapshot()).containsEntry("k", "v2");
    assertThat(inA.gray("k").map(GrayRelease::candidate)).contains("v2");
    await().atMost(WAIT).until(() -> inB.gray("k").isPresent());
    assertThat(inB.get("k")).contains("v1");
    assertThat(operator.get("k")).as("the operator's zone does not match").contains("v1");
    assertThat(plain.get("k")).contains("v1");
    assertThat(plainRead(prefix + "/k")).isEqualTo("v1");

    operator.set("k", "v1b"); // a released write during the gray release
    await().atMost(WAIT).until(() -> inB.get("k").orElseThrow().equals("v1b"));
    assertThat(inA.get("k")).contains("v2");

    assertThat(operator.promote("k").value()).isEqualTo("v2");

    await().atMost(WAIT).until(() -> inB.get("k").orElseThrow().equals("v2") && inB.gray("k").isEmpty()
        && inA.gray("k").isEmpty() && plain.get("k").orElseThrow().equals("v2"));
    assertThat(plainRead(prefix + "/k")).isEqualTo("v2");
    operator.set("marker", "m"); // every instance hears this after whatever came before
    await().atMost(WAIT).until(() -> heardA.contains("marker:null->m") && heardB.contains("marker:null->m")
        && heardPlain.contains("marker:null->m"));
    assertThat(heardA).containsExactly("k:v1->v2", "marker:null->m");
    assertThat(heardB).containsExactly("k:v1->v1b", "k:v1b->v2", "marker:null->m");
    assertThat(heardPlain).containsExactly("k:v1->v1b", "k:v1b->v2", "marker:null->m");
  }

  /**
   * Regression: promote writes the released value, then removes the candidate. An instance that
   * saw the candidate hears the removal (no read needed) before its read of the new released
   * value returns, and fell back for a moment to the old released value, telling its listeners
   * "v2 -> v1" then "v1 -> v2" though it never saw v1 again. A slow link makes that order certain.
   */
  @Test
  void promote_onASlowLink_theMatchingInstanceHearsNoChange() throws Exception {
    String prefix = "/gray-promote-slow";
    ConfigCenter operator = instance(prefix, "ops", "none");
    operator.set("k", "v1");
    dev.baton.testkit.FaultProxy proxy = closing(dev.baton.testkit.FaultProxy.start(cluster.address(0)));
    ConfigCenter canary = closing(ConfigCenter.open(baton(proxy.connectString(), Duration.ofSeconds(20)), prefix,
        ConfigOptions.defaults().withInstance("canary-1", Map.of())));
    List<String> heard = record(canary);
    operator.grayRelease("k", "v2", GrayRule.forIds("canary-1"));
    await().atMost(WAIT).until(() -> canary.get("k").orElseThrow().equals("v2"));
    proxy.delay(Duration.ofMillis(150));

    operator.promote("k");
    operator.set("marker", "m");

    await().atMost(WAIT).until(() -> heard.contains("marker:null->m"));
    proxy.delay(Duration.ZERO);
    assertThat(heard).containsExactly("k:v1->v2", "marker:null->m");
    assertThat(canary.get("k")).contains("v2");
  }

  @Test
  void abort_takesTheMatchingInstancesBack_andOthersHearNothing() throws Exception {
    String prefix = "/gray-abort";
    ConfigCenter operator = instance(prefix, "ops", "none");
    operator.set("k", "stable");
    ConfigCenter canary = instance(prefix, "canary-1", "a");
    ConfigCenter other = instance(prefix, "other-1", "b");
    List<String> heardCanary = record(canary);
    List<String> heardOther = record(other);

    operator.grayRelease("k", "risky", GrayRule.forIds("canary-1"));
    await().atMost(WAIT).until(() -> canary.get("k").orElseThrow().equals("risky"));
    assertThat(operator.abort("k")).isTrue();
    assertThat(operator.abort("k")).as("nothing left to abort").isFalse();

    await().atMost(WAIT).until(() -> canary.get("k").orElseThrow().equals("stable"));
    operator.set("marker", "m"); // every instance hears this after whatever came before
    await().atMost(WAIT).until(() -> heardOther.contains("marker:null->m") && heardCanary.contains("marker:null->m"));
    assertThat(heardCanary).containsExactly("k:stable->risky", "k:risky->stable", "marker:null->m");
    assertThat(heardOther).containsExactly("marker:null->m");
  }

  @Test
  void percentRule_isStableByInstanceId_andGrowsOnlyByAdding() {
    GrayRule ten = GrayRule.forPercent(10);
    GrayRule fifty = GrayRule.forPercent(50);
    int inTen = 0;
    for (int i = 0; i < 1000; i++) {
      String id = "host-" + i + ":8080";
      int bucket = GrayRule.bucket(id);
      assertThat(bucket).isBetween(0, 99).isEqualTo(GrayRule.bucket(id));
      if (ten.matches(id, Map.of())) {
        inTen++;
        assertThat(fifty.matches(id, Map.of())).as("raising the percentage only adds").isTrue();
      }
    }
    assertThat(inTen).as("about 10% of 1000").isBetween(50, 150);
    assertThat(GrayRule.forLabels(Map.of("zone", "a", "v", "2")).matches("x", Map.of("zone", "a"))).isFalse();
    assertThat(GrayRule.forLabels(Map.of("zone", "a")).matches("x", Map.of("zone", "a", "v", "2"))).isTrue();
    assertThat(new GrayRule(Map.of(), Set.of("x"), 0).matches("x", Map.of())).isTrue();
  }

  @Test
  void badInput_isRefused_andNothingIsWritten() throws Exception {
    assertThatThrownBy(() -> GrayRule.forPercent(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("matches no instance");
    assertThatThrownBy(() -> GrayRule.forLabels(Map.of())).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("matches no instance");
    assertThatThrownBy(() -> GrayRule.forIds()).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> GrayRule.forPercent(101)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("101");
    String prefix = "/gray-bad";
    ConfigCenter operator = instance(prefix, "ops", "none");
    operator.set("present", "v");

    assertThatThrownBy(() -> operator.grayRelease("missing", "x", GrayRule.forPercent(100)))
        .isInstanceOf(ConfigKeyMissingException.class).hasMessageContaining("missing");
    assertThatThrownBy(() -> operator.grayRelease("bad//key", "x", GrayRule.forPercent(100)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bad//key");
    assertThatThrownBy(() -> operator.promote("present")).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("No gray release");
    assertThat(raw.exists(prefix + ".gray")).isFalse();
    assertThat(operator.get("present")).contains("v");

    ConfigCenter plain = closing(ConfigCenter.open(baton(), prefix));
    assertThatThrownBy(() -> plain.grayRelease("present", "x", GrayRule.forPercent(100)))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("withInstance");
  }
}
