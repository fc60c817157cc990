package dev.baton.spring.boot;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the service registry that {@link BatonRegistryAutoConfiguration} opens, under {@code
 * baton.registry.*}; opened only when {@code baton-discovery} is on the classpath and {@code
 * baton.registry.base} is set.
 */
@ConfigurationProperties(prefix = "baton.registry")
public class BatonRegistryProperties {
  /** The registry's base path, such as /services (Spring Cloud Zookeeper's default layout). */
  private String base;

  public String getBase() {
    return base;
  }

  public void setBase(String base) {
    this.base = base;
  }
}
