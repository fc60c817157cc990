package dev.baton.cli.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.cli.BatonCommand;
import dev.baton.cli.command.Cli;
import dev.baton.cli.command.FollowingCommandsTest;
import dev.baton.cli.command.StandaloneZooKeeper;
import dev.baton.lock.Lease;
import dev.baton.testkit.TestCertificates;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console exposed: each refusal with plain HTTP requests, as curl or a hostile page would send
 * them. The Host header is set by hand, which the JDK's client allows only with {@code
 * -Djdk.httpclient.allowRestrictedHeaders=host} (set for the tests in the pom).
 */
class ConsoleAccessTest extends StandaloneZooKeeper {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final String TOKEN = "s3cret-token-of-the-test";

  private static ConsoleServer console(String root, boolean allowWrites, ConsoleAccess access) throws Exception {
    ConsoleServer server = new ConsoleServer(baton, new ConsoleModel(baton, root), null, allowWrites,
        new InetSocketAddress("127.0.0.1", 0), access, null);
    server.start(Duration.ofSeconds(10));
    return server;
  }

  private static HttpRequest.Builder request(ConsoleServer server, String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path));
  }

  /** A response; the body of an event stream (which never ends) is not read. */
  record Answer(int statusCode, String body, java.net.http.HttpHeaders headers) {}

  private static Answer send(HttpRequest.Builder request) throws Exception {
    HttpResponse<InputStream> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
    try (InputStream body = response.body()) {
      boolean stream = response.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream");
      return new Answer(response.statusCode(),
          stream ? "" : new String(body.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8), response.headers());
    }
  }

  private static HttpRequest.Builder revoke(ConsoleServer server, String lockPath) {
    return request(server, "/api/revoke").header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"path\": \"" + lockPath + "\"}"));
  }

  /** DNS rebinding: a page of evil.example, its name now resolving to 127.0.0.1, reads the state. */
  @Test
  void aHostNotAllowed_isRefused_onThePageAndTheApi() throws Exception {
    try (ConsoleServer server = console("/access-a", false, ConsoleAccess.loopback())) {
      for (String path : List.of("/", "/api/state", "/api/events")) {
        Answer rebound = send(request(server, path).header("Host", "evil.example:" + server.port()));
        assertThat(rebound.statusCode()).as(path).isEqualTo(403);
        assertThat(rebound.body()).contains("evil.example", "--allowed-host");
      }
      assertThat(send(request(server, "/api/state").header("Host", "localhost:" + server.port())).statusCode())
          .isEqualTo(200);
      assertThat(send(request(server, "/api/state")).statusCode()).isEqualTo(200); // Host: 127.0.0.1:port
    }
  }

  @Test
  void anAllowedHost_isServed() throws Exception {
    try (ConsoleServer server = console("/access-b", false, ConsoleAccess.of(List.of("Console.Example.com"), null, false))) {
      Answer allowed = send(request(server, "/api/state").header("Host", "console.example.com:" + server.port()));
      assertThat(allowed.statusCode()).as(allowed.body()).isEqualTo(200);
      assertThat(send(request(server, "/api/state").header("Host", "other.example.com")).statusCode()).isEqualTo(403);
    }
  }

  /** A page of another site posts to the console (with a token, the page's own would be refused too). */
  @Test
  void aWriteFromAnotherOrigin_isRefused_andNothingIsWritten() throws Exception {
    AtomicBoolean asked = new AtomicBoolean();
    try (ConsoleServer server = console("/access-c", true, ConsoleAccess.loopback());
         Lease lease = baton.mutex("/access-c/job").acquire(Duration.ofSeconds(5))) {
      lease.makeRevocable(l -> asked.set(true));

      Answer crossSite = send(revoke(server, "/access-c/job").header("Origin", "http://evil.example"));
      assertThat(crossSite.statusCode()).isEqualTo(403);
      assertThat(crossSite.body()).contains("Origin", "evil.example");
      Answer otherPort = send(revoke(server, "/access-c/job").header("Origin", "http://127.0.0.1:1"));
      assertThat(otherPort.statusCode()).isEqualTo(403);
      assertThat(send(revoke(server, "/access-c/job").header("Origin", "null")).statusCode()).isEqualTo(403);
      assertThat(asked).isFalse();

      Answer own = send(revoke(server, "/access-c/job").header("Origin", "http://127.0.0.1:" + server.port()));
      assertThat(own.statusCode()).as(own.body()).isEqualTo(200);
    }
  }

  @Test
  void theEventStreamFromAnotherOrigin_isRefused() throws Exception {
    try (ConsoleServer server = console("/access-d", false, ConsoleAccess.loopback())) {
      Answer crossSite = send(request(server, "/api/events").header("Origin", "http://evil.example"));
      assertThat(crossSite.statusCode()).isEqualTo(403);

      assertThat(send(request(server, "/api/events").header("Origin", "http://localhost:" + server.port())).statusCode())
          .isEqualTo(200);
    }
  }

  @Test
  void withAToken_aRequestWithoutIt_orWithAnother_isRefused() throws Exception {
    try (ConsoleServer server = console("/access-e", true, ConsoleAccess.of(List.of(), TOKEN, false))) {
      Answer none = send(request(server, "/api/state"));
      assertThat(none.statusCode()).isEqualTo(401);
      assertThat(none.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Bearer"));
      assertThat(send(request(server, "/api/state").header("Authorization", "Bearer wrong-token-of-the-test"))
          .statusCode()).isEqualTo(401);
      assertThat(send(revoke(server, "/access-e/job")).statusCode()).isEqualTo(401);
      assertThat(send(request(server, "/api/events?token=wrong")).statusCode()).isEqualTo(401);
      assertThat(send(request(server, "/api/state?token=" + TOKEN)).statusCode())
          .as("the query carries the token for the event stream only").isEqualTo(401);

      assertThat(send(request(server, "/api/state").header("Authorization", "Bearer " + TOKEN)).statusCode()).isEqualTo(200);
      assertThat(send(request(server, "/")).statusCode()).as("the page holds no data").isEqualTo(200);
      assertThat(send(request(server, "/api/events?token=" + TOKEN)).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void beyondLoopbackWithoutAToken_isRefusedAtStart_namingTheOptions() throws Exception {
    // Unreachable ensemble: the refusal must come before any connection is tried.
    CompletableFuture<Cli.Run> run = CompletableFuture.supplyAsync(() -> Cli.run("console", "--host", "0.0.0.0",
        "--port", "0", "--connect", "127.0.0.1:1", "--connect-timeout", "1s"));
    Cli.Run result = run.get(60, TimeUnit.SECONDS);
    assertThat(result.exitCode()).isEqualTo(BatonCommand.USAGE);
    assertThat(result.err()).contains("--host 0.0.0.0", "beyond loopback", "--token-file", "--generate-token");
    assertThat(result.out()).doesNotContain("Baton console at");
  }

  @Test
  void beyondLoopbackWithAGeneratedToken_printsTheAddressWithIt_andRequiresIt() throws Exception {
    FollowingCommandsTest.Following console = new FollowingCommandsTest.Following("console", "--host", "0.0.0.0",
        "--port", "0", "--generate-token", "--root", "/access-g", "--connect", cluster.connectString());
    try {
      java.util.regex.Pattern printed = java.util.regex.Pattern.compile("Baton console at http://localhost:(\\d+)/#token=([\\w-]{43}) ");
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> printed.matcher(console.output()).find());
      java.util.regex.Matcher address = printed.matcher(console.output());
      assertThat(address.find()).isTrue();
      String base = "http://localhost:" + address.group(1);
      assertThat(send(HttpRequest.newBuilder(URI.create(base + "/api/state"))).statusCode()).isEqualTo(401);
      assertThat(send(HttpRequest.newBuilder(URI.create(base + "/api/state"))
          .header("Authorization", "Bearer " + address.group(2))).statusCode()).isEqualTo(200);
    } finally {
      console.factory.stopAll();
    }
    assertThat(console.exit.get(30, TimeUnit.SECONDS)).isZero();
  }

  @Test
  void badTokenFilesAndHosts_areBadUsage_namingTheOption(@TempDir Path dir) throws Exception {
    Path shortToken = Files.writeString(dir.resolve("short"), "abc\n");
    Cli.Run tooShort = Cli.run("console", "--token-file", shortToken.toString(), "--connect", "127.0.0.1:1");
    assertThat(tooShort.exitCode()).isEqualTo(BatonCommand.USAGE);
    assertThat(tooShort.err()).contains("--token-file", "at least 16");
    Cli.Run missing = Cli.run("console", "--token-file", dir.resolve("none").toString(), "--connect", "127.0.0.1:1");
    assertThat(missing.exitCode()).isEqualTo(BatonCommand.USAGE);
    assertThat(missing.err()).contains("--token-file", "cannot be read");
    Cli.Run withPort = Cli.run("console", "--allowed-host", "http://console.example.com:8080", "--connect", "127.0.0.1:1");
    assertThat(withPort.exitCode()).isEqualTo(BatonCommand.USAGE);
    assertThat(withPort.err()).contains("--allowed-host", "without scheme, port or path");
    Cli.Run badStore = Cli.run("console", "--https-keystore", dir.resolve("none.p12").toString(),
        "--https-keystore-password", "x", "--connect", "127.0.0.1:1");
    assertThat(badStore.exitCode()).isEqualTo(BatonCommand.USAGE);
    assertThat(badStore.err()).contains("--https-keystore", "not a readable file");
  }

  @Test
  void withAKeyStore_theConsoleSpeaksHttpsOnly(@TempDir Path dir) throws Exception {
    TestCertificates.Identity identity = TestCertificates.selfSigned(dir, "console", "changeit");
    ConsoleExposure exposure = new ConsoleExposure();
    exposure.keyStore = identity.keyStore();
    exposure.keyStorePassword = identity.password();
    SSLContext tls = exposure.tls(BatonCommand.newCommandLine().getSubcommands().get("console").getCommandSpec());
    try (ConsoleServer server = new ConsoleServer(baton, new ConsoleModel(baton, "/access-f"), null, false,
        new InetSocketAddress("127.0.0.1", 0), ConsoleAccess.of(List.of(), null, true), tls)) {
      server.start(Duration.ofSeconds(10));
      KeyStore trusted = KeyStore.getInstance(identity.keyStore().toFile(), identity.password().toCharArray());
      TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(trusted);
      SSLContext client = SSLContext.getInstance("TLS");
      client.init(null, trust.getTrustManagers(), null);
      HttpClient https = HttpClient.newBuilder().sslContext(client).build();

      HttpResponse<String> state = https.send(HttpRequest.newBuilder(URI.create("https://localhost:" + server.port()
          + "/api/state")).header("Origin", "https://localhost:" + server.port()).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(state.statusCode()).as(state.body()).isEqualTo(200);
      assertThatThrownBy(() -> send(request(server, "/api/state"))).isInstanceOf(java.io.IOException.class);
    }
  }
}
