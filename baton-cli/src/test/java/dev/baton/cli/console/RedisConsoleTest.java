package dev.baton.cli.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.cli.BatonCommand;
import dev.baton.cli.command.Cli;
import dev.baton.cli.command.FollowingCommandsTest;
import dev.baton.cli.command.RedisTree;
import dev.baton.embedded.EmbeddedRedis;
import dev.baton.lock.Lease;
import dev.baton.redis.RedisBaton;
import dev.baton.redis.RedisLockLayout;
import dev.baton.redis.RedisMutexOptions;
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
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code baton console --redis}: a real redis-server's Baton locks in the console's API and event
 * stream, request by request, with the same access checks as the ZooKeeper console.
 */
class RedisConsoleTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final String TOKEN = "s3cret-token-of-the-redis-test";
  private static EmbeddedRedis redis;
  private static RedisBaton baton;

  @BeforeAll
  static void startRedis() {
    redis = EmbeddedRedis.start();
    baton = RedisBaton.connect(redis.uri());
  }

  @AfterAll
  static void stopRedis() {
    baton.close();
    redis.close();
  }

  private static ConsoleServer console(ConsoleAccess access) throws Exception {
    return console(baton, redis.uri(), access);
  }

  private static ConsoleServer console(RedisBaton reader, String uri, ConsoleAccess access) throws Exception {
    ConsoleServer server = new ConsoleServer(RedisConsoleModel.open(reader, uri, null, null, Duration.ofSeconds(10)),
        new InetSocketAddress("127.0.0.1", 0), access, null);
    server.start(Duration.ofSeconds(10));
    return server;
  }

  private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpRequest.Builder request(ConsoleServer server, String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path));
  }

  private static JsonNode state(ConsoleServer server) throws Exception {
    HttpResponse<String> response = send(request(server, "/api/state"));
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  private static JsonNode lock(JsonNode state, String name) {
    for (JsonNode lock : state.get("locks")) {
      if (lock.get("path").asText().equals(name)) {
        return lock;
      }
    }
    return null;
  }

  @Test
  void state_showsEachLock_inBothLayouts_withHolderTokenExpiryAndWaiters() throws Exception {
    RedisMutexOptions redisson = RedisMutexOptions.defaults().withLayout(RedisLockLayout.REDISSON);
    try (ConsoleServer server = console(ConsoleAccess.loopback());
         RedisBaton other = RedisBaton.connect(redis.uri());
         Lease plain = baton.mutex("orders:{eu} \"ünï\" <b>").acquire(Duration.ofSeconds(5));
         Lease hash = baton.mutex("stock-42", redisson).acquire(Duration.ofSeconds(5))) {
      CompletableFuture<Lease> waiting = other.mutex("orders:{eu} \"ünï\" <b>").acquireAsync();
      await().untilAsserted(() -> {
        JsonNode state = state(server);
        assertThat(state.get("backend").asText()).isEqualTo("Redis");
        assertThat(state.get("connection").asText()).isEqualTo("CONNECTED");
        JsonNode orders = lock(state, "orders:{eu} \"ünï\" <b>");
        assertThat(orders).as(state.toString()).isNotNull();
        assertThat(orders.get("layout").asText()).isEqualTo("plain");
        assertThat(orders.get("holders").get(0).get("token").asLong()).isEqualTo(plain.fencingToken());
        assertThat(orders.get("holders").get(0).get("pid").asLong()).isEqualTo(ProcessHandle.current().pid());
        assertThat(orders.get("expiresAtMillis").asLong()).isGreaterThan(state.get("now").asLong());
        assertThat(orders.get("waiters")).hasSize(1);
        JsonNode stock = lock(state, "stock-42");
        assertThat(stock).as(state.toString()).isNotNull();
        assertThat(stock.get("layout").asText()).isEqualTo("redisson");
        assertThat(stock.get("holders").get(0).get("token").asLong()).isEqualTo(hash.fencingToken());
      });
      assertThat(state(server).get("allowWrites").asBoolean()).isFalse();
      plain.close();
      waiting.join().close();
      await().untilAsserted(() -> {
        JsonNode orders = lock(state(server), "orders:{eu} \"ünï\" <b>");
        assertThat(orders.get("holders")).isEmpty();
        assertThat(orders.get("waiters")).isEmpty();
        assertThat(orders.get("expiresAtMillis").isNull()).isTrue();
      });
    }
  }

  /** Issue 36: read-write locks and semaphores are shown beside the mutexes, as on ZooKeeper. */
  @Test
  void state_showsReadWriteLocksAndSemaphores_withTheirHolders() throws Exception {
    try (ConsoleServer server = console(ConsoleAccess.loopback());
         Lease writer = baton.readWriteLock("catalog").writeLock().acquire(Duration.ofSeconds(5));
         Lease reader1 = baton.readWriteLock("prices").readLock().acquire(Duration.ofSeconds(5));
         Lease reader2 = baton.readWriteLock("prices").readLock().acquire(Duration.ofSeconds(5));
         Lease permits = baton.semaphore("db-slots", 3).acquire(2, Duration.ofSeconds(5))) {
      await().untilAsserted(() -> {
        JsonNode state = state(server);
        JsonNode catalog = lock(state, "catalog");
        assertThat(catalog).as(state.toString()).isNotNull();
        assertThat(catalog.get("kind").asText()).isEqualTo("read-write lock");
        assertThat(catalog.get("mode").asText()).isEqualTo("write");
        assertThat(catalog.get("holders")).hasSize(1);
        assertThat(catalog.get("holders").get(0).get("token").asLong()).isEqualTo(writer.fencingToken());
        assertThat(catalog.get("expiresAtMillis").asLong()).isGreaterThan(state.get("now").asLong());
        JsonNode prices = lock(state, "prices");
        assertThat(prices).as(state.toString()).isNotNull();
        assertThat(prices.get("mode").asText()).isEqualTo("read");
        assertThat(prices.get("holders")).hasSize(2);
        JsonNode slots = lock(state, "db-slots");
        assertThat(slots).as(state.toString()).isNotNull();
        assertThat(slots.get("kind").asText()).isEqualTo("semaphore");
        assertThat(slots.get("holders")).as(slots.toString()).isNotEmpty();
        assertThat(slots.get("holders").get(0).get("pid").asLong()).isEqualTo(ProcessHandle.current().pid());
        assertThat(slots.has("error")).as(slots.toString()).isFalse();
      });
      writer.close();
      await().untilAsserted(() -> {
        JsonNode catalog = lock(state(server), "catalog");
        assertThat(catalog.get("holders")).isEmpty();
        assertThat(catalog.get("expiresAtMillis").isNull()).isTrue();
      });
    }
  }

  @Test
  void events_streamAPictureWhenALockIsTaken() throws Exception {
    try (ConsoleServer server = console(ConsoleAccess.loopback())) {
      HttpResponse<InputStream> stream = HTTP.send(request(server, "/api/events").build(),
          HttpResponse.BodyHandlers.ofInputStream());
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
      await().until(() -> !data.isEmpty());

      try (Lease lease = baton.mutex("events-job").acquire(Duration.ofSeconds(5))) {
        await().until(() -> data.stream().anyMatch(d -> d.contains("\"events-job\"")
            && d.contains("\"token\":" + lease.fencingToken())));
      }
    }
  }

  /** The same checks as the ZooKeeper console: Host allow-list, Origin, token; and no write at all. */
  @Test
  void access_isCheckedAsOnZooKeeper_andEveryWriteIsRefused() throws Exception {
    try (ConsoleServer open = console(ConsoleAccess.loopback())) {
      HttpResponse<String> rebound = send(request(open, "/api/state").header("Host", "evil.example:" + open.port()));
      assertThat(rebound.statusCode()).isEqualTo(403);
      assertThat(rebound.body()).contains("evil.example", "--allowed-host");
      HttpResponse<String> crossSite = send(request(open, "/api/events").header("Origin", "http://evil.example"));
      assertThat(crossSite.statusCode()).isEqualTo(403);
      HttpResponse<String> revoke = send(request(open, "/api/revoke").header("Content-Type", "application/json")
          .header("Origin", "http://127.0.0.1:" + open.port())
          .POST(HttpRequest.BodyPublishers.ofString("{\"path\": \"orders\"}")));
      assertThat(revoke.statusCode()).isEqualTo(403);
      assertThat(revoke.body()).contains("only shows the locks");
      assertThat(send(request(open, "/")).statusCode()).isEqualTo(200);
    }
    try (ConsoleServer guarded = console(ConsoleAccess.of(List.of(), TOKEN, false))) {
      assertThat(send(request(guarded, "/api/state")).statusCode()).isEqualTo(401);
      assertThat(send(request(guarded, "/api/state").header("Authorization", "Bearer wrong-token-wrong-token"))
          .statusCode()).isEqualTo(401);
      assertThat(send(request(guarded, "/api/state").header("Authorization", "Bearer " + TOKEN)).statusCode())
          .isEqualTo(200);
    }
  }

  @Test
  void theCommand_servesTheRedisLocks_withAGeneratedToken_andStopsCleanly() throws Exception {
    try (Lease lease = baton.mutex("command-job").acquire(Duration.ofSeconds(5))) {
      FollowingCommandsTest.Following console = new FollowingCommandsTest.Following("console", "--redis", redis.uri(),
          "--port", "0", "--generate-token");
      try {
        Pattern printed = Pattern.compile("Baton console at http://127\\.0\\.0\\.1:(\\d+)/#token=([\\w-]{43}) showing"
            + " the locks of " + Pattern.quote(redis.uri()) + " \\(read only\\)");
        await().atMost(Duration.ofSeconds(30)).until(() -> printed.matcher(console.output()).find());
        Matcher address = printed.matcher(console.output());
        assertThat(address.find()).isTrue();
        URI state = URI.create("http://127.0.0.1:" + address.group(1) + "/api/state");
        assertThat(send(HttpRequest.newBuilder(state)).statusCode()).isEqualTo(401);
        HttpResponse<String> answer = send(HttpRequest.newBuilder(state).header("Authorization", "Bearer " + address.group(2)));
        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(lock(JSON.readTree(answer.body()), "command-job").get("holders").get(0).get("token").asLong())
            .isEqualTo(lease.fencingToken());
      } finally {
        console.factory.stopAll();
      }
      assertThat(console.exit.get(30, TimeUnit.SECONDS)).isZero();
    }
  }

  /** A password-protected Redis: both of the console's clients (Baton's and the SCAN connection) log in. */
  @Test
  void theCommand_logsInWithThePassword_fromTheOption() throws Exception {
    try (EmbeddedRedis secured = EmbeddedRedis.builder().arg("--requirepass", "console-pass-0123").start();
         RedisBaton holder = RedisBaton.builder().uri(secured.uri()).password("console-pass-0123").build();
         Lease lease = holder.mutex("secured-job").acquire(Duration.ofSeconds(5))) {
      FollowingCommandsTest.Following console = new FollowingCommandsTest.Following("console", "--redis", secured.uri(),
          "--redis-password", "console-pass-0123", "--port", "0");
      try {
        Pattern printed = Pattern.compile("Baton console at http://127\\.0\\.0\\.1:(\\d+)/ showing");
        await().atMost(Duration.ofSeconds(30)).until(() -> printed.matcher(console.output()).find());
        Matcher address = printed.matcher(console.output());
        assertThat(address.find()).isTrue();
        URI state = URI.create("http://127.0.0.1:" + address.group(1) + "/api/state");
        await().untilAsserted(() -> {
          JsonNode answer = JSON.readTree(send(HttpRequest.newBuilder(state)).body());
          assertThat(answer.has("problem")).as(answer.toString()).isFalse();
          assertThat(lock(answer, "secured-job").get("holders").get(0).get("token").asLong()).isEqualTo(lease.fencingToken());
        });
        assertThat(console.output()).doesNotContain("console-pass-0123");
      } finally {
        console.factory.stopAll();
      }
      assertThat(console.exit.get(30, TimeUnit.SECONDS)).isZero();
    }
  }

  /** A Redis Cluster: the SCAN goes over every master, each lock is read from its slot's master. */
  @Test
  void onARedisCluster_locksOnEveryMasterAreShown() throws Exception {
    try (dev.baton.embedded.EmbeddedRedisCluster cluster = EmbeddedRedis.cluster(3);
         RedisBaton client = RedisBaton.connect(cluster.uri());
         ConsoleServer server = console(client, cluster.uri(), ConsoleAccess.loopback())) {
      List<Lease> leases = new java.util.ArrayList<>();
      List<String> names = List.of("orders", "stock", "payments", "invoices", "refunds", "returns");
      for (String name : names) {
        leases.add(client.mutex(name).acquire(Duration.ofSeconds(10)));
      }
      try {
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
          JsonNode state = state(server);
          for (int i = 0; i < names.size(); i++) {
            JsonNode lock = lock(state, names.get(i));
            assertThat(lock).as(names.get(i) + " in " + state).isNotNull();
            assertThat(lock.get("holders").get(0).get("token").asLong()).isEqualTo(leases.get(i).fencingToken());
            assertThat(lock.get("expiresAtMillis").asLong()).isPositive();
          }
        });
      } finally {
        leases.forEach(Lease::close);
      }
    }
  }

  @Test
  void theUriIsPrintedWithoutItsPassword() {
    assertThat(ConsoleCommand.shown("redis://app:hunter2@127.0.0.1:6379/0")).isEqualTo("redis://127.0.0.1:6379/0");
    assertThat(RedisTree.untagged("{orders}")).isEqualTo("orders");
    assertThat(RedisTree.untagged("a{b}c")).isEqualTo("a{b}c");
    assertThat(RedisTree.untagged("{a{b}")).isEqualTo("{a{b}");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "--redis redis://127.0.0.1:1 --allow-writes|--allow-writes is for a ZooKeeper console",
      "--redis redis://127.0.0.1:1 --connect 127.0.0.1:2181|--connect is for a ZooKeeper console",
      "--redis redis://127.0.0.1:1 --root /shop|--root is for a ZooKeeper console",
      "--redis redis://127.0.0.1:1 --config /config|--config is for a ZooKeeper console",
      "--redis http://[oops|--redis must be a Redis URI",
      "--redis-user app --connect 127.0.0.1:1|--redis-user needs --redis URI",
      "--redis redis://127.0.0.1:1 --host 0.0.0.0|beyond loopback",
  })
  void badRedisOptions_areBadUsage_beforeAnythingListens(String args, String message) {
    List<String> line = new java.util.ArrayList<>(List.of("console", "--port", "0"));
    line.addAll(List.of(args.split(" ")));
    Cli.Run run = Cli.run(line.toArray(String[]::new));

    assertThat(run.exitCode()).isEqualTo(BatonCommand.USAGE);
    assertThat(run.err()).contains(message);
    assertThat(run.out()).doesNotContain("Baton console at");
  }

  @Test
  void anUnreachableRedis_failsNamingTheAddress_withoutServingAPage() throws Exception {
    int port;
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    Cli.Run run = Cli.run("console", "--port", "0", "--redis", "redis://127.0.0.1:" + port, "--connect-timeout", "2s");
    assertThat(run.exitCode()).isEqualTo(BatonCommand.FAILURE);
    assertThat(run.err()).contains("redis://127.0.0.1:" + port);
    assertThat(run.out()).doesNotContain("Baton console at");
  }
}
