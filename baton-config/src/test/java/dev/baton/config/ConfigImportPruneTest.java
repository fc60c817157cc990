package dev.baton.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.ClusterTestSupport;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 33's import on a real ensemble: the same settings in every format land on the same keys;
 * an export imports back to the same keys in every format; a dry run ({@code planImport}) tells
 * the diff and writes nothing; a prune deletes the keys the text leaves out, in the same
 * transaction as the writes, with history; an empty text cannot wipe a config by accident.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ConfigImportPruneTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(10);

  @Test
  void theSameSettings_asPropertiesYamlAndJson_importToTheSameKeys() {
    Map<ConfigFormat, String> texts = Map.of(
        ConfigFormat.PROPERTIES, "db/url=jdbc:x\ndb/pool/size=5\nspring.datasource.url=jdbc:y\nhosts=[\"a\",\"b\"]\n",
        ConfigFormat.YAML, "db:\n  url: jdbc:x\n  pool:\n    size: 5\nspring.datasource.url: jdbc:y\nhosts: [a, b]\n",
        ConfigFormat.JSON, "{\"db\": {\"url\": \"jdbc:x\", \"pool\": {\"size\": 5}}, \"spring.datasource.url\": \"jdbc:y\","
            + " \"hosts\": [\"a\", \"b\"]}");
    Map<String, String> expected = Map.of("db/url", "jdbc:x", "db/pool/size", "5", "spring.datasource.url", "jdbc:y",
        "hosts", "[\"a\",\"b\"]");
    texts.forEach((format, text) -> {
      ConfigCenter config = closing(ConfigCenter.open(baton(), "/cfg-same-" + format.name().toLowerCase()));
      assertThat(config.importFrom(text, format)).isEqualTo(4);
      assertThat(config.snapshot()).as(format.name()).isEqualTo(expected);
      assertThat(config.getList("hosts", List.of())).containsExactly("a", "b");
    });
  }

  @ParameterizedTest
  @EnumSource(ConfigFormat.class)
  void importOfAnExport_givesTheSameKeys_forEveryShape(ConfigFormat format) {
    String name = format.name().toLowerCase();
    ConfigCenter source = closing(ConfigCenter.open(baton(), "/cfg-rt-src-" + name));
    source.set("db", "primary");                      // a key beside its children
    source.set("db/url", "jdbc:h2:mem:x;a=1 # no comment");
    source.set("db/pool/size", "010");
    source.set("hosts", "[\"a\",\"b, c\",80]");          // a list
    source.set("empty", "");
    source.set("greeting", "grüße: 你好\nzweite Zeile");
    source.set("spring.datasource.url", "jdbc:y");
    ConfigCenter target = closing(ConfigCenter.open(baton(), "/cfg-rt-dst-" + name));

    String text = source.export("", format);
    assertThat(target.importFrom(text, format)).isEqualTo(7);

    assertThat(target.snapshot()).as(text).isEqualTo(source.snapshot());
    assertThat(target.export("", format)).isEqualTo(text);
    if (format == ConfigFormat.YAML) {
      assertThat(text).contains("db: primary\n").contains("db/pool:\n  size: \"010\"\n").contains("hosts:\n- a\n");
    }
  }

  @Test
  void planImport_tellsAddedChangedRemoved_andWritesNothing() throws Exception {
    ConfigCenter config = closing(ConfigCenter.open(baton(), "/cfg-plan"));
    config.set("same", "1");
    config.set("changed", "old");
    config.set("gone", "bye");
    Set<String> before = raw.tree();

    ImportPlan plan = config.planImport("same=1\nchanged=new\nadded=hi\n", ConfigFormat.PROPERTIES,
        ImportOptions.defaults().withPrune());

    assertThat(plan.changes()).containsExactly(new ImportPlan.Change("added", null, "hi"),
        new ImportPlan.Change("changed", "old", "new"), new ImportPlan.Change("gone", "bye", null));
    assertThat(plan.changes()).extracting(ImportPlan.Change::toString)
        .containsExactly("+ added: hi", "~ changed: old -> new", "- gone: bye");
    assertThat(plan.summary()).isEqualTo("1 added, 1 changed, 1 removed");
    assertThat(config.planImport("same=1\n", ConfigFormat.PROPERTIES, ImportOptions.defaults()).changes())
        .as("without a prune, keys left out are no change").isEmpty();
    assertThat(raw.tree()).isEqualTo(before);
    assertThat(config.snapshot()).isEqualTo(Map.of("same", "1", "changed", "old", "gone", "bye"));
  }

  @Test
  void prune_deletesKeysLeftOut_inTheWritesTransaction_withHistory() throws Exception {
    ConfigCenter config = closing(ConfigCenter.open(baton(), "/cfg-prune", ConfigOptions.defaults().withHistory(5)));
    config.set("keep", "k");
    config.set("old", "o");                 // pruned with everything below it, folders included
    config.set("old/deep/er/key", "d");
    config.set("old/x", "x");
    config.set("feature/a", "1");           // pruned: its folder goes with it
    ConfigCenter other = closing(ConfigCenter.open(baton(), "/cfg-prune"));

    ImportPlan done = config.importFrom("keep: k2\nnew: n\n", ConfigFormat.YAML, ImportOptions.defaults().withPrune());

    assertThat(done.summary()).isEqualTo("1 added, 1 changed, 4 removed");
    assertThat(config.snapshot()).isEqualTo(Map.of("keep", "k2", "new", "n"));
    await().atMost(WAIT).until(() -> other.snapshot().equals(Map.of("keep", "k2", "new", "n")));
    assertThat(raw.children("/cfg-prune")).contains("keep", "new").doesNotContain("old"); // feature: a container
    assertThat(config.history("old")).first().satisfies(r -> {
      assertThat(r.operation()).isEqualTo("import");
      assertThat(r.value()).isEmpty();
      assertThat(r.previousValue()).contains("o");
    });
    assertThat(config.history("old/deep/er/key").get(0).operation()).isEqualTo("import");
    // One transaction: every revision of the import was created by the same zxid.
    Set<Long> zxids = new HashSet<>();
    for (String key : List.of("keep", "new", "old", "old%2Fx", "old%2Fdeep%2Fer%2Fkey", "feature%2Fa")) {
      List<String> revisions = new java.util.ArrayList<>(raw.children("/cfg-prune.history/" + key));
      revisions.sort(null);
      zxids.add(raw.czxid("/cfg-prune.history/" + key + "/" + revisions.get(revisions.size() - 1)));
    }
    assertThat(zxids).hasSize(1);
  }

  @Test
  void pruneOfAnEmptyText_isRefused_unlessAllowed() throws Exception {
    ConfigCenter config = closing(ConfigCenter.open(baton(), "/cfg-prune-empty"));
    config.set("a", "1");
    config.set("b/c", "2");

    for (ConfigFormat format : ConfigFormat.values()) {
      String empty = format == ConfigFormat.JSON ? "{}" : "";
      assertThatThrownBy(() -> config.importFrom(empty, format, ImportOptions.defaults().withPrune()))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("holds no key")
          .hasMessageContaining("nothing was written");
    }
    assertThat(config.importFrom("", ConfigFormat.PROPERTIES, ImportOptions.defaults()).isEmpty()).isTrue();
    assertThat(config.snapshot()).hasSize(2);

    ImportPlan wiped = config.importFrom("", ConfigFormat.YAML, ImportOptions.defaults().withPrune().withAllowEmpty());
    assertThat(wiped.summary()).isEqualTo("0 added, 0 changed, 2 removed");
    assertThat(config.snapshot()).isEmpty();
  }

  @Test
  void aKeyWhoseChildrenStay_cannotBePruned_andNothingIsWritten() throws Exception {
    ConfigCenter config = closing(ConfigCenter.open(baton(), "/cfg-prune-parent"));
    config.set("db", "primary");
    config.set("db/url", "x");
    config.set("other", "o");

    assertThatThrownBy(() -> config.importFrom("db/url=y\n", ConfigFormat.PROPERTIES,
        ImportOptions.defaults().withPrune()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'db' cannot be pruned")
        .hasMessageContaining("'db/url'").hasMessageContaining("nothing was written");
    assertThat(config.snapshot()).isEqualTo(new TreeMap<>(Map.of("db", "primary", "db/url", "x", "other", "o")));
  }

  @Test
  void manyKeysPruned_areSplitIntoBatches() {
    ConfigCenter config = closing(ConfigCenter.open(baton(), "/cfg-prune-big", ConfigOptions.defaults().withHistory(2)));
    StringBuilder json = new StringBuilder("{");
    for (int i = 0; i < 60; i++) {
      json.append(i == 0 ? "" : ",").append("\"k").append(i).append("\":\"").append("z".repeat(20_000)).append('"');
    }
    config.importFrom(json.append('}').toString(), ConfigFormat.JSON);
    assertThat(config.snapshot()).hasSize(60);

    ImportPlan done = config.importFrom("only=1\n", ConfigFormat.PROPERTIES, ImportOptions.defaults().withPrune());

    assertThat(done.count(ImportPlan.Kind.REMOVED)).isEqualTo(60);
    assertThat(config.snapshot()).isEqualTo(Map.of("only", "1"));
  }
}
