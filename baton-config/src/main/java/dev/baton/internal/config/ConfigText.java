package dev.baton.internal.config;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import dev.baton.config.ConfigFormat;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Keys and values as properties, YAML or JSON text, both ways, by the one rule {@link ConfigFormat}
 * documents: a name in the file is a key path ({@code /} separates levels, {@code .} is an ordinary
 * character), a nested map adds a level ({@code /}), a list is its value as JSON array text. Pure
 * functions.
 */
final class ConfigText {
  private static final JsonFactory JSON = JsonFactory.builder()
      .enable(com.fasterxml.jackson.core.StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
  private static final YAMLFactory YAML = YAMLFactory.builder()
      .enable(com.fasterxml.jackson.core.StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
      .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
      .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
      .enable(YAMLGenerator.Feature.LITERAL_BLOCK_STYLE)
      .build();
  /** A number as JSON writes it: what a list item may be written as without quotes. */
  private static final Pattern JSON_NUMBER = Pattern.compile("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?");

  private ConfigText() {}

  /** The keys and values of a text, in the order written, and the line each was set on (0 if unknown). */
  record Read(Map<String, String> values, Map<String, Integer> lines) {
    /** " (line N)" for a key the text set on a known line, else "". */
    String at(String key) {
      Integer line = lines.get(key);
      return line == null || line <= 0 ? "" : " (line " + line + ")";
    }
  }

  // ---- writing ---------------------------------------------------------------------------------

  /**
   * {@code values} (key to value) as text, sorted by key: properties one key a line; YAML and JSON
   * as nested maps, one level per {@code /}, a key with keys below it written as {@code db: x}
   * beside {@code db/url: y}, a value that is a JSON array (as an import of a list makes it) as
   * that list.
   */
  static String write(Map<String, String> values, ConfigFormat format) {
    Map<String, String> sorted = new TreeMap<>(values);
    try {
      if (format == ConfigFormat.PROPERTIES) {
        StringBuilder text = new StringBuilder();
        for (Map.Entry<String, String> entry : sorted.entrySet()) {
          Properties one = new Properties();
          one.setProperty(entry.getKey(), entry.getValue());
          StringWriter line = new StringWriter();
          one.store(line, null);
          // store() writes a date comment first: keep the property line only.
          line.toString().lines().filter(l -> !l.startsWith("#")).forEach(l -> text.append(l).append('\n'));
        }
        return text.toString();
      }
      Level root = new Level();
      sorted.forEach(root::put);
      StringWriter out = new StringWriter();
      try (JsonGenerator generator = format == ConfigFormat.YAML ? YAML.createGenerator(out)
          : JSON.createGenerator(out).setPrettyPrinter(
              new DefaultPrettyPrinter().withObjectIndenter(DefaultIndenter.SYSTEM_LINEFEED_INSTANCE.withLinefeed("\n")))) {
        generator.writeStartObject();
        root.writeEntries(generator, "", format == ConfigFormat.YAML);
        generator.writeEndObject();
      }
      String text = out.toString();
      return text.endsWith("\n") ? text : text + "\n";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** One level of the key tree: a key's value (null for none) and the names below it. */
  private static final class Level {
    String value;
    final Map<String, Level> below = new TreeMap<>();

    void put(String key, String value) {
      Level level = this;
      for (String name : key.split("/", -1)) {
        level = level.below.computeIfAbsent(name, n -> new Level());
      }
      level.value = value;
    }

    /** The entries of this level into the map being written, their names after {@code namePrefix}. */
    void writeEntries(JsonGenerator generator, String namePrefix, boolean yaml) throws IOException {
      for (Map.Entry<String, Level> entry : below.entrySet()) {
        String name = namePrefix + entry.getKey();
        Level level = entry.getValue();
        if (level.value != null) {
          generator.writeFieldName(name);
          writeValue(generator, level.value, yaml);
          if (!level.below.isEmpty()) {
            level.writeEntries(generator, name + "/", yaml); // a map cannot also be a value: db/url beside db
          }
        } else if (!level.below.isEmpty()) {
          generator.writeFieldName(name);
          generator.writeStartObject();
          level.writeEntries(generator, "", yaml);
          generator.writeEndObject();
        }
      }
    }
  }

  private static void writeValue(JsonGenerator generator, String value, boolean yaml) throws IOException {
    if (isList(value)) {
      try (JsonParser list = JSON.createParser(value)) {
        list.nextToken();
        copy(list, generator);
      }
    } else if (yaml && JSON_NUMBER.matcher(value).matches()) {
      generator.writeNumber(value); // unquoted: read back as the same text
    } else if (yaml && (value.equals("true") || value.equals("false"))) {
      generator.writeBoolean(Boolean.parseBoolean(value));
    } else {
      generator.writeString(value);
    }
  }

  /** Whether {@code value} is a JSON array exactly as an import of a list writes it. */
  static boolean isList(String value) {
    if (!value.startsWith("[") || !value.endsWith("]")) {
      return false;
    }
    try {
      return value.equals(listText(JSON, value));
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  private static String listText(JsonFactory factory, String text) throws IOException {
    try (JsonParser parser = factory.createParser(text)) {
      if (parser.nextToken() != JsonToken.START_ARRAY) {
        return null;
      }
      String list = listJson(parser);
      return parser.nextToken() == null ? list : null;
    }
  }

  /** The array the parser is at, as compact JSON; scalars keep their text (a number its digits). */
  private static String listJson(JsonParser parser) throws IOException {
    StringWriter out = new StringWriter();
    try (JsonGenerator generator = JSON.createGenerator(out)) {
      copy(parser, generator);
    }
    return out.toString();
  }

  /** Copies the value the parser is at (and all inside it), keeping each scalar's text. */
  private static void copy(JsonParser parser, JsonGenerator generator) throws IOException {
    JsonToken token = parser.currentToken();
    switch (token) {
      case START_ARRAY -> {
        generator.writeStartArray();
        while (parser.nextToken() != JsonToken.END_ARRAY) {
          copy(parser, generator);
        }
        generator.writeEndArray();
      }
      case START_OBJECT -> {
        generator.writeStartObject();
        while (parser.nextToken() != JsonToken.END_OBJECT) {
          generator.writeFieldName(parser.currentName());
          parser.nextToken();
          copy(parser, generator);
        }
        generator.writeEndObject();
      }
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> {
        String text = parser.getText();
        if (JSON_NUMBER.matcher(text).matches()) {
          generator.writeNumber(text);
        } else {
          generator.writeString(text); // YAML's 0x1F, 1_000: kept as written
        }
      }
      case VALUE_TRUE, VALUE_FALSE -> {
        String text = parser.getText();
        if (text.equals("true") || text.equals("false")) {
          generator.writeBoolean(text.equals("true"));
        } else {
          generator.writeString(text); // YAML's yes, on: kept as written
        }
      }
      case VALUE_NULL -> generator.writeNull();
      default -> generator.writeString(parser.getText());
    }
  }

  // ---- reading ---------------------------------------------------------------------------------

  /**
   * The keys and values of {@code text}, in the order written: a nested map's names joined with
   * {@code /}, a scalar as written ({@code 1.50} stays {@code 1.50}), a null or empty scalar as
   * {@code ""}, a list as its JSON array text.
   *
   * @throws IllegalArgumentException saying where the text is malformed, or which key it sets twice
   */
  static Read read(String text, ConfigFormat format) {
    Map<String, String> values = new LinkedHashMap<>();
    Map<String, Integer> lines = new HashMap<>();
    if (format == ConfigFormat.PROPERTIES) {
      readProperties(text, values, lines);
      return new Read(values, lines);
    }
    try (JsonParser parser = (format == ConfigFormat.JSON ? JSON : YAML).createParser(text)) {
      JsonToken first = parser.nextToken();
      if (first == null || first == JsonToken.VALUE_NULL) {
        return new Read(values, lines);
      }
      if (first != JsonToken.START_OBJECT) {
        throw new IllegalArgumentException("The " + format + " to import must be a map of keys to values, was "
            + (first == JsonToken.START_ARRAY ? "a list" : "a single value") + " (line "
            + parser.currentTokenLocation().getLineNr() + ")");
      }
      readMap(parser, "", values, lines, format);
      if (parser.nextToken() != null) {
        throw new IllegalArgumentException("The " + format + " to import has more after its map, at line "
            + parser.currentTokenLocation().getLineNr());
      }
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("The " + format + " to import is malformed: " + e.getOriginalMessage()
          + (e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr()), e);
    } catch (IOException e) {
      throw new IllegalArgumentException("The " + format + " to import cannot be read: " + e.getMessage(), e);
    }
    return new Read(values, lines);
  }

  /**
   * Properties as {@link Properties#load} reads them (a later line for the same key wins), one
   * logical line at a time (continuation lines joined) so that each key's line is known.
   */
  private static void readProperties(String text, Map<String, String> values, Map<String, Integer> lines) {
    String[] physical = text.split("\r\n|\r|\n", -1);
    Map<String, String> sorted = new TreeMap<>();
    for (int i = 0; i < physical.length; i++) {
      int first = i;
      StringBuilder logical = new StringBuilder(physical[i]);
      String stripped = physical[i].stripLeading();
      boolean comment = stripped.startsWith("#") || stripped.startsWith("!");
      while (!comment && endsWithOddBackslashes(physical[i]) && i + 1 < physical.length) {
        logical.append('\n').append(physical[++i]);
      }
      if (comment || stripped.isEmpty()) {
        continue;
      }
      Properties one = new Properties();
      try {
        one.load(new StringReader(logical.toString()));
      } catch (IOException | IllegalArgumentException e) {
        throw new IllegalArgumentException("The PROPERTIES to import are malformed at line " + (first + 1) + ": "
            + e.getMessage(), e);
      }
      for (Map.Entry<Object, Object> entry : one.entrySet()) {
        sorted.put(entry.getKey().toString(), entry.getValue().toString());
        lines.put(entry.getKey().toString(), first + 1);
      }
    }
    values.putAll(sorted);
  }

  private static boolean endsWithOddBackslashes(String line) {
    int count = 0;
    for (int i = line.length() - 1; i >= 0 && line.charAt(i) == '\\'; i--) {
      count++;
    }
    return count % 2 == 1;
  }

  private static void readMap(JsonParser parser, String path, Map<String, String> values, Map<String, Integer> lines,
      ConfigFormat format) throws IOException {
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String name = parser.currentName();
      int line = parser.currentTokenLocation().getLineNr();
      String key = path.isEmpty() ? name : path + "/" + name;
      JsonToken token = parser.nextToken();
      if (token == JsonToken.START_OBJECT) {
        readMap(parser, key, values, lines, format);
        continue;
      }
      String value = switch (token) {
        case START_ARRAY -> listJson(parser);
        case VALUE_NULL -> "";
        default -> parser.getText();
      };
      Integer before = lines.putIfAbsent(key, line);
      if (values.putIfAbsent(key, value) != null) {
        throw new IllegalArgumentException("The " + format + " to import sets the key '" + key + "' twice, at line "
            + before + " and at line " + line + " (a name with '/' is the same key as the maps it names)");
      }
    }
  }
}
