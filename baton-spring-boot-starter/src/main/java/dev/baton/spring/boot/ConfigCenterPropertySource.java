package dev.baton.spring.boot;

import dev.baton.config.ConfigCenter;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.core.env.EnumerablePropertySource;

/**
 * The keys of a {@link ConfigCenter} as Spring properties, read from its local copy on every
 * lookup, so a value changed in ZooKeeper is what the next {@code getProperty} returns (beans bound
 * at start-up keep what they were given, as with Spring Cloud Zookeeper Config without a refresh).
 * A key {@code spring/datasource/url} (Spring Cloud Zookeeper Config's layout) and a key {@code
 * spring.datasource.url} are both the property {@code spring.datasource.url}.
 *
 * <p>A list (a value that is JSON array text, as a config import writes {@code hosts: [a, b]}) is
 * given as Spring's own YAML loader gives one: {@code hosts[0]=a}, {@code hosts[1]=b}, and no
 * {@code hosts}; so {@code @ConfigurationProperties} bind a {@code List<String>} item by item, an
 * item with a comma in it staying whole.
 *
 * <p>Connection loss: the local copy keeps serving the last values it saw, and catches up once the
 * connection is back; a lookup never waits for the ensemble.
 */
public class ConfigCenterPropertySource extends EnumerablePropertySource<ConfigCenter> {
  private static final Pattern INDEXED = Pattern.compile("(.+)\\[(\\d{1,9})]");

  public ConfigCenterPropertySource(ConfigCenter config) {
    super("baton:" + config.prefix(), config);
  }

  @Override
  public String[] getPropertyNames() {
    Set<String> names = new LinkedHashSet<>();
    getSource().snapshot().forEach((key, value) -> {
      String name = key.replace('/', '.');
      Optional<List<String>> items = ConfigCenter.listItems(value);
      if (items.isPresent()) {
        for (int i = 0; i < items.get().size(); i++) {
          names.add(name + "[" + i + "]");
        }
      } else {
        names.add(name);
      }
    });
    return names.toArray(String[]::new);
  }

  @Override
  public Object getProperty(String name) {
    Matcher indexed = INDEXED.matcher(name);
    if (indexed.matches()) {
      int index = Integer.parseInt(indexed.group(2));
      return value(indexed.group(1)).flatMap(ConfigCenter::listItems)
          .filter(items -> index < items.size()).map(items -> items.get(index)).orElse(null);
    }
    return value(name).filter(value -> ConfigCenter.listItems(value).isEmpty()).orElse(null);
  }

  private Optional<String> value(String name) {
    ConfigCenter config = getSource();
    return config.get(name).or(() -> name.indexOf('.') < 0 ? Optional.empty() : config.get(name.replace('.', '/')));
  }
}
