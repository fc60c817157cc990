package dev.baton.spring.boot;

import java.util.List;
import org.springframework.boot.context.config.ConfigDataLocation;
import org.springframework.boot.context.config.ConfigDataLocationResolver;
import org.springframework.boot.context.config.ConfigDataLocationResolverContext;
import org.springframework.util.ClassUtils;

/**
 * Reads {@code spring.config.import=baton:/config/app} (or {@code optional:baton:...}): the
 * config center at {@code /config/app}, reached with the {@code baton.*} client settings of the
 * files imported so far ({@code baton.connect-string} is required).
 */
public class BatonConfigDataLocationResolver implements ConfigDataLocationResolver<BatonConfigDataResource> {
  static final String PREFIX = "baton:";

  @Override
  public boolean isResolvable(ConfigDataLocationResolverContext context, ConfigDataLocation location) {
    return location.hasPrefix(PREFIX) && ClassUtils.isPresent("dev.baton.config.ConfigCenter", getClass().getClassLoader());
  }

  /**
   * @throws IllegalArgumentException if the root is not an absolute path, or {@code
   *     baton.connect-string} is not set, naming the location
   */
  @Override
  public List<BatonConfigDataResource> resolve(ConfigDataLocationResolverContext context, ConfigDataLocation location) {
    String root = location.getNonPrefixedValue(PREFIX);
    if (!root.startsWith("/")) {
      throw new IllegalArgumentException("spring.config.import=" + location + " must name an absolute config"
          + " center root, such as baton:/config/app; was '" + root + "'");
    }
    BatonProperties client = context.getBinder().bind("baton", BatonProperties.class).orElseGet(BatonProperties::new);
    if (client.getConnectString() == null || client.getConnectString().isBlank()) {
      throw new IllegalArgumentException("spring.config.import=" + location + " needs baton.connect-string,"
          + " set before the import (in application.yaml or the environment)");
    }
    return List.of(new BatonConfigDataResource(root, client, location.isOptional()));
  }
}
