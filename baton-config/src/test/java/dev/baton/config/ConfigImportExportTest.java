package dev.baton.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.ClusterTestSupport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Export and import of keys as properties, YAML and JSON: what is exported imports back to the
 * same keys and values; an import bigger than one transaction can carry is split into batches
 * that each fit, with a revision per key when history is kept; nested YAML and JSON are read as
 * nested keys; bad text or keys are refused with nothing written.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ConfigImportExportTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(10);

  @ParameterizedTest
  @EnumSource(ConfigFormat.class)
  void export_thenImportElsewhere_givesTheSameKeysAndValues(ConfigFormat format) {
    ConfigCenter source = closing(ConfigCenter.open(baton(), "/cfg-export-" + format.name().toLowerCase()));
    source.set("db/url", "jdbc:h2:mem:x;a=1 # not a comment");
    source.set("db/pool/size", "5");
    source.set("greeting", "grüße\nzweite Zeile");
    source.set("empty", "");
    source.set("other", "o");

    String all = source.export("", format);
    String db = source.export("db", format);

    ConfigCenter target = closing(ConfigCenter.open(baton(), "/cfg-import-" + format.name().toLowerCase()));
    assertThat(target.importFrom(all, format)).isEqualTo(5);
    await().atMost(WAIT).until(() -> target.snapshot().equals(source.snapshot()));
    assertThat(target.importFrom(all, format)).as("nothing differs the second time").isZero();
    ConfigCenter dbOnly = closing(ConfigCenter.open(baton(), "/cfg-import-db-" + format.name().toLowerCase()));
    dbOnly.importFrom(db, format);
    await().atMost(WAIT).until(() -> dbOnly.snapshot().keySet().equals(java.util.Set.of("db/url", "db/pool/size")));
  }

  @Test
  void importBiggerThanOneTransaction_isSplitIntoBatches_withARevisionPerKey() throws Exception {
    ConfigCenter config = closing(ConfigCenter.open(baton(), "/cfg-import-big",
        ConfigOptions.defaults().withHistory(3)));
    Map<String, String> values = new TreeMap<>();
    String chunk = "x".repeat(20_000);
    for (int i = 0; i < 120; i++) { // 2.4 MB of values, 7 MB with history: over the 1 MB packet limit
      values.put("k" + i, chunk + i);
    }
    StringBuilder json = new StringBuilder("{");
    values.forEach((k, v) -> json.append(json.length() > 1 ? "," : "").append('"').append(k).append("\":\"").append(v)
        .append('"'));
    json.append('}');

    assertThat(config.importFrom(json.toString(), ConfigFormat.JSON)).isEqualTo(120);

    await().atMost(WAIT).until(() -> config.snapshot().size() == 120);
    assertThat(config.snapshot()).isEqualTo(values);
    assertThat(new String(raw.data("/cfg-import-big/k7"), StandardCharsets.UTF_8)).isEqualTo(chunk + 7);
    assertThat(config.history("k7")).singleElement().satisfies(r -> {
      assertThat(r.operation()).isEqualTo("import");
      assertThat(r.value()).contains(chunk + 7);
    });
  }

  @Test
  void nestedYamlAndJson_areReadAsNestedKeys() {
    ConfigCenter config = closing(ConfigCenter.open(baton(), "/cfg-import-nested"));
    config.importFrom("db:\n  url: jdbc:x\n  pool:\n    size: 5\nflag: true\n", ConfigFormat.YAML);
    config.importFrom("{\"http\": {\"port\": 8080}}", ConfigFormat.JSON);

    await().atMost(WAIT).until(() -> config.snapshot().size() == 4);
    assertThat(config.snapshot()).containsEntry("db/url", "jdbc:x").containsEntry("db/pool/size", "5")
        .containsEntry("flag", "true").containsEntry("http/port", "8080");
  }

  @Test
  void badTextOrKeys_areRefused_andNothingIsWritten() throws Exception {
    ConfigCenter config = closing(ConfigCenter.open(baton(), "/cfg-import-bad"));
    config.set("existing", "e");

    assertThatThrownBy(() -> config.importFrom("{\"a\": ", ConfigFormat.JSON))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("malformed");
    assertThatThrownBy(() -> config.importFrom("good=1\nbad//key=2\n", ConfigFormat.PROPERTIES))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bad//key");
    assertThatThrownBy(() -> config.importFrom("hosts: [a, b]\n", ConfigFormat.YAML))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("hosts");
    assertThatThrownBy(() -> config.importFrom("[1, 2]", ConfigFormat.JSON))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("map");
    assertThatThrownBy(() -> config.export("/abs", ConfigFormat.JSON))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("/abs");

    assertThat(raw.children("/cfg-import-bad")).containsExactly("existing");
  }
}
