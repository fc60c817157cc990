package dev.baton.spring.boot;

import dev.baton.Baton;
import dev.baton.jdbc.JdbcBaton;
import dev.baton.redis.RedisBaton;
import dev.baton.shedlock.BatonLockProvider;
import net.javacrumbs.shedlock.core.LockProvider;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A ShedLock {@link LockProvider} ({@link BatonLockProvider}) when {@code baton-shedlock} is on the
 * classpath and the application defines no provider of its own: on the ZooKeeper client if there
 * is one ({@code /shedlock/<job>}), else on the Redis client ({@code shedlock:<job>}), or on the
 * SQL client with {@code baton.backend=jdbc} (the row {@code shedlock:<job>}, or {@code <job>} itself
 * when {@code baton.jdbc.shedlock-table} keeps the locks in ShedLock's own table, so that services
 * still on ShedLock's {@code JdbcTemplateLockProvider} and those on Baton skip each other's runs). Closed with
 * the context, releasing the job locks it holds. {@code @EnableSchedulerLock} stays the
 * application's to declare, as ShedLock asks.
 */
@AutoConfiguration(after = {BatonAutoConfiguration.class, BatonRedisAutoConfiguration.class, BatonJdbcAutoConfiguration.class})
@ConditionalOnClass({LockProvider.class, BatonLockProvider.class})
@ConditionalOnProperty(prefix = "baton.shedlock", name = "enabled", matchIfMissing = true)
public class BatonShedLockAutoConfiguration {

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnBean(Baton.class)
  static class OnZooKeeper {
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(LockProvider.class)
    BatonLockProvider batonLockProvider(Baton baton, BatonProperties properties) {
      String root = properties.getShedlock().getRoot();
      return BatonLockProvider.zookeeper(baton, root == null ? "/shedlock" : root);
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(RedisBaton.class)
  @ConditionalOnBean(RedisBaton.class)
  static class OnRedis {
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean({LockProvider.class, Baton.class})
    BatonLockProvider redisLockProvider(RedisBaton redis, BatonProperties properties) {
      String root = properties.getShedlock().getRoot();
      return new BatonLockProvider(redis::mutex, root == null ? "shedlock:" : root);
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(JdbcBaton.class)
  @ConditionalOnBean(JdbcBaton.class)
  static class OnJdbc {
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(LockProvider.class)
    BatonLockProvider jdbcLockProvider(JdbcBaton jdbc, BatonProperties properties,
        ObjectProvider<BatonJdbcProperties> jdbcProperties) {
      String root = properties.getShedlock().getRoot();
      BatonJdbcProperties settings = jdbcProperties.getIfAvailable();
      boolean inShedLocksTable = settings != null && settings.getShedlockTable() != null;
      String prefix = root != null ? root : inShedLocksTable ? "" : "shedlock:";
      return new BatonLockProvider(jdbc::mutex, prefix);
    }
  }
}
