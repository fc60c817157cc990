package dev.baton.spring.boot;

import dev.baton.Baton;
import dev.baton.ConnectionException;
import dev.baton.config.ConfigCenter;
import java.util.List;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.context.config.ConfigData;
import org.springframework.boot.context.config.ConfigDataLoader;
import org.springframework.boot.context.config.ConfigDataLoaderContext;
import org.springframework.boot.context.config.ConfigDataResourceNotFoundException;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.util.ClassUtils;

/**
 * Opens the config center a {@code baton:} import names and hands its keys to Spring as a {@link
 * ConfigCenterPropertySource}, kept current. The imports of one application share one client (one
 * ZooKeeper session), registered in the bootstrap context and promoted to the application context
 * as a {@link ConfigDataClient}, where it becomes the {@code Baton} bean; config centers and client
 * are closed with the application context.
 *
 * <p>Start-up fails with {@code ConnectionException} naming the connect string if the ensemble
 * does not answer within the connection timeout; an {@code optional:} import is then skipped.
 */
public class BatonConfigDataLoader implements ConfigDataLoader<BatonConfigDataResource> {
  private static final String METRICS = "dev.baton.micrometer.MicrometerObserver";
  private static final String TRACING = "dev.baton.opentelemetry.TracingObserver";

  @Override
  public ConfigData load(ConfigDataLoaderContext context, BatonConfigDataResource resource) {
    // No type named for the bootstrap context: Boot 4 moved it to another package, and this source
    // compiles against both generations.
    var bootstrap = context.getBootstrapContext();
    boolean shared = bootstrap.isRegistered(ConfigDataClient.class);
    ConfigDataClient client = shared ? bootstrap.get(ConfigDataClient.class) : connect(resource);
    ConfigCenter config;
    try {
      config = ConfigCenter.open(client.baton(), resource.root());
    } catch (RuntimeException e) {
      if (!shared) {
        client.destroy();
      }
      throw e;
    }
    client.track(config);
    if (!shared) {
      bootstrap.register(ConfigDataClient.class, registry -> client);
      bootstrap.addCloseListener(event -> promote(client, event.getApplicationContext()));
    }
    return new ConfigData(List.of(new ConfigCenterPropertySource(config)));
  }

  private static ConfigDataClient connect(BatonConfigDataResource resource) {
    Baton.Builder builder = BatonAutoConfiguration.builderFrom(resource.client());
    // Metrics and tracing are bound once the context has a meter registry or OpenTelemetry: until then an observer that waits.
    ConfigDataClient.ForwardingObserver observer = null;
    ClassLoader loader = BatonConfigDataLoader.class.getClassLoader();
    if (resource.client().getMetrics().isEnabled() && ClassUtils.isPresent(METRICS, loader)
        || resource.client().getTracing().isEnabled() && ClassUtils.isPresent(TRACING, loader)) {
      observer = new ConfigDataClient.ForwardingObserver();
      builder.observer(observer);
    }
    try {
      return new ConfigDataClient(builder.build(), observer);
    } catch (ConnectionException e) {
      if (resource.optional()) {
        throw new ConfigDataResourceNotFoundException(resource, e); // skipped, as optional: asks
      }
      throw e;
    }
  }

  private static void promote(ConfigDataClient client, ConfigurableApplicationContext context) {
    ConfigurableListableBeanFactory beans = context.getBeanFactory();
    beans.registerSingleton(ConfigDataClient.BEAN_NAME, client);
    if (beans instanceof DefaultListableBeanFactory registry) {
      // Destroyed with the context, also when its refresh fails and no close event is published.
      registry.registerDisposableBean(ConfigDataClient.BEAN_NAME, client);
    }
    // The property sources stop following the config centers before any bean is destroyed.
    context.addApplicationListener((ApplicationListener<ContextClosedEvent>) closed -> client.closeConfigs());
  }
}
