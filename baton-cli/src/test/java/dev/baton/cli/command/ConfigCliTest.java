package dev.baton.cli.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.cli.BatonCommand;
import dev.baton.cli.console.ConsoleConfig;
import dev.baton.config.ConfigCenter;
import dev.baton.config.ConfigOptions;
import dev.baton.config.GrayRule;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code baton config} as issue 33 asks: watch's JSON lines, gray releases from the CLI alone. */
class ConfigCliTest extends StandaloneZooKeeper {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static Cli.Run cli(String... args) {
    String[] all = java.util.Arrays.copyOf(args, args.length + 2);
    all[args.length] = "--connect";
    all[args.length + 1] = cluster.connectString();
    return Cli.run(all);
  }

  @Test
  void watchJson_printsOneCompleteObjectPerLine() throws Exception {
    FollowingCommandsTest.Following watch =
        new FollowingCommandsTest.Following("config", "watch", "/cli33-watch", "--json", "--connect", cluster.connectString());
    try (ConfigCenter config = ConfigCenter.open(baton, "/cli33-watch")) {
      await().until(() -> !watch.factory.stops.isEmpty());
      await().untilAsserted(() -> {
        config.set("feature/x", "on"); // written until the watcher, which may still be loading, has heard one
        assertThat(watch.output()).contains("feature/x");
      });
      config.delete("feature/x");
      await().until(() -> watch.output().contains("null")); // the deletion, however it is laid out
    } finally {
      watch.factory.stopAll();
    }
    assertThat(watch.exit.join()).isZero();
    List<String> lines = watch.output().lines().toList();
    assertThat(lines).hasSizeGreaterThanOrEqualTo(2);
    for (String line : lines) {
      JsonNode change = JSON.readTree(line);
      assertThat(change.get("key").asText()).isEqualTo("feature/x");
      assertThat(change.has("old")).isTrue();
      assertThat(change.has("new")).isTrue();
    }
    JsonNode last = JSON.readTree(lines.get(lines.size() - 1));
    assertThat(last.get("old").asText()).isEqualTo("on");
    assertThat(last.get("new").isNull()).isTrue();
  }

  @Test
  void getAndList_showAPendingGrayCandidate_besideTheReleasedValue() throws Exception {
    try (ConfigCenter canary = ConfigCenter.open(baton, "/cli33-pending",
        ConfigOptions.defaults().withInstance("canary-1", Map.of("zone", "eu-1")))) {
      canary.set("feature/x", "off");
      canary.set("feature/y", "1");
      // 100 percent: the rule matches every id, the CLI's own among them; get must still print the released value.
      canary.grayRelease("feature/x", "on", GrayRule.forPercent(100));

      Cli.Run get = cli("config", "get", "/cli33-pending", "feature/x");
      assertThat(get.exitCode()).as(get.err()).isZero();
      assertThat(get.out().lines().toList())
          .containsExactly("off", "version=0", "gray release pending for percent 100: on");
      JsonNode getJson = JSON.readTree(cli("config", "get", "/cli33-pending", "feature/x", "--json").out());
      assertThat(getJson.get("value").asText()).isEqualTo("off");
      assertThat(getJson.get("gray").get("candidate").asText()).isEqualTo("on");
      assertThat(getJson.get("gray").get("rule").asText()).isEqualTo("percent 100");
      assertThat(getJson.get("gray").get("percent").asInt()).isEqualTo(100);
      JsonNode plain = JSON.readTree(cli("config", "get", "/cli33-pending", "feature/y", "--json").out());
      assertThat(plain.get("gray").isNull()).isTrue();

      Cli.Run list = cli("config", "list", "/cli33-pending");
      assertThat(list.exitCode()).as(list.err()).isZero();
      assertThat(list.out().lines().toList()).containsExactly(
          "feature/x=off", "  gray release pending for percent 100: on", "feature/y=1");
      JsonNode listJson = JSON.readTree(cli("config", "list", "/cli33-pending", "--json").out());
      assertThat(listJson.get("keys").get("feature/x").asText()).isEqualTo("off");
      assertThat(listJson.get("gray").get("feature/x").get("candidate").asText()).isEqualTo("on");
      assertThat(listJson.get("gray").has("feature/y")).isFalse();
    }
  }

  @Test
  void watchWithInstance_announcesIt_soAReleaseFromTheCliAloneReachesIt() {
    assertThat(cli("config", "set", "/cli33-announce", "feature/x", "off").exitCode()).isZero();
    FollowingCommandsTest.Following canary = new FollowingCommandsTest.Following("config", "watch",
        "/cli33-announce", "--instance", "canary-1", "--labels", "zone=eu-1,version=2",
        "--connect", cluster.connectString());
    try (ConfigCenter reader = ConfigCenter.open(baton, "/cli33-announce",
        ConfigOptions.defaults().withInstance("test-reader", Map.of()).unannounced())) {
      await().until(() -> reader.grayInstances().stream().anyMatch(i -> i.id().equals("canary-1")));
      assertThat(reader.grayInstances().get(0).labels()).isEqualTo(Map.of("zone", "eu-1", "version", "2"));

      Cli.Run set = cli("config", "gray", "set", "/cli33-announce", "feature/x", "on", "--labels", "zone=eu-1");
      assertThat(set.exitCode()).as(set.err()).isZero();
      assertThat(set.out().strip()).isEqualTo("gray release of feature/x published: on for labels zone=eu-1");
      await().until(() -> canary.output().contains("feature/x: off -> on"));
      Cli.Run reach = cli("config", "gray", "reach", "/cli33-announce", "feature/x");
      assertThat(reach.out()).contains("canary-1");
    } finally {
      canary.factory.stopAll();
    }
    assertThat(canary.exit.join()).isZero();
  }

  @Test
  void grayMessages_printRulesAsTheyAreTyped_notAsRecords() {
    assertThat(cli("config", "set", "/cli33-words", "feature/x", "off").exitCode()).isZero();
    try (ConfigCenter web = ConfigCenter.open(baton, "/cli33-words",
        ConfigOptions.defaults().withInstance("web-7", Map.of("zone", "us-1")))) {
      Cli.Run nobody = cli("config", "gray", "set", "/cli33-words", "feature/x", "on", "--labels", "zone=nowhere");
      assertThat(nobody.exitCode()).isEqualTo(BatonCommand.USAGE);
      assertThat(nobody.err()).contains("the gray rule 'labels zone=nowhere' for feature/x matches no live instance")
          .contains("web-7 (zone=us-1)").contains("--instance ID --labels K=V")
          .doesNotContain("GrayRule[").doesNotContain("ConfigInstance[");
      assertThat(web.gray("feature/x")).isEmpty();

      Cli.Run ids = cli("config", "gray", "set", "/cli33-words", "feature/x", "on", "--ids", "web-7,web-8");
      assertThat(ids.exitCode()).as(ids.err()).isZero();
      assertThat(ids.out().strip()).isEqualTo("gray release of feature/x published: on for ids web-7,web-8");
      Cli.Run percent = cli("config", "gray", "set", "/cli33-words", "feature/x", "on", "--percent", "100");
      assertThat(percent.out().strip()).isEqualTo("gray release of feature/x published: on for percent 100");
    }
  }

  @Test
  void watchInstanceOptions_badInputIsAUsageErrorNamingTheOption() {
    Cli.Run labelsAlone = cli("config", "watch", "/cli33-bad", "--labels", "zone=eu-1");
    assertThat(labelsAlone.exitCode()).isEqualTo(BatonCommand.USAGE);
    assertThat(labelsAlone.err()).contains("--instance");
    Cli.Run blankId = cli("config", "watch", "/cli33-bad", "--instance", " ");
    assertThat(blankId.exitCode()).isEqualTo(BatonCommand.USAGE);
    assertThat(blankId.err()).contains("--instance").contains("blank");
    Cli.Run blankLabel = cli("config", "watch", "/cli33-bad", "--instance", "a", "--labels", "=eu-1");
    assertThat(blankLabel.exitCode()).isEqualTo(BatonCommand.USAGE);
    assertThat(blankLabel.err()).contains("--labels");
  }

  @Test
  void consoleAndReach_printRulesAndInstancesAsTyped() {
    try (ConfigCenter canary = ConfigCenter.open(baton, "/cli33-console",
        ConfigOptions.defaults().withInstance("canary-1", Map.of("zone", "eu-1")))) {
      canary.set("feature/x", "off");
      canary.grayRelease("feature/x", "on", GrayRule.forLabels(Map.of("zone", "eu-1")));
      try (ConsoleConfig console = new ConsoleConfig(baton, List.of("/cli33-console"))) {
        @SuppressWarnings("unchecked")
        Map<String, Object> view = (Map<String, Object>) console.snapshot().get(0);
        @SuppressWarnings("unchecked")
        Map<String, Object> key = (Map<String, Object>) ((List<Object>) view.get("keys")).get(0);
        assertThat(key.get("gray")).isEqualTo(Map.of("candidate", "on", "rule", "labels zone=eu-1"));
      }
      assertThat(cli("config", "gray", "reach", "/cli33-console", "feature/x").out().strip())
          .isEqualTo("canary-1 (zone=eu-1)");
    }
  }

  // ---- import and export: one layout, dry run, prune ----------------------------------------

  @Test
  void importDryRun_printsTheDiff_andWritesNothing(@TempDir Path dir) throws Exception {
    try (ConfigCenter config = ConfigCenter.open(baton, "/cli33-dry")) {
      config.set("db/url", "jdbc:old");
      config.set("db/pool/size", "10");
      config.set("legacy/flag", "on");
      Path file = dir.resolve("app.yaml");
      Files.writeString(file, "db:\n  url: jdbc:new\n  pool:\n    size: 10\nhosts: [a, b]\n");

      Cli.Run dry = cli("config", "import", "/cli33-dry", file.toString(), "--dry-run", "--prune");

      assertThat(dry.exitCode()).as(dry.err()).isZero();
      assertThat(dry.out().lines()).containsExactly(
          "~ db/url: jdbc:old -> jdbc:new",
          "+ hosts: [\"a\",\"b\"]",
          "- legacy/flag: on",
          "dry run: 1 added, 1 changed, 1 removed; nothing written");
      assertThat(config.snapshot()).isEqualTo(Map.of("db/url", "jdbc:old", "db/pool/size", "10", "legacy/flag", "on"));
      Cli.Run plain = cli("config", "import", "/cli33-dry", file.toString(), "--dry-run");
      assertThat(plain.out().lines()).as("keys left out are left alone without --prune")
          .containsExactly("~ db/url: jdbc:old -> jdbc:new", "+ hosts: [\"a\",\"b\"]",
              "dry run: 1 added, 1 changed, 0 removed; nothing written");
    }
  }

  @Test
  void importPrune_deletesKeysLeftOut_withHistory_andAnEmptyFileCannotWipeTheConfig(@TempDir Path dir)
      throws Exception {
    try (ConfigCenter config = ConfigCenter.open(baton, "/cli33-prune", ConfigOptions.defaults().withHistory(5))) {
      config.set("keep", "1");
      config.set("old/a", "x");
      config.set("db/url", "u");
      Path file = dir.resolve("app.properties");
      Files.writeString(file, "keep=2\n");
      Path empty = dir.resolve("empty.json");
      Files.writeString(empty, "{}\n");

      Cli.Run refused = cli("config", "import", "/cli33-prune", empty.toString(), "--prune");
      assertThat(refused.exitCode()).isEqualTo(BatonCommand.USAGE);
      assertThat(refused.err()).contains("empty.json").contains("holds no key").contains("nothing was written");
      Cli.Run scoped = cli("config", "import", "/cli33-prune", file.toString(), "--prune", "--keys", "db");
      assertThat(scoped.exitCode()).isEqualTo(BatonCommand.USAGE);
      assertThat(scoped.err()).contains("'keep'").contains("outside").contains("'db'");
      assertThat(config.snapshot()).hasSize(3);

      Cli.Run pruned = cli("config", "import", "/cli33-prune", file.toString(), "--prune");
      assertThat(pruned.exitCode()).as(pruned.err()).isZero();
      assertThat(pruned.out().lines()).containsExactly("- db/url: u", "~ keep: 1 -> 2", "- old/a: x",
          "3 keys written: 0 added, 1 changed, 2 removed");
      await().until(() -> config.snapshot().equals(Map.of("keep", "2")));
      assertThat(config.history("old/a").get(0).operation()).isEqualTo("import");

      Cli.Run wiped = cli("config", "import", "/cli33-prune", empty.toString(), "--prune", "--allow-empty");
      assertThat(wiped.exitCode()).as(wiped.err()).isZero();
      await().until(() -> config.snapshot().isEmpty());
    }
  }

  @Test
  void exportYaml_givesBackTheFileStructure_andBadFilesNameTheLine(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("app.yml");
    String yaml = """
        db: primary
        db/pool:
          size: 10
        db/url: jdbc:postgresql://db:5432/shop
        hosts:
        - a
        - "b, c"
        spring.datasource.username: shop
        """;
    Files.writeString(file, yaml);
    assertThat(cli("config", "import", "/cli33-yaml", file.toString()).exitCode()).isZero();

    Cli.Run export = cli("config", "export", "/cli33-yaml", "--format", "yaml");
    assertThat(export.out()).isEqualTo(yaml);
    Cli.Run properties = cli("config", "export", "/cli33-yaml");
    assertThat(properties.out()).contains("db/pool/size=10\n").contains("hosts=[\"a\",\"b, c\"]\n");

    Files.writeString(file, "a: 1\nb:\n  c: 2\nb/c: 3\n");
    Cli.Run twice = cli("config", "import", "/cli33-yaml-bad", file.toString());
    assertThat(twice.exitCode()).isEqualTo(BatonCommand.USAGE);
    assertThat(twice.err()).contains("app.yml").contains("'b/c' twice, at line 3 and at line 4");
    Files.writeString(file, "a: [1, 2\n");
    Cli.Run malformed = cli("config", "import", "/cli33-yaml-bad", file.toString());
    assertThat(malformed.exitCode()).isEqualTo(BatonCommand.USAGE);
    assertThat(malformed.err()).contains("malformed").contains("line");
    try (ConfigCenter config = ConfigCenter.open(baton, "/cli33-yaml-bad")) {
      assertThat(config.snapshot()).isEmpty();
    }
  }
}
