package dev.baton.spring.boot;

import dev.baton.Baton;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * A {@link Baton} client from the {@code baton.*} properties ({@link BatonProperties}) when {@code
 * baton.connect-string} is set and the application defines no {@code Baton} of its own. The
 * client connects while the context starts (start-up fails with {@code ConnectionException},
 * naming the connect string, if no server answers in time, unless {@code
 * baton.connect-in-background} is set) and is closed with the context, releasing its leases.
 *
 * <p>With {@code spring.config.import=baton:...} the client the import opened before the context
 * existed becomes this bean, so the application has one ZooKeeper session; unless a {@link
 * BatonBuilderCustomizer} other than the metrics one is defined (a built client cannot take it),
 * then the bean is a client of its own.
 *
 * <p>Not built when {@code baton.backend} names another store ({@link BatonBackendAutoConfiguration}).
 */
@AutoConfiguration
@ConditionalOnClass(Baton.class)
@ConditionalOnProperty(prefix = "baton", name = "backend", havingValue = "zookeeper", matchIfMissing = true)
@EnableConfigurationProperties(BatonProperties.class)
public class BatonAutoConfiguration {
  private static final Logger log = LoggerFactory.getLogger(BatonAutoConfiguration.class);

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  @ConditionalOnProperty(prefix = "baton", name = "connect-string")
  public Baton baton(BatonProperties properties, ObjectProvider<BatonBuilderCustomizer> customizers, BeanFactory beans) {
    List<BatonBuilderCustomizer> all = customizers.orderedStream().toList();
    ConfigDataClient imported = beans.getBeanProvider(ConfigDataClient.class).getIfAvailable();
    if (imported != null) {
      if (all.stream().allMatch(ObserverCustomizer.class::isInstance)) {
        ObserverCustomizer.combined(all).ifPresent(imported::observe);
        return imported.handOver();
      }
      log.info("spring.config.import=baton: opened a ZooKeeper client before the context, and BatonBuilderCustomizer"
          + " beans cannot change a client already built: the Baton bean gets a session of its own");
    }
    Baton.Builder builder = builderFrom(properties);
    // A builder keeps one observer: the metrics' and the tracing's are set together, as one.
    ObserverCustomizer.combined(all).ifPresent(builder::observer);
    all.stream().filter(c -> !(c instanceof ObserverCustomizer)).forEach(c -> c.customize(builder));
    return builder.build();
  }

  /** A builder with the {@code baton.*} properties applied (also used before the context exists, for config data). */
  static Baton.Builder builderFrom(BatonProperties properties) {
    Baton.Builder builder = Baton.builder().connectString(properties.getConnectString());
    if (properties.getSessionTimeout() != null) {
      builder.sessionTimeout(properties.getSessionTimeout());
    }
    if (properties.getConnectionTimeout() != null) {
      builder.connectionTimeout(properties.getConnectionTimeout());
    }
    if (properties.getNamespace() != null && !properties.getNamespace().isBlank()) {
      builder.namespace(properties.getNamespace());
    }
    if (properties.isConnectInBackground()) {
      builder.connectInBackground();
    }
    applyAuth(properties.getAuth(), builder);
    applyTls(properties.getTls(), builder);
    return builder;
  }

  private static void applyAuth(BatonProperties.Auth auth, Baton.Builder builder) {
    if (auth.getUser() == null && auth.getPassword() == null) {
      return;
    }
    if (auth.getUser() == null || auth.getPassword() == null) {
      throw new IllegalArgumentException("baton.auth.user and baton.auth.password go together; only "
          + (auth.getUser() == null ? "baton.auth.password" : "baton.auth.user") + " is set");
    }
    builder.digestAuth(auth.getUser(), auth.getPassword());
  }

  private static void applyTls(BatonProperties.Tls tls, Baton.Builder builder) {
    if (tls.getTrustStore() != null) {
      builder.tls(tls.getTrustStore(), tls.getTrustStorePassword());
    }
    if (tls.getKeyStore() != null) {
      if (tls.getTrustStore() == null) {
        throw new IllegalArgumentException("baton.tls.key-store needs baton.tls.trust-store: TLS starts with"
            + " the servers' trust store; the key store only adds this client's certificate");
      }
      builder.tlsClientCertificate(tls.getKeyStore(), tls.getKeyStorePassword());
    }
  }
}
