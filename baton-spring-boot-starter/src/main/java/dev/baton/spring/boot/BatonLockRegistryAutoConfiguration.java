package dev.baton.spring.boot;

import dev.baton.Baton;
import dev.baton.jdbc.JdbcBaton;
import dev.baton.redis.RedisBaton;
import dev.baton.spring.boot.BatonProperties.LockRegistryLayout;
import dev.baton.spring.integration.BatonLockRegistry;
import dev.baton.spring.integration.LockKeyLayout;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * A Spring Integration {@link LockRegistry} ({@link BatonLockRegistry}) when Spring Integration is
 * on the classpath and the application defines no registry of its own. It stands on the ZooKeeper
 * client if there is one, else on the Redis client; {@code baton.lock-registry.backend} chooses when
 * both exist. With {@code baton.backend=jdbc} it stands on the SQL client, a row per key ({@code
 * locks:<key>} by default). {@code baton.lock-registry.layout=zookeeper-lock-registry} keeps Spring's {@code
 * ZookeeperLockRegistry} paths, so both registries exclude each other during a migration.
 */
@AutoConfiguration(after = {BatonAutoConfiguration.class, BatonRedisAutoConfiguration.class, BatonJdbcAutoConfiguration.class})
@ConditionalOnClass(LockRegistry.class)
@ConditionalOnProperty(prefix = "baton.lock-registry", name = "enabled", matchIfMissing = true)
public class BatonLockRegistryAutoConfiguration {

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnBean(Baton.class)
  @ConditionalOnProperty(prefix = "baton.lock-registry", name = "backend", havingValue = "zookeeper", matchIfMissing = true)
  static class OnZooKeeper {
    @Bean
    @ConditionalOnMissingBean(LockRegistry.class)
    BatonLockRegistry batonLockRegistry(Baton baton, BatonProperties properties) {
      BatonProperties.LockRegistry settings = properties.getLockRegistry();
      String root = settings.getRoot();
      LockKeyLayout layout = settings.getLayout() == LockRegistryLayout.ZOOKEEPER_LOCK_REGISTRY
          ? (root == null ? LockKeyLayout.zookeeperLockRegistry() : LockKeyLayout.zookeeperLockRegistry(root))
          : LockKeyLayout.zookeeper(root == null ? "/locks" : root);
      return new BatonLockRegistry(baton::mutex, layout);
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(RedisBaton.class)
  @ConditionalOnBean(RedisBaton.class)
  static class OnRedis {
    @Bean
    @ConditionalOnMissingBean({LockRegistry.class, Baton.class})
    @ConditionalOnProperty(prefix = "baton.lock-registry", name = "backend", havingValue = "redis", matchIfMissing = true)
    BatonLockRegistry redisOnlyLockRegistry(RedisBaton redis, BatonProperties properties) {
      return redisRegistry(redis, properties);
    }

    @Bean
    @ConditionalOnMissingBean(LockRegistry.class)
    @ConditionalOnProperty(prefix = "baton.lock-registry", name = "backend", havingValue = "redis")
    BatonLockRegistry redisLockRegistry(RedisBaton redis, BatonProperties properties) {
      return redisRegistry(redis, properties);
    }

    private static BatonLockRegistry redisRegistry(RedisBaton redis, BatonProperties properties) {
      BatonProperties.LockRegistry settings = properties.getLockRegistry();
      if (settings.getLayout() == LockRegistryLayout.ZOOKEEPER_LOCK_REGISTRY) {
        throw new IllegalStateException("baton.lock-registry.layout=zookeeper-lock-registry is a ZooKeeper"
            + " layout; the registry stands on Redis here (set baton.connect-string, or use layout=baton)");
      }
      String root = settings.getRoot();
      return new BatonLockRegistry(redis::mutex, LockKeyLayout.redis(root == null ? "locks:" : root));
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(JdbcBaton.class)
  @ConditionalOnBean(JdbcBaton.class)
  static class OnJdbc {
    @Bean
    @ConditionalOnMissingBean(LockRegistry.class)
    BatonLockRegistry jdbcLockRegistry(JdbcBaton jdbc, BatonProperties properties) {
      BatonProperties.LockRegistry settings = properties.getLockRegistry();
      if (settings.getLayout() == LockRegistryLayout.ZOOKEEPER_LOCK_REGISTRY) {
        throw new IllegalStateException("baton.lock-registry.layout=zookeeper-lock-registry is a ZooKeeper"
            + " layout; the registry stands on the SQL client here (baton.backend=jdbc): use layout=baton");
      }
      String root = settings.getRoot();
      return new BatonLockRegistry(jdbc::mutex, LockKeyLayout.jdbc(root == null ? "locks:" : root));
    }
  }
}
