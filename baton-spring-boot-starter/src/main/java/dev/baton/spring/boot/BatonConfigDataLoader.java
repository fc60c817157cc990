package dev.baton.spring.boot;

import dev.baton.Baton;
import dev.baton.ConnectionException;
import dev.baton.config.ConfigCenter;
import java.util.List;
import org.springframework.boot.context.config.ConfigData;
import org.springframework.boot.context.config.ConfigDataLoader;
import org.springframework.boot.context.config.ConfigDataLoaderContext;
import org.springframework.boot.context.config.ConfigDataResourceNotFoundException;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextClosedEvent;

/**
 * Opens the config center a {@code baton:} import names, on a client of its own (the application's
 * {@code Baton} bean does not exist yet when config data loads), and hands its keys to Spring as a
 * {@link ConfigCenterPropertySource}, kept current. Both are closed with the application context.
 *
 * <p>Start-up fails with {@code ConnectionException} naming the connect string if the ensemble
 * does not answer within the connection timeout; an {@code optional:} import is then skipped.
 */
public class BatonConfigDataLoader implements ConfigDataLoader<BatonConfigDataResource> {

  @Override
  public ConfigData load(ConfigDataLoaderContext context, BatonConfigDataResource resource) {
    Baton baton;
    ConfigCenter config;
    try {
      baton = BatonAutoConfiguration.builderFrom(resource.client()).build();
    } catch (ConnectionException e) {
      if (resource.optional()) {
        throw new ConfigDataResourceNotFoundException(resource, e); // skipped, as optional: asks
      }
      throw e;
    }
    try {
      config = ConfigCenter.open(baton, resource.root());
    } catch (RuntimeException e) {
      baton.close();
      throw e;
    }
    context.getBootstrapContext().addCloseListener(event -> event.getApplicationContext().addApplicationListener(
        (ApplicationListener<ContextClosedEvent>) closed -> {
          config.close();
          baton.close();
        }));
    return new ConfigData(List.of(new ConfigCenterPropertySource(config)));
  }
}
