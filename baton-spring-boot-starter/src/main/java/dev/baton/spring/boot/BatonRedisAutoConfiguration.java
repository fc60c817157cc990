package dev.baton.spring.boot;

import dev.baton.redis.RedisBaton;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * A {@link RedisBaton} from the {@code baton.redis.*} properties ({@link BatonRedisProperties})
 * when {@code baton-redis} is on the classpath, {@code baton.redis.uri} is set and the application
 * defines no {@code RedisBaton} of its own. It connects while the context starts ({@code
 * ConnectionException} naming the address if the server does not answer within the connect
 * timeout) and is closed with the context, deleting the keys of the leases it holds. Not built when
 * {@code baton.backend} names another store.
 */
@AutoConfiguration
@ConditionalOnClass(RedisBaton.class)
@ConditionalOnProperty(prefix = "baton", name = "backend", havingValue = "redis", matchIfMissing = true)
@EnableConfigurationProperties(BatonRedisProperties.class)
public class BatonRedisAutoConfiguration {

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  @ConditionalOnProperty(prefix = "baton.redis", name = "uri")
  public RedisBaton redisBaton(BatonRedisProperties properties, ObjectProvider<RedisBatonBuilderCustomizer> customizers,
      ObjectProvider<BatonBuilderCustomizer> observers) {
    RedisBaton.Builder builder = RedisBaton.builder().uri(properties.getUri());
    if (properties.getUser() != null) {
      builder.user(properties.getUser());
    }
    if (properties.getPassword() != null) {
      builder.password(properties.getPassword());
    }
    if (properties.isTls()) {
      builder.tls(true);
    }
    if (properties.getTrustStore() != null) {
      builder.trustStore(properties.getTrustStore(), properties.getTrustStorePassword());
    }
    if (properties.getConnectTimeout() != null) {
      builder.connectTimeout(properties.getConnectTimeout());
    }
    if (properties.getCommandTimeout() != null) {
      builder.commandTimeout(properties.getCommandTimeout());
    }
    if (properties.getLeaseTtl() != null) {
      builder.leaseTtl(properties.getLeaseTtl());
    }
    if (properties.getRenewEvery() != null) {
      builder.renewEvery(properties.getRenewEvery());
    }
    if (properties.getWaiterLease() != null) {
      builder.waiterLease(properties.getWaiterLease());
    }
    // The ZooKeeper client's observers (metrics, tracing) observe the Redis client too, as one.
    ObserverCustomizer.combined(observers.orderedStream().toList()).ifPresent(builder::observer);
    customizers.orderedStream().forEach(c -> c.customize(builder));
    return builder.build();
  }
}
