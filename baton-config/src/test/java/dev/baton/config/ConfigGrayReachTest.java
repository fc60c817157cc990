package dev.baton.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Config center instances announce themselves (an ephemeral node each under {@code
 * <prefix>.instances}, beside the gray candidates), so a gray rule that matches no live instance
 * is refused with nothing written, and the instances a release reaches can be listed, following
 * instances as they open, close and lose their session.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConfigGrayReachTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private ConfigCenter instance(Baton baton, String prefix, String id, String zone) {
    return closing(ConfigCenter.open(baton, prefix, ConfigOptions.defaults().withInstance(id, Map.of("zone", zone))));
  }

  private static List<String> ids(List<ConfigInstance> instances) {
    return instances.stream().map(ConfigInstance::id).toList();
  }

  @Test
  void grayRelease_ruleMatchingNoLiveInstance_isRefusedNamingKeyAndRule_andNothingIsWritten() throws Exception {
    String prefix = "/gray-reach-refused";
    ConfigCenter operator = instance(baton(), prefix, "ops", "none");
    ConfigCenter web = instance(baton(), prefix, "web-1", "eu-1");
    operator.set("k", "v1");
    // web's copy learns v1 through its watch; a listener added before that would hear it too.
    await().atMost(WAIT).until(() -> web.get("k").filter("v1"::equals).isPresent());
    List<String> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
    web.addListener((key, oldValue, newValue) -> heard.add(key + ":" + newValue));

    for (GrayRule nobody : List.of(GrayRule.forLabels(Map.of("zone", "us-1")), GrayRule.forIds("web-2"))) {
      assertThatThrownBy(() -> operator.grayRelease("k", "v2", nobody))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'k'").hasMessageContaining(nobody.toString())
          .hasMessageContaining("matches no live instance").hasMessageContaining("nothing was written");
    }
    assertThat(raw.exists(prefix + ".gray")).isFalse();
    assertThat(operator.gray("k")).isEmpty();
    assertThat(web.get("k")).contains("v1");
    // The plain readers' view is untouched: the announcements live beside the prefix, not in it.
    assertThat(raw.children(prefix)).containsExactly("k");
    assertThat(raw.children(prefix + ".instances")).hasSize(2);

    // A matching live instance makes the same rule good.
    operator.grayRelease("k", "v2", GrayRule.forIds("web-1"));
    await().atMost(WAIT).until(() -> web.get("k").orElseThrow().equals("v2"));
    assertThat(heard).containsExactly("k:v2");
  }

  @Test
  void grayReach_followsInstancesOpeningClosingAndLosingTheirSession() throws Exception {
    String prefix = "/gray-reach-follows";
    ConfigCenter operator = instance(baton(), prefix, "ops", "none");
    operator.set("k", "v1");
    ConfigCenter first = instance(baton(), prefix, "eu-a", "eu-1");
    instance(baton(), prefix, "us-a", "us-1");
    operator.grayRelease("k", "v2", GrayRule.forLabels(Map.of("zone", "eu-1")));

    assertThat(ids(operator.grayInstances())).containsExactly("eu-a", "ops", "us-a");
    assertThat(operator.grayInstances()).contains(new ConfigInstance("eu-a", Map.of("zone", "eu-1")));
    assertThat(ids(operator.grayReach("k"))).containsExactly("eu-a");

    dev.baton.testkit.FaultProxy proxy = closing(dev.baton.testkit.FaultProxy.start(cluster.address(0)));
    Baton secondClient = baton(proxy.connectString(), Duration.ofSeconds(1));
    ConfigCenter second = instance(secondClient, prefix, "eu-b", "eu-1");
    assertThat(ids(operator.grayReach("k"))).containsExactly("eu-a", "eu-b");
    await().atMost(WAIT).until(() -> second.get("k").orElseThrow().equals("v2"));

    first.close();
    assertThat(ids(operator.grayReach("k"))).containsExactly("eu-b");

    // Expiry takes the node with the session; the new session announces the instance again.
    long oldSession = secondClient.sessionId();
    proxy.blackhole();
    await().atMost(WAIT).until(() -> ids(operator.grayInstances()).equals(List.of("ops", "us-a")));
    assertThat(operator.grayReach("k")).isEmpty();
    proxy.restore();
    await().atMost(WAIT).until(() -> secondClient.sessionId() != oldSession);
    await().atMost(WAIT).until(() -> ids(operator.grayReach("k")).equals(List.of("eu-b")));
    assertThat(raw.children(prefix + ".instances")).as("one node per live instance").hasSize(3);

    second.close();
    assertThat(operator.grayReach("k")).isEmpty();
    assertThat(ids(operator.grayInstances())).containsExactly("ops", "us-a");
    assertThat(operator.grayReach("other")).as("a key without a gray release reaches no one").isEmpty();
  }

  @Test
  void unannouncedOperator_isNotCountedAsALiveInstance() {
    String prefix = "/gray-reach-operator";
    ConfigCenter tool = closing(ConfigCenter.open(baton(), prefix,
        ConfigOptions.defaults().withInstance("tool", Map.of()).unannounced()));
    tool.set("k", "v1");

    assertThat(tool.grayInstances()).isEmpty();
    assertThatThrownBy(() -> tool.grayRelease("k", "v2", GrayRule.forPercent(100)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("live: none");
    assertThatThrownBy(() -> ConfigOptions.defaults().unannounced()).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("withInstance");
  }
}
