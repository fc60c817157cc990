package dev.baton.spring.boot;

import java.util.Objects;
import org.springframework.boot.context.config.ConfigDataResource;

/** A config center's root named by {@code spring.config.import=baton:/config/app}, with the client settings to reach it. */
final class BatonConfigDataResource extends ConfigDataResource {
  private final String root;
  private final BatonProperties client;
  private final boolean optional;

  BatonConfigDataResource(String root, BatonProperties client, boolean optional) {
    super(optional);
    this.root = root;
    this.client = client;
    this.optional = optional;
  }

  boolean optional() {
    return optional;
  }

  String root() {
    return root;
  }

  BatonProperties client() {
    return client;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof BatonConfigDataResource that && root.equals(that.root);
  }

  @Override
  public int hashCode() {
    return Objects.hash(root);
  }

  @Override
  public String toString() {
    return "baton:" + root;
  }
}
