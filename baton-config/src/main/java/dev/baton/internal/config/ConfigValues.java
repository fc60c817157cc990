package dev.baton.internal.config;

import dev.baton.ZkPaths;
import dev.baton.config.ConfigValueException;
import dev.baton.internal.session.NodeSizes;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.zookeeper.data.ACL;

/** A config center's rules for keys and values: validation, the size limit, typed parsing. Pure functions. */
final class ConfigValues {

  private static final Pattern AMOUNT_AND_UNIT =
      Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ns|us|µs|ms|s|m|min|h|d)", Pattern.CASE_INSENSITIVE);

  private ConfigValues() {}

  /**
   * Returns {@code key} if it is a valid relative path below {@code prefix}.
   *
   * @throws IllegalArgumentException naming the key and the rule it breaks
   */
  static String validateKey(String prefix, String key) {
    Objects.requireNonNull(key, "config key must not be null");
    if (key.isEmpty() || key.startsWith("/") || key.endsWith("/")) {
      throw new IllegalArgumentException("config key " + ZkPaths.describe(key) + " must be a path relative to"
          + " the prefix " + prefix + ", such as db/url: not empty, no leading or trailing '/'");
    }
    ZkPaths.validate(ZkPaths.join(prefix, key), "config key " + ZkPaths.describe(key) + ": the path");
    return key;
  }

  /**
   * Refuses a key whose node path alone (with its folders' creates, which carry the same path
   * length at most, and an empty value) cannot fit one request: the server would drop the
   * connection, and every retry after the reconnect would be dropped again.
   *
   * @throws IllegalArgumentException naming the key, shortened, and the limit
   */
  static void checkPathSize(String key, String serverPath, List<ACL> acl, int maxPacket) {
    if (NodeSizes.maxCreateData(serverPath, acl, maxPacket) < 0) {
      throw new IllegalArgumentException("config key " + ZkPaths.describe(key) + " is too long: its node's path"
          + " takes " + NodeSizes.utf8Length(serverPath) + " bytes, and a request for it would not fit ZooKeeper's"
          + " packet limit (jute.maxbuffer) of " + maxPacket + " bytes; nothing was sent");
    }
  }

  /** The value as stored: UTF-8. */
  /**
   * A key as one node name, for the trees kept beside the prefix (history, gray releases):
   * {@code db/url} is {@code db%2Furl}, so a key and its nested keys never share a folder there.
   */
  static String flatName(String key) {
    return key.replace("%", "%25").replace("/", "%2F");
  }

  /** The key of a {@link #flatName}. */
  static String keyOfFlatName(String name) {
    return name.replace("%2F", "/").replace("%25", "%");
  }

  static byte[] encode(String value) {
    Objects.requireNonNull(value, "value must not be null");
    return value.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * @throws IllegalArgumentException naming the key, its path, the size and the limit
   */
  static void checkSize(String key, String path, byte[] data, int max, int maxPacket) {
    if (data.length > max) {
      throw new IllegalArgumentException("The value for config key '" + key + "' is " + data.length
          + " bytes (UTF-8), over the " + max + " bytes its node " + path + " can hold (ZooKeeper's"
          + " jute.maxbuffer of " + maxPacket + " bytes, less the request's overhead); nothing was"
          + " written. Keep large values elsewhere and store a reference.");
    }
  }

  /** Whether {@code key} is {@code keyPrefix} or lies below it. */
  static boolean isAtOrBelow(String key, String keyPrefix) {
    return key.equals(keyPrefix) || key.startsWith(keyPrefix + "/");
  }

  private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper()
      .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  /**
   * Comma-separated items, or a JSON array of scalars (as an import of a list writes it): {@code
   * ["a","b, c",1]} has the three items {@code a}, {@code b, c} and {@code 1} (nulls dropped).
   */
  static List<String> parseList(String key, String value) {
    String stripped = value.strip();
    if (stripped.startsWith("[") && stripped.endsWith("]")) {
      try {
        com.fasterxml.jackson.databind.JsonNode array = JSON.readTree(stripped);
        if (array != null && array.isArray()) {
          List<String> items = new ArrayList<>();
          boolean scalars = true;
          for (com.fasterxml.jackson.databind.JsonNode item : array) {
            scalars &= item.isValueNode() || item.isNull();
            if (!item.isNull()) {
              items.add(item.asText());
            }
          }
          if (scalars) {
            return List.copyOf(items);
          }
        }
      } catch (java.io.IOException e) {
        // not JSON: comma-separated, as any other text
      }
    }
    List<String> items = new ArrayList<>();
    for (String item : value.split(",")) {
      if (!item.isBlank()) {
        items.add(item.strip());
      }
    }
    return List.copyOf(items);
  }

  static Map<String, String> parseMap(String key, String value) {
    Map<String, String> map = new LinkedHashMap<>();
    for (String item : parseList(key, value)) {
      int equals = item.indexOf('=');
      if (equals <= 0) {
        throw malformed(key, value, "Map", "comma-separated name=value pairs such as eu=3, us=1 (at '" + item + "')",
            null);
      }
      map.put(item.substring(0, equals).strip(), item.substring(equals + 1).strip());
    }
    return java.util.Collections.unmodifiableMap(map);
  }

  static int parseInt(String key, String value) {
    try {
      return Integer.parseInt(value.strip());
    } catch (NumberFormatException e) {
      throw malformed(key, value, "int", "a decimal int such as 42", e);
    }
  }

  static long parseLong(String key, String value) {
    try {
      return Long.parseLong(value.strip());
    } catch (NumberFormatException e) {
      throw malformed(key, value, "long", "a decimal long such as 42", e);
    }
  }

  static boolean parseBoolean(String key, String value) {
    String text = value.strip();
    if (text.equalsIgnoreCase("true")) {
      return true;
    }
    if (text.equalsIgnoreCase("false")) {
      return false;
    }
    throw malformed(key, value, "boolean", "true or false", null);
  }

  /** ISO-8601 ({@code PT5S}) or an amount and a unit ({@code 5s}, {@code 250ms}, {@code 1.5 h}). */
  static Duration parseDuration(String key, String value) {
    String text = value.strip();
    String example = "an ISO-8601 duration such as PT5S, or an amount and a unit (ns, us, ms, s, m, h, d)"
        + " such as 5s or 250ms";
    if (text.startsWith("P") || text.startsWith("p") || text.startsWith("-P") || text.startsWith("-p")) {
      try {
        return Duration.parse(text);
      } catch (DateTimeParseException e) {
        throw malformed(key, value, "Duration", example, e);
      }
    }
    Matcher matcher = AMOUNT_AND_UNIT.matcher(text);
    if (!matcher.matches()) {
      throw malformed(key, value, "Duration", example, null);
    }
    BigDecimal amount = new BigDecimal(matcher.group(1));
    long nanosPerUnit = switch (matcher.group(2).toLowerCase(Locale.ROOT)) {
      case "ns" -> 1L;
      case "us", "µs" -> 1_000L;
      case "ms" -> 1_000_000L;
      case "s" -> 1_000_000_000L;
      case "m", "min" -> 60_000_000_000L;
      case "h" -> 3_600_000_000_000L;
      default -> 86_400_000_000_000L; // d
    };
    try {
      BigDecimal nanos = amount.multiply(BigDecimal.valueOf(nanosPerUnit));
      BigDecimal[] secondsAndNanos = nanos.divideAndRemainder(BigDecimal.valueOf(1_000_000_000L));
      return Duration.ofSeconds(secondsAndNanos[0].longValueExact(), secondsAndNanos[1].longValue());
    } catch (ArithmeticException e) {
      throw malformed(key, value, "Duration", "a duration that fits in a java.time.Duration", e);
    }
  }

  private static ConfigValueException malformed(String key, String value, String type, String expected,
      Throwable cause) {
    String shown = value.length() > 60 ? value.substring(0, 60) + "..." : value;
    return new ConfigValueException(key, value, type, "config key '" + key + "' holds '" + shown
        + "', which is not a valid " + type + ": expected " + expected, cause);
  }

}
