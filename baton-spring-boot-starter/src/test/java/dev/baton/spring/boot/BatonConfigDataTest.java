package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.config.ConfigCenter;
import dev.baton.embedded.EmbeddedZooKeeper;
import dev.baton.testkit.ZooKeeperExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
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

  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration({BatonAutoConfiguration.class, BatonMetricsAutoConfiguration.class})
  static class AppWithClientAndMetrics {
    @Bean
    SimpleMeterRegistry meters() {
      return new SimpleMeterRegistry();
    }
  }

  /** A list imported from YAML ({@code hosts: [a, "b, c"]}) binds as a list, as Spring's own YAML gives it. */
  @Test
  void listValue_isIndexedProperties_boundItemByItem() {
    try (Baton admin = Baton.connect(zk.connectString()); ConfigCenter config = ConfigCenter.open(admin, "/config/lists")) {
      config.importFrom("shop:\n  hosts: [a, \"b, c\"]\n  name: x\n",
          dev.baton.config.ConfigFormat.YAML);
      assertThat(config.get("shop/hosts")).contains("[\"a\",\"b, c\"]");

      try (ConfigurableApplicationContext context = start("spring.config.import=baton:/config/lists",
          "baton.connect-string=" + zk.connectString())) {
        var env = context.getEnvironment();
        assertThat(Binder.get(env).bind("shop.hosts", org.springframework.boot.context.properties.bind.Bindable.listOf(String.class)).get())
            .containsExactly("a", "b, c");
        assertThat(env.getProperty("shop.hosts[1]")).isEqualTo("b, c");
        assertThat(env.getProperty("shop.hosts")).as("no JSON text for Spring to split at its commas").isNull();
        var source = (EnumerablePropertySource<?>) env.getPropertySources().get("baton:/config/lists");
        assertThat(source.getPropertyNames()).containsExactlyInAnyOrder("shop.hosts[0]", "shop.hosts[1]", "shop.name");
      }
    }
  }

  @Test
  void importAndClientBean_oneZooKeeperSessionForBoth_observedAndClosedWithTheContext() throws Exception {
    try (EmbeddedZooKeeper server = EmbeddedZooKeeper.start()) {
      try (Baton admin = Baton.connect(server.connectString()); ConfigCenter config = ConfigCenter.open(admin, "/config/shop")) {
        config.set("shop.greeting", "hello");
      }
      await().atMost(WAIT).until(() -> sessionsOn(server).isEmpty());

      try (ConfigurableApplicationContext context = new SpringApplicationBuilder(AppWithClientAndMetrics.class)
          .web(WebApplicationType.NONE).properties("spring.config.import=baton:/config/shop",
              "baton.connect-string=" + server.connectString()).run()) {
        Baton baton = context.getBean(Baton.class);
        assertThat(context.getEnvironment().getProperty("shop.greeting")).isEqualTo("hello");
        assertThat(sessionsOn(server)).as("the import's session is the Baton bean's").containsExactly(baton.sessionId());

        baton.mutex("/metered/lock").acquire(WAIT).close();

        assertThat(context.getBean(SimpleMeterRegistry.class).find("baton.lock.acquire").timer())
            .as("the shared client still records metrics").isNotNull().extracting(t -> t.count()).isEqualTo(1L);
      }
      await().atMost(WAIT).until(() -> sessionsOn(server).isEmpty());
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration(BatonAutoConfiguration.class)
  static class AppWithOwnCustomizer {
    static final AtomicInteger CUSTOMIZED = new AtomicInteger();

    @Bean
    BatonBuilderCustomizer sessionTimeout() {
      return builder -> {
        CUSTOMIZED.incrementAndGet();
        builder.sessionTimeout(Duration.ofSeconds(4));
      };
    }
  }

  @Test
  void importAndAnOwnBuilderCustomizer_beanIsAClientOfItsOwnWithTheCustomization() throws Exception {
    try (EmbeddedZooKeeper server = EmbeddedZooKeeper.start();
         ConfigurableApplicationContext context = new SpringApplicationBuilder(AppWithOwnCustomizer.class)
             .web(WebApplicationType.NONE).properties("spring.config.import=baton:/config/shop",
                 "baton.connect-string=" + server.connectString(), "baton.session-timeout=20s").run()) {
      Baton baton = context.getBean(Baton.class);

      assertThat(AppWithOwnCustomizer.CUSTOMIZED).hasPositiveValue();
      assertThat(baton.sessionTimeout()).isLessThanOrEqualTo(Duration.ofSeconds(4));
      assertThat(sessionsOn(server)).as("the import's and the bean's").hasSize(2).contains(baton.sessionId());
    }
  }

  /** The ids of the sessions the server has open, from its {@code cons} four-letter word. */
  private static Set<Long> sessionsOn(EmbeddedZooKeeper server) throws Exception {
    try (Socket socket = new Socket("127.0.0.1", server.port())) {
      socket.getOutputStream().write("cons".getBytes(StandardCharsets.US_ASCII));
      String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
      Set<Long> sessions = new TreeSet<>();
      Matcher sid = Pattern.compile("sid=0x([0-9a-f]+)").matcher(answer);
      while (sid.find()) {
        sessions.add(Long.parseUnsignedLong(sid.group(1), 16));
      }
      return sessions;
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
