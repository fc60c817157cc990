package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.embedded.EmbeddedPostgreSql;
import dev.baton.embedded.EmbeddedRedis;
import dev.baton.testkit.ZooKeeperExtension;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.actuate.autoconfigure.info.InfoContributorAutoConfiguration;
import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * Boot 4's Actuator: the health indicators are Boot 4 {@code HealthIndicator}s (the type moved to
 * {@code org.springframework.boot.health}), the info entry is there, and both can be switched off.
 */
class BatonActuatorAutoConfigurationTest {
  @RegisterExtension
  static final ZooKeeperExtension zk = new ZooKeeperExtension();
  private static EmbeddedRedis redis;

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(BatonAutoConfiguration.class, BatonRedisAutoConfiguration.class,
          BatonActuatorAutoConfiguration.class, BatonRedisActuatorAutoConfiguration.class,
          HealthContributorAutoConfiguration.class, InfoContributorAutoConfiguration.class))
      .withPropertyValues("baton.connect-string=" + zk.connectString(), "baton.namespace=/shop");

  @BeforeAll
  static void startRedis() {
    redis = EmbeddedRedis.start();
  }

  @AfterAll
  static void stopRedis() {
    redis.close();
  }

  @Test
  @SuppressWarnings("unchecked")
  void actuatorPresent_healthOfBothClientsUpAndInfoWithSettings() {
    runner.withPropertyValues("baton.redis.uri=" + redis.uri()).run(context -> {
      Map<String, HealthIndicator> indicators = context.getBeansOfType(HealthIndicator.class);
      assertThat(indicators).containsKeys("batonHealthIndicator", "batonRedisHealthIndicator");
      assertThat(indicators.get("batonHealthIndicator").health().getStatus()).isEqualTo(Status.UP);
      assertThat(indicators.get("batonHealthIndicator").health().getDetails()).containsEntry("state", "CONNECTED")
          .containsEntry("connectString", zk.connectString()).containsKey("sessionId");
      assertThat(indicators.get("batonRedisHealthIndicator").health().getDetails()).containsEntry("address", redis.uri());
      Info.Builder info = new Info.Builder();
      context.getBean(BatonInfoContributor.class).contribute(info);
      assertThat((Map<String, Object>) info.build().get("baton")).containsEntry("namespace", "/shop")
          .containsEntry("tls", false).containsEntry("auth", false);
    });
  }

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class App {
  }

  @Test
  void springApplicationWithAutoConfiguration_batonHealthContributesToBoot4sRegistry() {
    try (ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
        .properties("baton.connect-string=" + zk.connectString()).run()) {
      HealthContributorRegistry registry = context.getBean(HealthContributorRegistry.class);
      assertThat(registry.getContributor("baton")).as("found by Boot 4's own auto-configuration")
          .isInstanceOf(BatonHealthIndicator.class);
      assertThat(((HealthIndicator) registry.getContributor("baton")).health().getStatus()).isEqualTo(Status.UP);
    }
  }

  @Test
  void healthIndicatorsSwitchedOff_noIndicators() {
    runner.withPropertyValues("baton.redis.uri=" + redis.uri(), "management.health.baton.enabled=false",
        "management.health.baton-redis.enabled=false").run(context -> assertThat(context).hasNotFailed()
            .doesNotHaveBean(BatonHealthIndicator.class).doesNotHaveBean(BatonRedisHealthIndicator.class));
  }

  @Test
  void actuatorAbsent_clientWithoutHealthOrInfo() {
    // Boot's own Actuator configurations are left out too: they cannot load without Actuator.
    new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(BatonAutoConfiguration.class,
            BatonActuatorAutoConfiguration.class))
        .withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate", "org.springframework.boot.health"))
        .withPropertyValues("baton.connect-string=" + zk.connectString())
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(dev.baton.Baton.class)
            .doesNotHaveBean(BatonHealthIndicator.class).doesNotHaveBean(BatonInfoContributor.class));
  }

  @Test
  void backendJdbc_theSqlClientsHealthIsUpWithItsDatabaseAndTable() {
    EmbeddedPostgreSql postgres = EmbeddedPostgreSql.shared();
    String database = postgres.newDatabase();
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(BatonJdbcAutoConfiguration.class,
            BatonJdbcActuatorAutoConfiguration.class, HealthContributorAutoConfiguration.class))
        .withBean(DataSource.class, () -> postgres.dataSource(database))
        .withPropertyValues("baton.backend=jdbc", "baton.jdbc.create-schema=true")
        .run(context -> {
          HealthIndicator indicator = context.getBean("batonJdbcHealthIndicator", HealthIndicator.class);
          assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
          assertThat(indicator.health().getDetails()).containsEntry("state", "CONNECTED")
              .containsEntry("database", "postgresql").containsEntry("table", "baton_lock");
        });
  }
}
