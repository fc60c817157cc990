package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.discovery.ServiceInstance;
import dev.baton.discovery.ServiceRegistry;
import dev.baton.testkit.ZooKeeperExtension;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The starter's service registry, each case in a context of its own against one embedded ZooKeeper. */
class BatonRegistryAutoConfigurationTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  @RegisterExtension
  static final ZooKeeperExtension zk = new ZooKeeperExtension();

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(BatonAutoConfiguration.class, BatonMetricsAutoConfiguration.class,
          BatonRegistryAutoConfiguration.class))
      .withPropertyValues("baton.connect-string=" + zk.connectString());

  private static ServiceInstance orders(String address) {
    return ServiceInstance.builder("orders").address(address).port(8080).build();
  }

  @Test
  void registryBase_set_registryThereUnregisteringWithTheContext() {
    try (Baton other = Baton.connect(zk.connectString()); ServiceRegistry theirs = ServiceRegistry.open(other, "/services")) {
      runner.withPropertyValues("baton.registry.base=/services").run(context -> {
        assertThat(context).hasNotFailed().hasSingleBean(ServiceRegistry.class);
        ServiceRegistry registry = context.getBean(ServiceRegistry.class);
        assertThat(registry.basePath()).isEqualTo("/services");
        registry.register(orders("10.0.0.1"));
        assertThat(theirs.instances("orders")).extracting(ServiceInstance::address).containsExactly("10.0.0.1");
      });

      await().atMost(WAIT).until(() -> theirs.instances("orders").isEmpty());
    }
  }

  @Test
  void noRegistryBase_noRegistry() {
    runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ServiceRegistry.class));
  }

  @Test
  void noDiscoveryModule_noRegistry() {
    runner.withPropertyValues("baton.registry.base=/services")
        .withClassLoader(new FilteredClassLoader(ServiceRegistry.class))
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ServiceRegistry.class));
  }

  @Test
  void noZooKeeperClient_noRegistry() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(BatonAutoConfiguration.class, BatonRegistryAutoConfiguration.class))
        .withPropertyValues("baton.registry.base=/services")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ServiceRegistry.class));
  }

  @Test
  void applicationsOwnRegistry_kept() {
    runner.withPropertyValues("baton.registry.base=/services").withUserConfiguration(OwnRegistry.class)
        .run(context -> {
          assertThat(context.getBeansOfType(ServiceRegistry.class)).containsOnlyKeys("own");
          assertThat(context.getBean(ServiceRegistry.class).basePath()).isEqualTo("/own-services");
        });
  }

  @Test
  void meterRegistryPresent_serviceChangesCounted() {
    runner.withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
        .withPropertyValues("baton.registry.base=/metered-services").run(context -> {
          context.getBean(ServiceRegistry.class).register(orders("10.0.0.2"));
          SimpleMeterRegistry meters = context.getBean(SimpleMeterRegistry.class);
          await().atMost(WAIT).untilAsserted(() -> {
            Counter services = meters.find("baton.registry.changes").tags("kind", "services").counter();
            assertThat(services).isNotNull();
            assertThat(services.count()).isGreaterThanOrEqualTo(1);
          });
        });
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnRegistry {
    @Bean(destroyMethod = "close")
    ServiceRegistry own(Baton baton) {
      return ServiceRegistry.open(baton, "/own-services");
    }
  }
}
