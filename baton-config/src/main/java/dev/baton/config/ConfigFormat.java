package dev.baton.config;

/**
 * The text formats of {@link ConfigCenter#export} and {@link ConfigCenter#importFrom}. One rule
 * lays out every format alike, so the same settings give the same keys whichever format they are
 * written in, and an export imports back to the same keys and values:
 *
 * <ul>
 *   <li><b>A name is a key path.</b> {@code /} separates levels and nothing else does: {@code .}
 *       is an ordinary character of a key's name. {@code db/url=x} (properties), {@code "db/url":
 *       "x"} (JSON) and {@code db/url: x} (YAML) are all the key {@code db/url}; {@code
 *       spring.datasource.url=x} is the key {@code spring.datasource.url} in every format, as it
 *       always was. No key is ever re-keyed by its file type. (A Spring application reads either
 *       layout: its property source maps {@code spring/datasource/url} and {@code
 *       spring.datasource.url} to the same property.)
 *   <li><b>A nested map adds a level</b> ({@code /}): {@code db: {url: x}} is the key {@code
 *       db/url}, as is {@code db/url: x}; a file that sets the same key both ways is refused,
 *       naming the key and both lines. Properties have no nesting: write {@code db/url=x}.
 *   <li><b>A list is one value: its JSON array text.</b> {@code hosts: [a, b]} is the key {@code
 *       hosts} with the value {@code ["a","b"]} (compact JSON, each item's text as written: {@code
 *       [80, 443]} is {@code [80,443]}), which {@link ConfigCenter#getList} reads as {@code [a,
 *       b]}; in properties, write that text ({@code hosts=["a","b"]}). An export writes such a
 *       value back as a list.
 *   <li><b>Scalars are text as written</b> ({@code 1.50} stays {@code 1.50}, {@code yes} stays
 *       {@code yes}); a null or empty YAML value ({@code key:}, {@code ~}, {@code null}) is the
 *       empty value {@code ""}.
 *   <li><b>A key beside its nested keys</b> ({@code db} = {@code primary} and {@code db/url}):
 *       YAML and JSON cannot make a map a value too, so an export writes {@code db: primary} and
 *       the nested keys beside it with their path, {@code db/url: x}.
 * </ul>
 */
public enum ConfigFormat {
  /**
   * Java properties: {@code db/url=jdbc\:h2\:mem} (escaped as {@link java.util.Properties} does),
   * one key a line, the name being the key as it is.
   */
  PROPERTIES,
  /**
   * YAML: a map of names to values, nested maps one level each ({@code db: {url: x}} is the key
   * {@code db/url}); an export nests the keys the same way, values unquoted where YAML allows.
   */
  YAML,
  /** JSON: an object of names to values, nested as for {@link #YAML}; an export writes values as strings. */
  JSON
}
