package dev.baton.internal.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.baton.config.ConfigFormat;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/** Keys and values as properties, YAML or JSON text, both ways. Pure functions. */
final class ConfigText {
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private ConfigText() {}

  /** {@code values} (key to value, sorted) as text. */
  static String write(Map<String, String> values, ConfigFormat format) {
    Map<String, String> sorted = new TreeMap<>(values);
    try {
      return switch (format) {
        case JSON -> JSON.writeValueAsString(sorted) + "\n";
        case YAML -> YAML.writeValueAsString(sorted);
        case PROPERTIES -> {
          StringBuilder text = new StringBuilder();
          for (Map.Entry<String, String> entry : sorted.entrySet()) {
            Properties one = new Properties();
            one.setProperty(entry.getKey(), entry.getValue());
            StringWriter line = new StringWriter();
            one.store(line, null);
            // store() writes a date comment first: keep the property line only.
            line.toString().lines().filter(l -> !l.startsWith("#")).forEach(l -> text.append(l).append('\n'));
          }
          yield text.toString();
        }
      };
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The keys and values of {@code text}, in the order written; nested maps joined with {@code /}.
   *
   * @throws IllegalArgumentException saying where the text is malformed
   */
  static Map<String, String> read(String text, ConfigFormat format) {
    Map<String, String> values = new LinkedHashMap<>();
    try {
      switch (format) {
        case PROPERTIES -> {
          Properties properties = new Properties();
          properties.load(new StringReader(text));
          new TreeMap<>(properties).forEach((key, value) -> values.put(key.toString(), value.toString()));
        }
        case JSON, YAML -> {
          JsonNode root = (format == ConfigFormat.JSON ? JSON : YAML).readTree(text);
          if (root == null || root.isMissingNode() || root.isNull()) {
            return values;
          }
          if (!root.isObject()) {
            throw new IllegalArgumentException("The " + format + " to import must be a map of keys to values, was a "
                + root.getNodeType());
          }
          flatten("", root, values, format);
        }
      }
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("The " + format + " to import is malformed: " + e.getOriginalMessage()
          + (e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr()), e);
    } catch (IOException e) {
      throw new IllegalArgumentException("The " + format + " to import cannot be read: " + e.getMessage(), e);
    }
    return values;
  }

  private static void flatten(String path, JsonNode node, Map<String, String> values, ConfigFormat format) {
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      String key = path.isEmpty() ? field.getKey() : path + "/" + field.getKey();
      JsonNode value = field.getValue();
      if (value.isObject()) {
        flatten(key, value, values, format);
      } else if (value.isArray()) {
        throw new IllegalArgumentException("The " + format + " to import holds a list at '" + key + "'; values"
            + " are text (write a list as \"a, b, c\", as getList reads it)");
      } else {
        values.put(key, value.isNull() ? "" : value.asText());
      }
    }
  }
}
