package dev.baton.spring.boot;

import dev.baton.spring.boot.BatonProperties.Backend;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.util.ClassUtils;

/**
 * Checks {@code baton.backend} when it is set, so that naming a store without its settings (or
 * without its module) fails at start-up naming the property to set, instead of leaving the
 * application without a {@code Coordinator} bean and an error about a missing bean. The client
 * itself comes from {@link BatonAutoConfiguration}, {@link BatonRedisAutoConfiguration} or {@link
 * BatonJdbcAutoConfiguration}, each of which stands down when the property names another store.
 */
@AutoConfiguration(before = {BatonAutoConfiguration.class, BatonRedisAutoConfiguration.class, BatonJdbcAutoConfiguration.class})
@ConditionalOnProperty(prefix = "baton", name = "backend")
@EnableConfigurationProperties(BatonProperties.class)
public class BatonBackendAutoConfiguration {

  @Bean
  InitializingBean batonBackendCheck(BatonProperties properties, Environment environment, ResourceLoader loader) {
    return () -> check(properties.getBackend(), environment, loader.getClassLoader());
  }

  static void check(Backend backend, Environment environment, ClassLoader classLoader) {
    switch (backend) {
      case ZOOKEEPER -> {
        if (!environment.containsProperty("baton.connect-string")) {
          throw new IllegalStateException("baton.backend=zookeeper needs baton.connect-string (host:port[,host:port...])");
        }
      }
      case REDIS -> {
        if (!ClassUtils.isPresent("dev.baton.redis.RedisBaton", classLoader)) {
          throw new IllegalStateException("baton.backend=redis needs dev.baton:baton-redis on the classpath");
        }
        if (!environment.containsProperty("baton.redis.uri")) {
          throw new IllegalStateException("baton.backend=redis needs baton.redis.uri (redis://host:port)");
        }
      }
      case JDBC -> {
        if (!ClassUtils.isPresent("dev.baton.jdbc.JdbcBaton", classLoader)) {
          throw new IllegalStateException("baton.backend=jdbc needs dev.baton:baton-jdbc on the classpath");
        }
        // Whether a DataSource bean will be there is known only once beans are defined: the
        // client's own factory method says so, naming both ways to give one.
      }
    }
  }
}
