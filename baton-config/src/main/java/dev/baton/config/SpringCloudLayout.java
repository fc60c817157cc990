package dev.baton.config;

import dev.baton.ZkPaths;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Spring Cloud Zookeeper Config's layout, for config centers that Spring applications read too:
 * the properties of an application in a profile live under {@code <root>/<application>,<profile>}
 * ({@code /config/orders,prod}; {@code /config/orders} and {@code /config/application} for every
 * profile), one node per property, its path below that node being the property's name with
 * {@code .} as {@code /} ({@code spring.datasource.url} is {@code spring/datasource/url}), its
 * data the value. Open a config center on {@link #prefix} and name keys with {@link #key}.
 *
 * <pre>{@code
 * ConfigCenter config = ConfigCenter.open(baton, SpringCloudLayout.prefix("/config", "orders", "prod"));
 * config.set(SpringCloudLayout.key("spring.datasource.url"), "jdbc:postgresql://db/orders");
 * }</pre>
 *
 * <p>Spring's reader takes a node with empty data for a folder, so a property set to {@code ""}
 * is not seen by Spring (Baton's folders have no data at all, and are not seen either).
 */
public final class SpringCloudLayout {
  /** Spring Cloud Zookeeper's default root. */
  public static final String DEFAULT_ROOT = "/config";

  private SpringCloudLayout() {}

  /**
   * The prefix of {@code application}'s properties in {@code profile} ({@code null} or empty: the
   * properties of every profile), under {@code root}.
   *
   * @throws IllegalArgumentException naming the argument if it is not a single node name, or has
   *     a comma (Spring's separator of application and profile)
   */
  public static String prefix(String root, String application, String profile) {
    ZkPaths.validate(Objects.requireNonNull(root, "root must not be null"), "root");
    String name = check(application, "application");
    if (profile != null && !profile.isEmpty()) {
      name = name + "," + check(profile, "profile");
    }
    return ZkPaths.join(root, name);
  }

  private static String check(String name, String what) {
    ZkPaths.validateName(Objects.requireNonNull(name, what + " must not be null"), what);
    if (name.contains(",")) {
      throw new IllegalArgumentException(what + " must not contain ',' (Spring's separator of application and"
          + " profile), was '" + name + "'");
    }
    return name;
  }

  /** The config key of a property name: {@code spring.datasource.url} is {@code spring/datasource/url}. */
  public static String key(String propertyName) {
    Objects.requireNonNull(propertyName, "propertyName must not be null");
    if (propertyName.isEmpty() || propertyName.startsWith(".") || propertyName.endsWith(".")
        || propertyName.contains("..") || propertyName.contains("/")) {
      throw new IllegalArgumentException("property name '" + propertyName + "' is not a dotted name such as"
          + " spring.datasource.url");
    }
    return propertyName.replace('.', '/');
  }

  /** The property name of a config key: {@code spring/datasource/url} is {@code spring.datasource.url}. */
  public static String propertyName(String key) {
    return Objects.requireNonNull(key, "key must not be null").replace('/', '.');
  }

  /** The config center's keys as Spring sees them: property names, non-empty values, sorted. */
  public static Map<String, String> properties(ConfigCenter config) {
    Map<String, String> properties = new TreeMap<>();
    config.snapshot().forEach((key, value) -> {
      if (!value.isEmpty()) {
        properties.put(propertyName(key), value);
      }
    });
    return properties;
  }
}
