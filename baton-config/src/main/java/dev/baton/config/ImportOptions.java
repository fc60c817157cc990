package dev.baton.config;

/**
 * How {@link ConfigCenter#importFrom(String, ConfigFormat, ImportOptions)} and {@link
 * ConfigCenter#planImport} treat the keys a text leaves out. Immutable; start from {@link
 * #defaults()}.
 *
 * <pre>{@code
 * ImportPlan plan = config.planImport(text, ConfigFormat.YAML, ImportOptions.defaults().withPrune());
 * plan.changes().forEach(System.out::println);   // db/url: jdbc:a -> jdbc:b, old/key: x -> (removed)
 * config.importFrom(text, ConfigFormat.YAML, ImportOptions.defaults().withPrune());
 * }</pre>
 *
 * @param prune whether keys of the config center absent from the text are deleted
 * @param allowEmpty whether a prune may go ahead when the text holds no key at all (which would
 *     delete every key): refused unless set, so that an empty or truncated file cannot wipe a config
 */
public record ImportOptions(boolean prune, boolean allowEmpty) {
  private static final ImportOptions DEFAULTS = new ImportOptions(false, false);

  /** Writes the keys of the text; the keys it leaves out are left alone. */
  public static ImportOptions defaults() {
    return DEFAULTS;
  }

  /**
   * Also deletes every key of the config center that the text leaves out (each with its revision,
   * operation {@code import}, when history is kept), in the same transactions as the writes.
   */
  public ImportOptions withPrune() {
    return new ImportOptions(true, allowEmpty);
  }

  /** Lets a prune go ahead on a text with no key at all: deletes every key. */
  public ImportOptions withAllowEmpty() {
    return new ImportOptions(prune, true);
  }
}
