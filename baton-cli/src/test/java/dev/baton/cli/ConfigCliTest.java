package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.config.ConfigCenter;
import java.util.List;
import org.junit.jupiter.api.Test;

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
}
