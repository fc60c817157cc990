package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.config.ConfigCenter;
import dev.baton.testkit.ZooKeeperExtension;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.EnumerablePropertySource;

/**
 * {@code spring.config.import=baton:/config/...}: a config center's keys as Spring properties, in a
 * real Spring application started against an embedded ZooKeeper.
 */
class BatonConfigDataTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  @RegisterExtension
  static final ZooKeeperExtension zk = new ZooKeeperExtension();

  @Configuration(proxyBeanMethods = false)
  static class App {
  }

  private ConfigurableApplicationContext start(String... properties) {
    return new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE).properties(properties).run();
  }

  @Test
  void importedRoot_keysAreProperties_keptCurrent() {
    try (Baton admin = Baton.connect(zk.connectString()); ConfigCenter config = ConfigCenter.open(admin, "/config/shop")) {
      config.set("shop.greeting", "hello");
      config.set("spring/datasource/url", "jdbc:h2:mem:shop");

      try (ConfigurableApplicationContext context = start("spring.config.import=baton:/config/shop",
          "baton.connect-string=" + zk.connectString())) {
        var env = context.getEnvironment();
        assertThat(env.getProperty("shop.greeting")).isEqualTo("hello");
        assertThat(env.getProperty("spring.datasource.url")).as("Spring Cloud Zookeeper's slash layout").isEqualTo("jdbc:h2:mem:shop");
        var source = (EnumerablePropertySource<?>) env.getPropertySources().get("baton:/config/shop");
        assertThat(source).isNotNull();
        assertThat(source.getPropertyNames()).contains("shop.greeting", "spring.datasource.url");
        assertThat(Binder.get(env).bind("spring.datasource.url", String.class).get())
            .as("bound as @ConfigurationProperties would be").isEqualTo("jdbc:h2:mem:shop");

        config.set("shop.greeting", "bonjour");

        await().atMost(WAIT).until(() -> "bonjour".equals(env.getProperty("shop.greeting")));
      }
    }
  }

  @Test
  void relativeRoot_startUpFailsNamingIt() {
    assertThatThrownBy(() -> start("spring.config.import=baton:config/shop", "baton.connect-string=" + zk.connectString()))
        .hasStackTraceContaining("'config/shop'").hasStackTraceContaining("absolute");
  }

  @Test
  void noConnectString_startUpFailsNamingTheProperty() {
    assertThatThrownBy(() -> start("spring.config.import=baton:/config/shop"))
        .hasStackTraceContaining("baton.connect-string");
  }

  @Test
  void optionalImport_ensembleUnreachable_startsWithoutIt() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    try (ConfigurableApplicationContext context = start("spring.config.import=optional:baton:/config/shop",
        "baton.connect-string=127.0.0.1:" + closedPort, "baton.connection-timeout=1s")) {
      assertThat(context.getEnvironment().getPropertySources().contains("baton:/config/shop")).isFalse();
    }
  }
}
