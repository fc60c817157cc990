package dev.baton.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.ClusterTestSupport;
import dev.baton.OutcomeUnknownException;
import dev.baton.testkit.FaultProxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
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
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bad//key").hasMessageContaining("line 2");
    assertThatThrownBy(() -> config.importFrom("db:\n  url: a\ndb/url: b\n", ConfigFormat.YAML))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("db/url").hasMessageContaining("line 3");
    assertThatThrownBy(() -> config.importFrom("good: 1\nbad:\n  \"\": 2\n", ConfigFormat.YAML))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bad/").hasMessageContaining("line 3");
    assertThatThrownBy(() -> config.importFrom("[1, 2]", ConfigFormat.JSON))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("map");
    assertThatThrownBy(() -> config.export("/abs", ConfigFormat.JSON))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("/abs");

    assertThat(raw.children("/cfg-import-bad")).containsExactly("existing");
  }

  /**
   * Regression: a key with a key nested below it ({@code db} beside {@code db/url}, which the
   * docs allow) made {@code db} a folder for {@code db/url} before the batch created {@code db}: the
   * batch failed, and the empty folder made {@code set("db")} fail for good.
   */
  @ParameterizedTest
  @EnumSource(ConfigFormat.class)
  void aKeyWithNestedKeys_exportsAndImportsBack(ConfigFormat format) {
    String name = format.name().toLowerCase();
    ConfigCenter source = closing(ConfigCenter.open(baton(), "/cfg-nested-src-" + name));
    source.set("db", "primary");
    source.set("db/url", "jdbc:x");
    source.set("db/pool/size", "5");
    ConfigCenter target = closing(ConfigCenter.open(baton(), "/cfg-nested-dst-" + name));

    assertThat(target.importFrom(source.export("", format), format)).isEqualTo(3);

    await().atMost(WAIT).until(() -> target.snapshot().equals(source.snapshot()));
    assertThat(target.set("db", "secondary").value()).isEqualTo("secondary");
    assertThat(target.importFrom(source.export("", format), format)).as("db back to primary").isEqualTo(1);
  }

  /**
   * The importing config center reads its import as soon as it returns (read-your-writes), so an
   * immediate second import finds nothing to write. The slow link keeps the watch's own reads
   * from catching up first.
   */
  @Test
  void import_isInTheImportersCopyWhenItReturns() throws Exception {
    FaultProxy proxy = closing(FaultProxy.start(cluster.address(0)));
    ConfigCenter config = closing(ConfigCenter.open(baton(proxy.connectString(), Duration.ofSeconds(20)),
        "/cfg-import-ryw"));
    config.set("a", "old");
    proxy.delay(Duration.ofMillis(300));

    assertThat(config.importFrom("a=new\nb/c=2\n", ConfigFormat.PROPERTIES)).isEqualTo(2);

    assertThat(config.snapshot()).isEqualTo(Map.of("a", "new", "b/c", "2"));
    assertThat(config.entry("a")).contains(new ConfigEntry("a", "new", 1));
    assertThat(config.importFrom("a=new\nb/c=2\n", ConfigFormat.PROPERTIES)).isZero();
  }

  /**
   * An import in two batches whose second batch's reply is lost: the outcome is unknown, and the
   * error says the first batch was applied.
   */
  @Test
  void lostReplyInTheSecondBatch_saysTheFirstWasApplied() throws Exception {
    FaultProxy proxy = closing(FaultProxy.start(cluster.address(0)));
    ConfigCenter config = closing(ConfigCenter.open(baton(proxy.connectString(), Duration.ofSeconds(20)),
        "/cfg-import-lost"));
    config.set("other", "x");
    String chunk = "y".repeat(200_000); // two keys a batch: half of the 1 MB packet limit
    StringBuilder json = new StringBuilder("{");
    for (int i = 0; i < 4; i++) {
      json.append(i == 0 ? "" : ",").append("\"k").append(i).append("\":\"").append(chunk).append(i).append('"');
    }
    String text = json.append('}').toString();
    proxy.delay(Duration.ofMillis(500));
    CompletableFuture<Integer> pending =
        CompletableFuture.supplyAsync(() -> config.importFrom(text, ConfigFormat.JSON));
    await().atMost(WAIT).until(() -> raw.exists("/cfg-import-lost/k3"));
    proxy.cut(); // the second batch's reply is dropped
    proxy.delay(Duration.ZERO);
    proxy.restore();

    assertThatThrownBy(() -> pending.get(WAIT.toSeconds(), TimeUnit.SECONDS)).cause()
        .isInstanceOf(OutcomeUnknownException.class).hasMessageContaining("batch 2 of 2")
        .hasMessageContaining("the 1 batch before it was applied");
    assertThat(config.importFrom(text, ConfigFormat.JSON)).as("import again, as the error says").isZero();
  }
}
