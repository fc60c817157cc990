package dev.baton.spring.boot;

import dev.baton.config.ConfigCenter;
import org.springframework.core.env.EnumerablePropertySource;

/**
 * The keys of a {@link ConfigCenter} as Spring properties, read from its local copy on every
 * lookup, so a value changed in ZooKeeper is what the next {@code getProperty} returns (beans bound
 * at start-up keep what they were given, as with Spring Cloud Zookeeper Config without a refresh).
 * A key {@code spring/datasource/url} (Spring Cloud Zookeeper Config's layout) and a key {@code
 * spring.datasource.url} are both the property {@code spring.datasource.url}.
 *
 * <p>Connection loss: the local copy keeps serving the last values it saw, and catches up once the
 * connection is back; a lookup never waits for the ensemble.
 */
public class ConfigCenterPropertySource extends EnumerablePropertySource<ConfigCenter> {

  public ConfigCenterPropertySource(ConfigCenter config) {
    super("baton:" + config.prefix(), config);
  }

  @Override
  public String[] getPropertyNames() {
    return getSource().snapshot().keySet().stream().map(key -> key.replace('/', '.')).distinct().toArray(String[]::new);
  }

  @Override
  public Object getProperty(String name) {
    ConfigCenter config = getSource();
    return config.get(name).or(() -> name.indexOf('.') < 0 ? java.util.Optional.empty()
        : config.get(name.replace('.', '/'))).orElse(null);
  }
}
