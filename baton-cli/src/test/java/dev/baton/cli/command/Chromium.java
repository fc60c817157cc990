package dev.baton.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;

/**
 * A headless Chromium (Debian's {@code chromium} package) driven over the DevTools protocol with
 * the JDK's own WebSocket client: open a page, read what it shows, take a screenshot. No driver to
 * download; the browser is the one the machine has, or the test that needs it is skipped.
 */
public final class Chromium implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Process process;
  private final Path profile;
  private final WebSocket socket;
  private final Map<Integer, CompletableFuture<JsonNode>> replies = new ConcurrentHashMap<>();
  private final AtomicInteger ids = new AtomicInteger();

  /** The browser on the PATH ({@code chromium}, {@code chromium-browser}, {@code google-chrome}), if any. */
  public static Optional<Path> find() {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String name : new String[] {"chromium", "chromium-browser", "google-chrome"}) {
      for (String dir : path.split(File.pathSeparator)) {
        Path candidate = Path.of(dir, name);
        if (Files.isExecutable(candidate)) {
          return Optional.of(candidate);
        }
      }
    }
    return Optional.empty();
  }

  public static Chromium open(Path binary, String url) throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    Path profile = Files.createTempDirectory("baton-chromium-");
    // As this machine's notes say: no sandbox (root), and no background traffic the closed network refuses.
    Process process = new ProcessBuilder(binary.toString(), "--headless", "--no-sandbox", "--disable-gpu",
        "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--disable-extensions", "--disable-dev-shm-usage", "--mute-audio",
        "--renderer-process-limit=1", "--window-size=1280,900", "--user-data-dir=" + profile,
        "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=" + port, url)
        .redirectErrorStream(true).redirectOutput(profile.resolve("chromium.log").toFile()).start();
    HttpClient http = HttpClient.newHttpClient();
    String[] page = new String[1];
    Awaitility.await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
      HttpResponse<String> list = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/json/list")).build(),
          HttpResponse.BodyHandlers.ofString());
      for (JsonNode target : JSON.readTree(list.body())) {
        if (target.get("type").asText().equals("page") && target.has("webSocketDebuggerUrl")) {
          page[0] = target.get("webSocketDebuggerUrl").asText();
          return true;
        }
      }
      return false;
    });
    return new Chromium(process, profile, http, page[0]);
  }

  private Chromium(Process process, Path profile, HttpClient http, String webSocketUrl) throws Exception {
    this.process = process;
    this.profile = profile;
    this.socket = http.newWebSocketBuilder().buildAsync(URI.create(webSocketUrl), new WebSocket.Listener() {
      private final StringBuilder partial = new StringBuilder();

      @Override
      public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
        partial.append(data);
        if (last) {
          try {
            JsonNode message = JSON.readTree(partial.toString());
            if (message.has("id")) {
              CompletableFuture<JsonNode> reply = replies.remove(message.get("id").asInt());
              if (reply != null) {
                reply.complete(message);
              }
            }
          } catch (IOException e) {
            // Not JSON: not a reply of ours.
          }
          partial.setLength(0);
        }
        webSocket.request(1);
        return null;
      }
    }).get(10, TimeUnit.SECONDS);
  }

  /** Sends one DevTools command and returns its result. */
  JsonNode call(String method, Map<String, Object> params) throws Exception {
    int id = ids.incrementAndGet();
    CompletableFuture<JsonNode> reply = new CompletableFuture<>();
    replies.put(id, reply);
    ObjectNode message = JSON.createObjectNode();
    message.put("id", id);
    message.put("method", method);
    message.set("params", JSON.valueToTree(params));
    socket.sendText(JSON.writeValueAsString(message), true).get(10, TimeUnit.SECONDS);
    JsonNode answer = reply.get(30, TimeUnit.SECONDS);
    if (answer.has("error")) {
      throw new IllegalStateException(method + " failed: " + answer.get("error"));
    }
    return answer.get("result");
  }

  /** The page's visible text. */
  public String text() throws Exception {
    // Before the page has loaded there is no body: the evaluation throws, and the page shows nothing yet.
    JsonNode value = call("Runtime.evaluate", Map.of("expression", "document.body.innerText", "returnByValue", true))
        .path("result").get("value");
    return value == null ? "" : value.asText();
  }

  /** Clicks the first button whose row has {@code rowText} in it; returns whether there was one. */
  public boolean clickButtonInRow(String rowText, String buttonText) throws Exception {
    String script = "(() => { for (const tr of document.querySelectorAll('tr')) {"
        + " if (tr.innerText.includes(" + JSON.writeValueAsString(rowText) + ")) {"
        + " for (const b of tr.querySelectorAll('button')) { if (b.textContent === " + JSON.writeValueAsString(buttonText)
        + " && !b.disabled) { b.click(); return true; } } } } return false; })()";
    return call("Runtime.evaluate", Map.of("expression", script, "returnByValue", true)).get("result").get("value").asBoolean();
  }

  public void screenshot(Path file) throws Exception {
    String png = call("Page.captureScreenshot", Map.of("format", "png")).get("data").asText();
    Files.createDirectories(file.getParent());
    Files.write(file, Base64.getDecoder().decode(png));
  }

  @Override
  public void close() {
    socket.abort();
    // Chromium is a tree of processes (renderer, GPU, zygote): none may outlive the test and
    // take the CPU from the next one.
    List<ProcessHandle> tree = process.descendants().toList();
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    tree.forEach(ProcessHandle::destroyForcibly);
    try (var files = Files.walk(profile)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      // A temporary profile left behind.
    }
  }
}
