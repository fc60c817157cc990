package dev.baton.internal.config;

import java.util.List;
import java.util.Optional;

/** The one place that tells a list value (its JSON array text, as an import writes it) from text. */
public final class ConfigLists {
  private ConfigLists() {}

  /** The items of {@code value} when it is a list's JSON array text, else empty. */
  public static Optional<List<String>> items(String value) {
    if (value == null || !ConfigText.isList(value)) {
      return Optional.empty();
    }
    return Optional.of(ConfigValues.parseList("", value));
  }
}
