package dev.baton.internal.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.config.ConfigFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The one layout rule of {@link ConfigFormat}, as text, without a server: the same settings in
 * every format read as the same keys; what is written reads back as the same keys and values, for
 * hand-picked shapes and for random ones; YAML and JSON are written nested, values unquoted where
 * YAML allows, lists as lists.
 */
class ConfigImportTextTest {

  private static final Map<String, String> SAME_SETTINGS = Map.of(
      "db/url", "jdbc:postgresql://db:5432/shop?ssl=true",
      "db/pool/size", "10",
      "spring.datasource.username", "shop",
      "hosts", "[\"a\",\"b, c\"]",
      "ports", "[80,443]",
      "empty", "",
      "motto", "a: b # not a comment");

  @Test
  void theSameSettings_inEveryFormat_readAsTheSameKeys() {
    String properties = """
        db/url=jdbc:postgresql://db:5432/shop?ssl=true
        db/pool/size=10
        spring.datasource.username=shop
        hosts=["a","b, c"]
        ports=[80,443]
        empty=
        motto=a: b # not a comment
        """;
    String yaml = """
        db:
          url: jdbc:postgresql://db:5432/shop?ssl=true
          pool:
            size: 10
        spring.datasource.username: shop
        hosts:
          - a
          - b, c
        ports: [80, 443]
        empty:
        motto: "a: b # not a comment"
        """;
    String json = """
        {"db": {"url": "jdbc:postgresql://db:5432/shop?ssl=true", "pool": {"size": 10}},
         "spring.datasource.username": "shop", "hosts": ["a", "b, c"], "ports": [80, 443],
         "empty": null, "motto": "a: b # not a comment"}
        """;
    assertThat(ConfigText.read(properties, ConfigFormat.PROPERTIES).values()).isEqualTo(SAME_SETTINGS);
    assertThat(ConfigText.read(yaml, ConfigFormat.YAML).values()).isEqualTo(SAME_SETTINGS);
    assertThat(ConfigText.read(json, ConfigFormat.JSON).values()).isEqualTo(SAME_SETTINGS);
    assertThat(ConfigText.read("db/url: jdbc:postgresql://db:5432/shop?ssl=true\ndb/pool:\n  size: 10\n",
        ConfigFormat.YAML).values()).as("a name with '/' is the path of nested maps")
        .isEqualTo(Map.of("db/url", SAME_SETTINGS.get("db/url"), "db/pool/size", "10"));
  }

  @Test
  void yamlExport_isNested_unquotedWhereYamlAllows_listsAsLists() {
    Map<String, String> values = new TreeMap<>(SAME_SETTINGS);
    values.put("db", "primary");
    String yaml = ConfigText.write(values, ConfigFormat.YAML);

    assertThat(yaml).contains("db: primary\n").contains("db/pool:\n  size: 10\n")
        .contains("db/url: jdbc:postgresql://db:5432/shop?ssl=true\n")
        .contains("hosts:\n- a\n- \"b, c\"\n").contains("ports:\n- 80\n- 443\n")
        .contains("spring.datasource.username: shop\n").doesNotContain("---");
    String json = ConfigText.write(Map.of("db/url", "x", "db/pool/size", "5", "hosts", "[\"a\"]"), ConfigFormat.JSON);
    assertThat(json.replaceAll("\\s", ""))
        .isEqualTo("{\"db\":{\"pool\":{\"size\":\"5\"},\"url\":\"x\"},\"hosts\":[\"a\"]}");
  }

  /** Values that YAML, JSON or properties could misread, each tried in every format. */
  private static final List<String> AWKWARD = List.of("", " ", " lead", "trail ", "a: b", "# not a comment", "a #b",
      "key=value", "grüße, 你好 🎉", "two\nlines", "two\nlines\n", "\n", "tab\there", "true", "false", "yes", "no",
      "on", "null", "~", "5", "010", "1.50", "-0", "1e3", "0x1F", "1_000", "2020-01-01", "[a, b]", "[]",
      "[\"a\",\"b\"]", "[1,\"1\",true,\"true\",null,{\"k\":[2]}]", "{\"a\":1}", "{}", "\"quoted\"", "'single'",
      "back\\slash", "- item", "? q", "!tag", "&anchor", "*alias", "@at", "`tick`", "%percent", "|", ">", "=",
      "\u0000x", "\r\n");

  @ParameterizedTest
  @EnumSource(ConfigFormat.class)
  void everyAwkwardValue_readsBackAsWritten(ConfigFormat format) {
    Map<String, String> values = new TreeMap<>();
    for (int i = 0; i < AWKWARD.size(); i++) {
      values.put("v" + i, AWKWARD.get(i));
      values.put("nested/v" + i, AWKWARD.get(i));
    }
    assertRoundTrip(values, format);
  }

  @ParameterizedTest
  @EnumSource(ConfigFormat.class)
  void randomShapes_readBackAsWritten(ConfigFormat format) {
    Random random = new Random(33);
    List<String> names = List.of("db", "url", "pool", "size", "a.b", "spring.datasource", "x-y", "0", "1", "ü",
        "日本", "with space", "colon:name", "#hash");
    for (int round = 0; round < 300; round++) {
      Map<String, String> values = new TreeMap<>();
      int keys = 1 + random.nextInt(8);
      for (int k = 0; k < keys; k++) {
        StringBuilder key = new StringBuilder();
        for (int depth = 1 + random.nextInt(4); depth > 0; depth--) {
          key.append(key.length() == 0 ? "" : "/").append(names.get(random.nextInt(names.size())));
        }
        values.put(key.toString(), AWKWARD.get(random.nextInt(AWKWARD.size())));
      }
      assertRoundTrip(values, format);
    }
  }

  private static void assertRoundTrip(Map<String, String> values, ConfigFormat format) {
    String text = ConfigText.write(values, format);
    assertThat(new TreeMap<>(ConfigText.read(text, format).values())).as(format + ":\n" + text).isEqualTo(values);
  }

  @Test
  void badText_namesTheLineOrTheKey() {
    assertThatThrownBy(() -> ConfigText.read("a: 1\nb: [unclosed\nc: 3\n", ConfigFormat.YAML))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("malformed").hasMessageContaining("line");
    assertThatThrownBy(() -> ConfigText.read("db:\n  url: a\ndb/url: b\n", ConfigFormat.YAML))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'db/url' twice, at line 2 and at line 3");
    assertThatThrownBy(() -> ConfigText.read("{\"a\": 1,\n \"a\": 2}", ConfigFormat.JSON))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'a'").hasMessageContaining("line 2");
    assertThatThrownBy(() -> ConfigText.read("- a\n- b\n", ConfigFormat.YAML))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must be a map").hasMessageContaining("list");
    assertThatThrownBy(() -> ConfigText.read("# c\na=1\nb=\\u12x\n", ConfigFormat.PROPERTIES))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("malformed at line 3");
    ConfigText.Read properties = ConfigText.read("# c \\\na=1\\\n  2\n\nb//c=3\nd:4\n", ConfigFormat.PROPERTIES);
    assertThat(properties.values()).isEqualTo(Map.of("a", "12", "b//c", "3", "d", "4"));
    assertThat(properties.at("b//c")).isEqualTo(" (line 5)");
    assertThat(properties.at("a")).isEqualTo(" (line 2)");
    ConfigText.Read read = ConfigText.read("ok: 1\nbad:\n  \"\": 2\n", ConfigFormat.YAML);
    assertThat(read.values()).containsEntry("bad/", "2");
    assertThat(read.at("bad/")).isEqualTo(" (line 3)");
  }

  @Test
  void getList_readsAnImportedListsItems() {
    assertThat(ConfigValues.parseList("k", "[\"a\",\"b, c\",1,null]")).containsExactly("a", "b, c", "1");
    assertThat(ConfigValues.parseList("k", "[a, b]")).containsExactly("[a", "b]");
    assertThat(ConfigValues.parseList("k", "a, b")).containsExactly("a", "b");
    Map<String, String> order = new LinkedHashMap<>();
    assertThat(order).isEmpty();
  }
}
