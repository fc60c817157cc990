package dev.baton.cli.command;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.cli.BatonCommand;
import dev.baton.config.ConfigCenter;
import dev.baton.config.ConfigOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code baton config history | rollback | export | import | gray}. */
class ConfigReleaseCommandsTest extends StandaloneZooKeeper {

  private static Cli.Run cli(String... args) {
    String[] all = java.util.Arrays.copyOf(args, args.length + 2);
    all[args.length] = "--connect";
    all[args.length + 1] = cluster.connectString();
    return Cli.run(all);
  }

  @Test
  void setsKeepHistory_historyListsThem_andRollbackWritesAnOldValueBack() throws Exception {
    assertThat(cli("config", "set", "/cli-hist", "db/pool", "10").exitCode()).isZero();
    assertThat(cli("config", "set", "/cli-hist", "db/pool", "20").exitCode()).isZero();

    Cli.Run history = cli("config", "history", "/cli-hist", "db/pool");
    assertThat(history.exitCode()).as(history.err()).isZero();
    assertThat(history.out().lines()).hasSize(2);
    assertThat(history.out().lines().findFirst()).hasValueSatisfying(line -> assertThat(line)
        .startsWith("version=1 ").contains("value=20", "pid " + ProcessHandle.current().pid()));

    Cli.Run rollback = cli("config", "rollback", "/cli-hist", "db/pool", "0");
    assertThat(rollback.exitCode()).as(rollback.err()).isZero();
    assertThat(rollback.out()).contains("db/pool=10", "version=2");
    try (ConfigCenter config = ConfigCenter.open(baton, "/cli-hist")) {
      assertThat(config.get("db/pool")).hasValue("10");
    }
    JsonNode json = new ObjectMapper().readTree(cli("config", "history", "/cli-hist", "db/pool", "--json").out());
    assertThat(json.get("revisions").get(0).get("operation").asText()).contains("rollback");

    Cli.Run notKept = cli("config", "rollback", "/cli-hist", "db/pool", "42");
    assertThat(notKept.exitCode()).isEqualTo(BatonCommand.USAGE);
    assertThat(notKept.err()).contains("db/pool").contains("42");
  }

  @Test
  void exportThenImport_copiesKeysBetweenPrefixes_inEachFormat(@TempDir Path dir) throws Exception {
    try (ConfigCenter source = ConfigCenter.open(baton, "/cli-export")) {
      source.set("db/url", "jdbc:h2:mem");
      source.set("db/pool", "8");
    }
    for (String format : new String[] {"properties", "yaml", "json"}) {
      Cli.Run export = cli("config", "export", "/cli-export", "--format", format);
      assertThat(export.exitCode()).as(export.err()).isZero();
      Path file = dir.resolve("config." + (format.equals("properties") ? "properties" : format));
      Files.writeString(file, export.out());

      Cli.Run imported = cli("config", "import", "/cli-import-" + format, file.toString());
      assertThat(imported.exitCode()).as(imported.err()).isZero();
      assertThat(imported.out().strip()).endsWith("2 keys written: 2 added, 0 changed, 0 removed");
      try (ConfigCenter copy = ConfigCenter.open(baton, "/cli-import-" + format)) {
        assertThat(copy.snapshot()).isEqualTo(Map.of("db/url", "jdbc:h2:mem", "db/pool", "8"));
      }
    }
    Cli.Run badFormat = cli("config", "export", "/cli-export", "--format", "toml");
    assertThat(badFormat.exitCode()).isEqualTo(BatonCommand.USAGE);
    assertThat(badFormat.err()).contains("--format must be properties, yaml or json, was 'toml'");
    Cli.Run missing = cli("config", "import", "/cli-import-x", dir.resolve("nope.yaml").toString());
    assertThat(missing.exitCode()).isEqualTo(BatonCommand.USAGE);
    assertThat(missing.err()).contains("nope.yaml").contains("not a readable file");
  }

  @Test
  void graySetPromoteAbort_reachExactlyTheMatchingInstances() {
    try (ConfigCenter canary = ConfigCenter.open(baton, "/cli-gray",
             ConfigOptions.defaults().withInstance("canary-1", Map.of("zone", "eu-1")));
         ConfigCenter other = ConfigCenter.open(baton, "/cli-gray",
             ConfigOptions.defaults().withInstance("web-7", Map.of("zone", "us-1")))) {
      assertThat(cli("config", "set", "/cli-gray", "feature/x", "off").exitCode()).isZero();
      org.awaitility.Awaitility.await().atMost(WAIT).until(() -> canary.get("feature/x").isPresent() && other.get("feature/x").isPresent());

      Cli.Run set = cli("config", "gray", "set", "/cli-gray", "feature/x", "on", "--labels", "zone=eu-1");
      assertThat(set.exitCode()).as(set.err()).isZero();
      org.awaitility.Awaitility.await().atMost(WAIT).until(() -> canary.get("feature/x").orElse("").equals("on"));
      assertThat(other.get("feature/x")).hasValue("off");
      Cli.Run reach = cli("config", "gray", "reach", "/cli-gray", "feature/x", "--json");
      assertThat(reach.exitCode()).as(reach.err()).isZero();
      assertThat(reach.out()).contains("\"canary-1\"").contains("eu-1").doesNotContain("web-7")
          .doesNotContain("baton-cli");
      Cli.Run nobody = cli("config", "gray", "set", "/cli-gray", "feature/x", "on", "--labels", "zone=nowhere");
      assertThat(nobody.exitCode()).isNotZero();
      assertThat(nobody.err()).contains("matches no live instance").contains("feature/x");
      assertThat(canary.gray("feature/x").orElseThrow().rule().labels()).containsEntry("zone", "eu-1");

      assertThat(cli("config", "gray", "abort", "/cli-gray", "feature/x").exitCode()).isZero();
      org.awaitility.Awaitility.await().atMost(WAIT).until(() -> canary.get("feature/x").orElse("").equals("off"));

      Cli.Run toWeb = cli("config", "gray", "set", "/cli-gray", "feature/x", "on", "--ids", "web-7");
      assertThat(toWeb.exitCode()).as(toWeb.err()).isZero();
      org.awaitility.Awaitility.await().atMost(WAIT).until(() -> other.get("feature/x").orElse("").equals("on"));
      Cli.Run promote = cli("config", "gray", "promote", "/cli-gray", "feature/x");
      assertThat(promote.exitCode()).as(promote.err()).isZero();
      org.awaitility.Awaitility.await().atMost(WAIT).until(() -> canary.get("feature/x").orElse("").equals("on"));

      Cli.Run nothing = cli("config", "gray", "abort", "/cli-gray", "feature/x");
      assertThat(nothing.exitCode()).isEqualTo(BatonCommand.FAILURE);
      assertThat(nothing.err()).contains("no gray release of feature/x");
      Cli.Run noRule = cli("config", "gray", "set", "/cli-gray", "feature/x", "on");
      assertThat(noRule.exitCode()).isEqualTo(BatonCommand.USAGE);
    }
  }
}
