package dev.baton.cli.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.Baton;
import dev.baton.cli.command.StandaloneZooKeeper;
import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import dev.baton.testkit.FaultProxy;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The console's JSON API and its live stream, in Java, in every run. */
class ConsoleServerTest extends StandaloneZooKeeper {
  static final ObjectMapper JSON = new ObjectMapper();
  static final HttpClient HTTP = HttpClient.newHttpClient();

  static ConsoleServer console(Baton client, String root, boolean allowWrites) throws Exception {
    ConsoleServer server = new ConsoleServer(client, new ConsoleModel(client, root), allowWrites,
        new InetSocketAddress("127.0.0.1", 0));
    server.start(Duration.ofSeconds(10));
    return server;
  }

  static JsonNode get(ConsoleServer server, String path) throws Exception {
    HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + server.port() + path)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  static HttpResponse<String> revoke(ConsoleServer server, String lockPath) throws Exception {
    return post(server, "/api/revoke", java.util.Map.of("path", lockPath));
  }

  static HttpResponse<String> post(ConsoleServer server, String path, Object body) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
        .build(), HttpResponse.BodyHandlers.ofString());
  }

  static JsonNode lock(JsonNode state, String path) {
    for (JsonNode lock : state.get("locks")) {
      if (lock.get("path").asText().equals(path)) {
        return lock;
      }
    }
    return null;
  }

  @Test
  void state_showsEachLockWithHolderAndWaitersInLine_andAPathWithOddCharacters() throws Exception {
    String odd = "/console-a/sku 42 \"ünï\" <b>&amp;";
    Mutex mutex = baton.mutex(odd);
    try (ConsoleServer server = console(baton, "/console-a", false);
         Baton other = Baton.connect(cluster.connectString());
         Lease lease = mutex.acquire(Duration.ofSeconds(5))) {
      CompletableFuture<Lease> waiting = other.mutex(odd).acquireAsync();
      await().untilAsserted(() -> {
        JsonNode lock = lock(get(server, "/api/state"), odd);
        assertThat(lock).isNotNull();
        assertThat(lock.get("kind").asText()).isEqualTo("mutex");
        assertThat(lock.get("holders").get(0).get("token").asLong()).isEqualTo(lease.fencingToken());
        assertThat(lock.get("waiters")).hasSize(1);
        assertThat(lock.get("waiters").get(0).get("session").asText()).isEqualTo("0x" + Long.toHexString(other.sessionId()));
        assertThat(lock.get("waiters").get(0).get("queuedAtMillis").asLong()).isPositive();
      });
      JsonNode state = get(server, "/api/state");
      assertThat(state.get("connection").asText()).isEqualTo("CONNECTED");
      assertThat(state.get("allowWrites").asBoolean()).isFalse();
      lease.close();
      waiting.join().close();
    }
  }

  @Test
  void events_streamAPictureAfterEveryChange() throws Exception {
    try (ConsoleServer server = console(baton, "/console-b", false)) {
      HttpResponse<InputStream> stream = HTTP.send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + server.port() + "/api/events")).build(), HttpResponse.BodyHandlers.ofInputStream());
      assertThat(stream.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/event-stream"));
      List<String> data = new CopyOnWriteArrayList<>();
      Thread reader = new Thread(() -> {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8))) {
          String line;
          while ((line = lines.readLine()) != null) {
            if (line.startsWith("data: ")) {
              data.add(line.substring(6));
            }
          }
        } catch (java.io.IOException closed) {
          // The server closed the stream.
        }
      });
      reader.setDaemon(true);
      reader.start();
      await().until(() -> !data.isEmpty()); // the picture as it stood

      try (Lease lease = baton.mutex("/console-b/orders").acquire(Duration.ofSeconds(5))) {
        await().until(() -> data.stream().anyMatch(d -> d.contains("/console-b/orders")
            && d.contains("\"token\":" + lease.fencingToken())));
      }
      await().until(() -> {
        JsonNode last = JSON.readTree(data.get(data.size() - 1));
        JsonNode lock = lock(last, "/console-b/orders");
        return lock == null || lock.get("holders").isEmpty();
      });
    }
  }

  @Test
  void revoke_withoutAllowWrites_isRefused_andNothingIsWritten() throws Exception {
    Mutex mutex = baton.mutex("/console-c/job");
    AtomicBoolean asked = new AtomicBoolean();
    try (ConsoleServer server = console(baton, "/console-c", false);
         Lease lease = mutex.acquire(Duration.ofSeconds(5))) {
      lease.makeRevocable(l -> asked.set(true));
      String holderBefore = mutex.holder().orElseThrow().toString();

      HttpResponse<String> response = revoke(server, "/console-c/job");

      assertThat(response.statusCode()).isEqualTo(403);
      assertThat(response.body()).contains("--allow-writes");
      assertThat(mutex.holder().orElseThrow().toString()).isEqualTo(holderBefore);
      assertThat(asked).isFalse();
    }
  }

  @Test
  void revoke_withAllowWrites_asksTheHolder_andRefusesWhatIsNotAMutex() throws Exception {
    Mutex mutex = baton.mutex("/console-d/job");
    AtomicBoolean asked = new AtomicBoolean();
    try (ConsoleServer server = console(baton, "/console-d", true);
         Lease lease = mutex.acquire(Duration.ofSeconds(5))) {
      lease.makeRevocable(l -> asked.set(true));

      HttpResponse<String> response = revoke(server, "/console-d/job");
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      assertThat(JSON.readTree(response.body()).get("asked").asBoolean()).isTrue();
      await().untilTrue(asked);

      HttpResponse<String> bad = revoke(server, "no-slash");
      assertThat(bad.statusCode()).isEqualTo(400);
      assertThat(bad.body()).contains("no-slash");
      HttpResponse<String> form = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/api/revoke"))
          .header("Content-Type", "application/x-www-form-urlencoded")
          .POST(HttpRequest.BodyPublishers.ofString("path=/console-d/job")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(form.statusCode()).isEqualTo(415);
    }
  }

  @Test
  void aLostConnection_showsOnThePage_andTheConsoleRecovers() throws Exception {
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
         Baton client = Baton.builder().connectString(proxy.connectString()).sessionTimeout(Duration.ofSeconds(2)).build();
         ConsoleServer server = console(client, "/console-e", false)) {
      proxy.blackhole();
      await().atMost(Duration.ofSeconds(30)).until(() -> !get(server, "/api/state").get("connection").asText().equals("CONNECTED"));
      try (Lease lease = baton.mutex("/console-e/while-away").acquire(Duration.ofSeconds(5))) {
        proxy.restore();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
          JsonNode state = get(server, "/api/state");
          assertThat(state.get("connection").asText()).isIn("CONNECTED", "RECONNECTED");
          assertThat(state.get("synced").asBoolean()).isTrue();
          JsonNode lock = lock(state, "/console-e/while-away");
          assertThat(lock).isNotNull();
          assertThat(lock.get("holders").get(0).get("token").asLong()).isEqualTo(lease.fencingToken());
        });
      }
    }
  }

  @Test
  void services_showEachInstance_andWhetherItIsUp() throws Exception {
    try (ConsoleServer server = console(baton, "/console-g", false);
         dev.baton.discovery.ServiceRegistry registry = dev.baton.discovery.ServiceRegistry.open(baton, "/console-g");
         dev.baton.discovery.Registration up = registry.register(dev.baton.discovery.ServiceInstance.builder("orders")
             .id("o-1").address("10.0.0.1").port(8080).build());
         dev.baton.discovery.Registration down = registry.register(dev.baton.discovery.ServiceInstance.builder("orders")
             .id("o-2").address("10.0.0.2").port(8080).enabled(false).build())) {
      await().untilAsserted(() -> {
        JsonNode services = get(server, "/api/state").get("services");
        assertThat(services).hasSize(1);
        JsonNode instances = services.get(0).get("instances");
        assertThat(instances).hasSize(2);
        assertThat(instances.get(0).get("id").asText()).isEqualTo("o-1");
        assertThat(instances.get(0).get("address").asText()).isEqualTo("10.0.0.1");
        assertThat(instances.get(0).get("enabled").asBoolean()).isTrue();
        assertThat(instances.get(1).get("enabled").asBoolean()).isFalse();
      });
    }
  }

  @Test
  void config_showsKeysVersionsAndGray_historyOnDemand_andWritesOnlyWithAllowWrites() throws Exception {
    try (dev.baton.config.ConfigCenter writer = dev.baton.config.ConfigCenter.open(baton, "/console-cfg",
        dev.baton.config.ConfigOptions.defaults().withHistory(5))) {
      writer.set("db/pool", "10");
      writer.set("db/pool", "12");
      writer.set("feature/x", "off");
      for (boolean allowWrites : new boolean[] {false, true}) {
        try (ConsoleServer server = new ConsoleServer(baton, new ConsoleModel(baton, "/console-cfg-locks"),
            new ConsoleConfig(baton, java.util.List.of("/console-cfg")), allowWrites, new InetSocketAddress("127.0.0.1", 0))) {
          server.start(Duration.ofSeconds(10));
          await().untilAsserted(() -> {
            JsonNode keys = get(server, "/api/state").get("config").get(0).get("keys");
            assertThat(keys).hasSize(2);
            assertThat(keys.get(0).get("key").asText()).isEqualTo("db/pool");
            assertThat(keys.get(0).get("value").asText()).isEqualTo("12");
          });
          JsonNode history = get(server, "/api/config/history?prefix=%2Fconsole-cfg&key=db%2Fpool");
          assertThat(history.get("revisions").get(0).get("version").asInt()).isEqualTo(1);

          HttpResponse<String> rollback = post(server, "/api/config/rollback",
              java.util.Map.of("prefix", "/console-cfg", "key", "db/pool", "version", 0));
          if (!allowWrites) {
            assertThat(rollback.statusCode()).isEqualTo(403);
            assertThat(writer.get("db/pool")).hasValue("12");
            continue;
          }
          assertThat(rollback.statusCode()).as(rollback.body()).isEqualTo(200);
          await().until(() -> writer.get("db/pool").orElse("").equals("10"));

          HttpResponse<String> notKept = post(server, "/api/config/rollback",
              java.util.Map.of("prefix", "/console-cfg", "key", "db/pool", "version", 99));
          assertThat(notKept.statusCode()).isEqualTo(400);
          HttpResponse<String> otherPrefix = post(server, "/api/config/abort", java.util.Map.of("prefix", "/elsewhere", "key", "a"));
          assertThat(otherPrefix.statusCode()).isEqualTo(400);
          assertThat(otherPrefix.body()).contains("--config /elsewhere");
        }
      }
    }
  }

  /** 'baton console' shows / by default: the whole tree, not "cache path '/' is the root". */
  @Test
  void aConsoleOnTheRoot_showsLocksAnywhereInTheTree() throws Exception {
    try (ConsoleServer server = console(baton, "/", false);
         Lease lease = baton.mutex("/console-root/deep/job").acquire(Duration.ofSeconds(5))) {
      await().untilAsserted(() -> {
        JsonNode state = get(server, "/api/state");
        assertThat(state.get("root").asText()).isEqualTo("/");
        JsonNode lock = lock(state, "/console-root/deep/job");
        assertThat(lock).isNotNull();
        assertThat(lock.get("holders").get(0).get("token").asLong()).isEqualTo(lease.fencingToken());
      });
    }
  }

  @Test
  void thePageAndItsScript_areServedFromTheJar() throws Exception {
    try (ConsoleServer server = console(baton, "/console-f", false)) {
      HttpResponse<String> page = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(page.statusCode()).isEqualTo(200);
      assertThat(page.body()).contains("<title>Baton console</title>", "console.js");
      HttpResponse<String> script = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/console.js")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(script.body()).contains("EventSource").doesNotContain("innerHTML");
      HttpResponse<String> missing = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/etc/passwd")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(missing.statusCode()).isEqualTo(404);
    }
  }
}
