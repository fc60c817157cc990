package dev.baton.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import dev.baton.ConnectionState;
import dev.baton.testkit.FaultProxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The snapshot file: a process that starts while the ensemble is down serves the values it saved
 * last time, marked as such, and switches to the live ones once connected, telling listeners only
 * of real differences; the file follows every change, is replaced atomically, and a file that
 * cannot be used is refused with an error naming it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConfigSnapshotTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path directory;

  private Path file;

  @BeforeEach
  void file() {
    file = directory.resolve("shop-config.json");
  }

  private ConfigOptions withFile() {
    return ConfigOptions.defaults().withSnapshotFile(file);
  }

  /** A client behind a proxy that is cut: the ensemble is unreachable until the proxy is restored. */
  private Baton clientWhileEnsembleIsDown(FaultProxy proxy) {
    proxy.cut();
    return closing(Baton.builder().connectString(proxy.connectString()).sessionTimeout(WAIT)
        .connectInBackground().build());
  }

  @Test
  void startWithTheEnsembleDown_servesTheSnapshot_thenTheLiveValues_tellingOnlyTheDifferences() throws Exception {
    try (Baton firstRun = baton(); ConfigCenter config = ConfigCenter.open(firstRun, "/cfg-snap", withFile())) {
      config.set("db/url", "jdbc:one");
      config.set("pool/size", "10");
      config.set("feature/gone", "on");
      await().atMost(WAIT).until(() -> saved().equals(Map.of("db/url", "jdbc:one", "pool/size", "10",
          "feature/gone", "on")));
    }
    // While the process is down, the config changes.
    ConfigCenter writer = closing(ConfigCenter.open(baton(), "/cfg-snap"));
    writer.set("db/url", "jdbc:two");
    writer.delete("feature/gone");
    writer.create("feature/new", "off");
    FaultProxy proxy = closing(FaultProxy.start(cluster.address(0)));

    Baton restarted = clientWhileEnsembleIsDown(proxy);
    ConfigCenter config = closing(ConfigCenter.open(restarted, "/cfg-snap", withFile()));

    assertThat(restarted.connectionState()).isEqualTo(ConnectionState.SUSPENDED);
    assertThat(config.source()).isEqualTo(ConfigSource.SNAPSHOT);
    assertThat(config.isSynced()).isFalse();
    assertThat(config.snapshot()).isEqualTo(Map.of("db/url", "jdbc:one", "pool/size", "10", "feature/gone", "on"));
    assertThat(config.getInt("pool/size", 1)).isEqualTo(10);
    assertThat(config.entry("db/url")).contains(new ConfigEntry("db/url", "jdbc:one", 0));
    List<String> heard = new CopyOnWriteArrayList<>();
    config.addListener((key, oldValue, newValue) -> heard.add(key + ":" + oldValue + "->" + newValue));

    proxy.restore();

    await().atMost(WAIT).until(config::isSynced);
    assertThat(config.source()).isEqualTo(ConfigSource.ENSEMBLE);
    assertThat(config.snapshot()).isEqualTo(Map.of("db/url", "jdbc:two", "pool/size", "10", "feature/new", "off"));
    writer.set("marker", "m");
    await().atMost(WAIT).until(() -> heard.contains("marker:null->m"));
    assertThat(heard).as("pool/size did not change: not told").hasSize(4).endsWith("marker:null->m")
        .containsExactlyInAnyOrder("db/url:jdbc:one->jdbc:two", "feature/gone:on->null", "feature/new:null->off",
            "marker:null->m");
    await().atMost(WAIT).until(() -> saved().equals(config.snapshot()));
  }

  @Test
  void startWithTheEnsembleDownAndNoFile_servesNothing_thenTheLiveValues() throws Exception {
    closing(ConfigCenter.open(baton(), "/cfg-snap-none")).set("k", "v");
    FaultProxy proxy = closing(FaultProxy.start(cluster.address(0)));

    ConfigCenter config = closing(ConfigCenter.open(clientWhileEnsembleIsDown(proxy), "/cfg-snap-none", withFile()));

    assertThat(config.source()).isEqualTo(ConfigSource.NONE);
    assertThat(config.snapshot()).isEmpty();
    assertThat(config.get("k", "default")).isEqualTo("default");
    assertThat(config.awaitSynced(Duration.ofMillis(100))).isFalse();
    proxy.restore();
    assertThat(config.awaitSynced(WAIT)).isTrue();
    assertThat(config.source()).isEqualTo(ConfigSource.ENSEMBLE);
    assertThat(config.get("k")).contains("v");
    await().atMost(WAIT).until(() -> saved().equals(Map.of("k", "v")));
  }

  @Test
  void theFile_followsEveryChange_andIsReplacedWhole() throws Exception {
    ConfigCenter config = closing(ConfigCenter.open(baton(), "/cfg-snap-follow", withFile()));
    ConfigCenter other = closing(ConfigCenter.open(baton(), "/cfg-snap-follow"));

    for (int i = 0; i < 20; i++) {
      config.set("own", Integer.toString(i));
    }
    await().atMost(WAIT).until(() -> saved().equals(Map.of("own", "19")));
    other.set("theirs", "t");
    await().atMost(WAIT).until(() -> saved().equals(Map.of("own", "19", "theirs", "t")));
    other.delete("own");
    await().atMost(WAIT).until(() -> saved().equals(Map.of("theirs", "t")));

    JsonNode root = JSON.readTree(file.toFile());
    assertThat(root.path("path").asText()).isEqualTo("/cfg-snap-follow");
    assertThat(root.path("entries").path("theirs").path("version").asInt()).isZero();
    try (Stream<Path> files = Files.list(directory)) {
      assertThat(files).as("no temporary file left").containsExactly(file);
    }
  }

  @Test
  void corruptOrForeignFile_isRefusedNamingTheFile_andNothingIsStarted() throws Exception {
    await().atMost(WAIT).until(() -> cluster.metrics(0).get("zk_watch_count").equals("0"));
    Baton client = baton();
    Map<String, String> cases = new TreeMap<>(Map.of(
        "not json {", "not valid JSON",
        "{\"entries\":{}}", "not a Baton config snapshot",
        "{\"format\":\"baton-config-snapshot/1\",\"path\":\"/cfg-snap-bad\",\"entries\":{\"k\":{\"value\":1}}}",
        "entry 'k'",
        "{\"format\":\"baton-config-snapshot/1\",\"path\":\"/cfg-snap-bad\",\"entries\":{\"a//b\":{\"value\":\"x\",\"version\":0}}}",
        "a//b"));
    for (Map.Entry<String, String> bad : cases.entrySet()) {
      Files.writeString(file, bad.getKey(), StandardCharsets.UTF_8);
      assertThatThrownBy(() -> ConfigCenter.open(client, "/cfg-snap-bad", withFile()))
          .isInstanceOfSatisfying(ConfigSnapshotException.class, e -> assertThat(e.file()).isEqualTo(file))
          .hasMessageContaining(file.toString()).hasMessageContaining("corrupt").hasMessageContaining(bad.getValue());
    }

    Files.writeString(file, "{\"format\":\"baton-config-snapshot/1\",\"path\":\"/other\",\"entries\":{}}");
    assertThatThrownBy(() -> ConfigCenter.open(client, "/cfg-snap-bad", withFile()))
        .isInstanceOf(ConfigSnapshotException.class).hasMessageContaining(file.toString())
        .hasMessageContaining("/other").hasMessageContaining("/cfg-snap-bad");

    Path notADirectory = directory.resolve("plain-file");
    Files.writeString(notADirectory, "x");
    Path unreadable = notADirectory.resolve("config.json");
    assertThatThrownBy(() -> ConfigCenter.open(client, "/cfg-snap-bad", ConfigOptions.defaults().withSnapshotFile(unreadable)))
        .isInstanceOf(ConfigSnapshotException.class).hasMessageContaining("Cannot read")
        .hasMessageContaining(unreadable.toString());

    assertThat(cluster.metrics(0).get("zk_watch_count")).as("no watch set").isEqualTo("0");
    assertThat(Files.readString(file)).as("the file is left as it was").contains("/other");
  }

  /** The entries of the snapshot file, or an empty map while there is none. */
  private Map<String, String> saved() throws Exception {
    if (!Files.exists(file)) {
      return Map.of();
    }
    Map<String, String> entries = new TreeMap<>();
    JSON.readTree(file.toFile()).path("entries").fields()
        .forEachRemaining(e -> entries.put(e.getKey(), e.getValue().path("value").asText()));
    return entries;
  }
}
