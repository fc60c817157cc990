package dev.baton.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.ClusterTestSupport;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Spring Cloud Zookeeper Config's layout: what a config center writes under {@code
 * /config/<application>,<profile>} is what Spring's reader finds, read here as that reader does
 * with plain ZooKeeper calls (each child's data is a property named by its path with dots; a
 * node without data is a folder it descends into).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SpringCloudLayoutTest extends ClusterTestSupport {

  /** Spring Cloud Zookeeper's {@code ZookeeperPropertySource}, as plain reads. */
  private static Map<String, String> springReads(String context) throws Exception {
    Map<String, String> properties = new TreeMap<>();
    read(context, "", properties);
    return properties;
  }

  private static void read(String path, String name, Map<String, String> properties) throws Exception {
    List<String> children = raw.children(path);
    for (String child : children) {
      String childPath = path + "/" + child;
      String childName = name.isEmpty() ? child : name + "." + child;
      byte[] data = raw.data(childPath);
      if (data == null || data.length == 0) {
        read(childPath, childName, properties);
      } else {
        properties.put(childName, new String(data, StandardCharsets.UTF_8));
        read(childPath, childName, properties);
      }
    }
  }

  @Test
  void propertiesWrittenThroughTheLayout_areWhatSpringsReaderFinds() throws Exception {
    String prefix = SpringCloudLayout.prefix(SpringCloudLayout.DEFAULT_ROOT, "orders", "prod");
    assertThat(prefix).isEqualTo("/config/orders,prod");
    ConfigCenter config = closing(ConfigCenter.open(baton(), prefix));

    config.set(SpringCloudLayout.key("spring.datasource.url"), "jdbc:postgresql://db/orders");
    config.set(SpringCloudLayout.key("spring.datasource.hikari.maximum-pool-size"), "20");
    config.set(SpringCloudLayout.key("server.port"), "8080");

    Map<String, String> spring = springReads("/config/orders,prod");
    assertThat(spring).containsExactly(
        Map.entry("server.port", "8080"),
        Map.entry("spring.datasource.hikari.maximum-pool-size", "20"),
        Map.entry("spring.datasource.url", "jdbc:postgresql://db/orders"));
    assertThat(SpringCloudLayout.properties(config)).isEqualTo(spring);
    assertThat(SpringCloudLayout.prefix("/config", "orders", null)).isEqualTo("/config/orders");
  }

  @Test
  void badNames_areRefused() {
    assertThatThrownBy(() -> SpringCloudLayout.prefix("/config", "a,b", "prod"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("application").hasMessageContaining("a,b");
    assertThatThrownBy(() -> SpringCloudLayout.prefix("/config", "orders", "p/q"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("profile");
    assertThatThrownBy(() -> SpringCloudLayout.key("spring..url")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("spring..url");
  }
}
