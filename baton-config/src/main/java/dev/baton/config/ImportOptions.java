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
 *     delete every key in scope): refused unless set, so that an empty or truncated file cannot
 *     wipe a config
 * @param keyPrefix {@code ""} for every key; else the import's scope: the text may only hold keys
 *     at and below it, and a prune deletes only keys at and below it (for a text exported with
 *     the same key prefix)
 */
public record ImportOptions(boolean prune, boolean allowEmpty, String keyPrefix) {
  private static final ImportOptions DEFAULTS = new ImportOptions(false, false, "");

  public ImportOptions {
    java.util.Objects.requireNonNull(keyPrefix, "keyPrefix must not be null (\"\" for every key)");
  }

  /** Writes the keys of the text; the keys it leaves out are left alone. */
  public static ImportOptions defaults() {
    return DEFAULTS;
  }

  /**
   * Also deletes every key of the config center (in scope) that the text leaves out, each with its
   * revision, operation {@code import}, when history is kept, in the same transactions as the
   * writes.
   */
  public ImportOptions withPrune() {
    return new ImportOptions(true, allowEmpty, keyPrefix);
  }

  /** Lets a prune go ahead on a text with no key at all: deletes every key in scope. */
  public ImportOptions withAllowEmpty() {
    return new ImportOptions(prune, true, keyPrefix);
  }

  /**
   * Limits the import to the keys at and below {@code keyPrefix} ({@code "db"}: {@code db},
   * {@code db/url}, not {@code db2}), as {@link ConfigCenter#export} of that key prefix writes
   * them: a key of the text outside it is refused, and a prune deletes only keys inside it.
   */
  public ImportOptions withKeyPrefix(String keyPrefix) {
    return new ImportOptions(prune, allowEmpty, keyPrefix);
  }
}
