package dev.baton.cli.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.baton.Baton;
import dev.baton.ZkPaths;
import dev.baton.cli.command.CliException;
import dev.baton.cli.command.NodeKind;
import dev.baton.cli.command.RecipeCheck;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLContext;

/**
 * The web console's HTTP side, on the JDK's own server: the page and its script (from the jar),
 * {@code GET /api/state} (the {@link ConsoleModel}'s picture as JSON), {@code GET /api/events}
 * (server-sent events: the picture again after every change, at most every 100 ms), and {@code
 * POST /api/revoke} (a cooperative revocation, only with {@code --allow-writes}).
 *
 * <p>Every request passes {@link ConsoleAccess} first (the Host, the Origin, the token). Writes
 * also need a JSON body ({@code Content-Type: application/json}), which a page of another site
 * cannot send without the browser asking first: a cross-site form cannot revoke a lock. With an
 * {@link SSLContext} the console speaks HTTPS only.
 */
public final class ConsoleServer implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long PUBLISH_EVERY_MILLIS = 100;

  private final Baton baton;
  private final ConsoleView model;
  private final ConsoleConfig config;
  private final boolean allowWrites;
  private final ConsoleAccess access;
  private final HttpServer http;
  private final ExecutorService handlers = Executors.newCachedThreadPool(daemon("baton-console-http"));
  private final ScheduledExecutorService publisher = Executors.newSingleThreadScheduledExecutor(daemon("baton-console-publish"));
  private final List<OutputStream> listeners = new CopyOnWriteArrayList<>();
  private final AtomicBoolean publishQueued = new AtomicBoolean();

  ConsoleServer(Baton baton, ConsoleModel model, boolean allowWrites, InetSocketAddress address) throws IOException {
    this(baton, model, null, allowWrites, address);
  }

  /** {@code config}: the config centers shown, or null for none. Loopback only, no token, plain HTTP. */
  ConsoleServer(Baton baton, ConsoleModel model, ConsoleConfig config, boolean allowWrites, InetSocketAddress address)
      throws IOException {
    this(baton, model, config, allowWrites, address, ConsoleAccess.loopback(), null);
  }

  /**
   * A console of {@code view} alone (a Redis server's locks): read only, every write refused, with
   * the same access checks and, unless {@code tls} is null, HTTPS.
   */
  ConsoleServer(ConsoleView view, InetSocketAddress address, ConsoleAccess access, SSLContext tls) throws IOException {
    this(null, view, null, false, address, access, tls);
  }

  /** As above, with who may use it and, unless {@code tls} is null, HTTPS. {@code baton}: null for a read-only view. */
  ConsoleServer(Baton baton, ConsoleView model, ConsoleConfig config, boolean allowWrites, InetSocketAddress address,
      ConsoleAccess access, SSLContext tls) throws IOException {
    this.baton = baton;
    this.model = model;
    this.config = config;
    this.allowWrites = allowWrites;
    this.access = access;
    if (tls == null) {
      this.http = HttpServer.create(address, 0);
    } else {
      HttpsServer https = HttpsServer.create(address, 0);
      https.setHttpsConfigurator(new HttpsConfigurator(tls));
      this.http = https;
    }
    http.setExecutor(handlers);
    context("/", this::page);
    context("/api/state", exchange -> respond(exchange, 200, state()));
    context("/api/events", this::events);
    context("/api/revoke", exchange -> write(exchange, "revoke locks", body -> {
      String path = text(body, "path");
      ZkPaths.validateRecipePath(path, "lock path");
      RecipeCheck.expect(baton, path, Duration.ofSeconds(10), "mutex", NodeKind.MUTEX);
      return Map.of("path", path, "asked", baton.requestRevocation(baton.mutex(path)));
    }));
    context("/api/config/rollback", exchange -> write(exchange, "roll config keys back", body -> {
      var entry = config().rollback(text(body, "prefix"), text(body, "key"), number(body, "version"));
      return Map.of("key", entry.key(), "value", entry.value(), "version", entry.version());
    }));
    context("/api/config/promote", exchange -> write(exchange, "promote gray releases", body -> {
      var entry = config().promote(text(body, "prefix"), text(body, "key"));
      return Map.of("key", entry.key(), "value", entry.value(), "version", entry.version());
    }));
    context("/api/config/abort", exchange -> write(exchange, "abort gray releases", body ->
        Map.of("aborted", config().abort(text(body, "prefix"), text(body, "key")))));
    context("/api/config/history", this::history);
  }

  /** Serves {@code path} with {@code handler}, once {@link ConsoleAccess} let the request through. */
  private void context(String path, HttpHandler handler) {
    http.createContext(path, exchange -> {
      var refusal = access.check(exchange, port());
      if (refusal.isPresent()) {
        if (refusal.get().status() == 401) {
          exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"baton console\"");
        }
        respond(exchange, refusal.get().status(), Map.of("error", refusal.get().reason()));
        return;
      }
      handler.handle(exchange);
    });
  }

  void start(Duration initialLoad) {
    model.start(this::changed, initialLoad);
    if (config != null) {
      config.listen(this::changed);
    }
    http.start();
    // A comment line every 15 s keeps proxies from closing a quiet stream and finds gone pages.
    publisher.scheduleAtFixedRate(() -> send(": keep-alive\n\n"), 15, 15, TimeUnit.SECONDS);
  }

  int port() {
    return http.getAddress().getPort();
  }

  private Map<String, Object> state() {
    Map<String, Object> state = model.snapshot();
    state.put("config", config == null ? List.of() : config.snapshot());
    state.put("allowWrites", allowWrites);
    return state;
  }

  // Many changes in a burst (a hand-over touches several nodes) make one message.
  private void changed() {
    if (publishQueued.compareAndSet(false, true)) {
      publisher.schedule(() -> {
        publishQueued.set(false);
        try {
          send("event: state\ndata: " + JSON.writeValueAsString(state()) + "\n\n");
        } catch (IOException | RuntimeException e) {
          send("event: problem\ndata: " + quoted(e.getMessage()) + "\n\n");
        }
      }, PUBLISH_EVERY_MILLIS, TimeUnit.MILLISECONDS);
    }
  }

  private void send(String message) {
    byte[] bytes = message.getBytes(StandardCharsets.UTF_8);
    for (OutputStream out : listeners) {
      try {
        out.write(bytes);
        out.flush();
      } catch (IOException gone) {
        listeners.remove(out);
      }
    }
  }

  private void events(HttpExchange exchange) throws IOException {
    exchange.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    exchange.sendResponseHeaders(200, 0);
    OutputStream out = exchange.getResponseBody();
    out.write(("event: state\ndata: " + JSON.writeValueAsString(state()) + "\n\n").getBytes(StandardCharsets.UTF_8));
    out.flush();
    listeners.add(out); // left open: closed when the page goes, or with the server
  }

  /** A write of the page: POST, a JSON body, --allow-writes; the library's refusals as 400. */
  private void write(HttpExchange exchange, String what, Write write) throws IOException {
    if (!exchange.getRequestMethod().equals("POST")) {
      respond(exchange, 405, Map.of("error", "use POST"));
      return;
    }
    String type = exchange.getRequestHeaders().getFirst("Content-Type");
    if (type == null || !type.startsWith("application/json")) {
      respond(exchange, 415, Map.of("error", "send the request as application/json"));
      return;
    }
    if (baton == null) {
      respond(exchange, 403, Map.of("error", "this console only shows the locks of its store: it cannot " + what));
      return;
    }
    if (!allowWrites) {
      respond(exchange, 403, Map.of("error", "writes are off: start the console with --allow-writes to " + what));
      return;
    }
    JsonNode body;
    try (InputStream in = exchange.getRequestBody()) {
      body = JSON.readTree(in);
    } catch (IOException e) {
      respond(exchange, 400, Map.of("error", "the body must be a JSON object"));
      return;
    }
    try {
      respond(exchange, 200, write.apply(body == null ? JSON.createObjectNode() : body));
    } catch (IllegalArgumentException | IllegalStateException | CliException e) {
      respond(exchange, 400, Map.of("error", String.valueOf(e.getMessage())));
    } catch (RuntimeException e) {
      respond(exchange, 503, Map.of("error", e.getMessage() == null ? e.toString() : e.getMessage()));
    }
  }

  private interface Write {
    Map<String, Object> apply(JsonNode body);
  }

  private static String text(JsonNode body, String field) {
    if (!body.hasNonNull(field) || !body.get(field).isTextual()) {
      throw new IllegalArgumentException("the body must name the " + field + ": {\"" + field + "\": \"...\"}");
    }
    return body.get(field).asText();
  }

  private static int number(JsonNode body, String field) {
    if (!body.hasNonNull(field) || !body.get(field).canConvertToInt()) {
      throw new IllegalArgumentException("the body must give the " + field + " as a number");
    }
    return body.get(field).asInt();
  }

  private ConsoleConfig config() {
    if (config == null) {
      throw new IllegalArgumentException("the console shows no config center (start it with --config PREFIX)");
    }
    return config;
  }

  /** {@code GET /api/config/history?prefix=..&key=..}: read from the ensemble when asked, never polled. */
  private void history(HttpExchange exchange) throws IOException {
    Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
    try {
      String prefix = query.get("prefix");
      String key = query.get("key");
      if (prefix == null || key == null) {
        throw new IllegalArgumentException("name the prefix and the key: ?prefix=/config&key=db/url");
      }
      respond(exchange, 200, Map.of("prefix", prefix, "key", key, "revisions", config().history(prefix, key)));
    } catch (IllegalArgumentException | IllegalStateException e) {
      respond(exchange, 400, Map.of("error", String.valueOf(e.getMessage())));
    } catch (RuntimeException e) {
      respond(exchange, 503, Map.of("error", String.valueOf(e.getMessage())));
    }
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> query = new java.util.HashMap<>();
    if (raw != null) {
      for (String pair : raw.split("&")) {
        int eq = pair.indexOf('=');
        if (eq > 0) {
          query.put(java.net.URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
              java.net.URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
      }
    }
    return query;
  }

  private void page(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    String file = switch (path) {
      case "/", "/index.html" -> "index.html";
      case "/console.js" -> "console.js";
      case "/console.css" -> "console.css";
      default -> null;
    };
    if (file == null) {
      respond(exchange, 404, Map.of("error", "no page " + path));
      return;
    }
    byte[] body;
    try (InputStream in = ConsoleServer.class.getResourceAsStream(file)) {
      if (in == null) {
        respond(exchange, 500, Map.of("error", "the console's " + file + " is missing from the jar"));
        return;
      }
      body = in.readAllBytes();
    }
    String type = file.endsWith(".html") ? "text/html" : file.endsWith(".js") ? "text/javascript" : "text/css";
    exchange.getResponseHeaders().set("Content-Type", type + "; charset=utf-8");
    exchange.sendResponseHeaders(200, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  private static void respond(HttpExchange exchange, int status, Object document) throws IOException {
    byte[] body = JSON.writeValueAsBytes(document);
    exchange.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    exchange.sendResponseHeaders(status, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  private static String quoted(String text) {
    try {
      return JSON.writeValueAsString(text == null ? "" : text);
    } catch (IOException e) {
      return "\"\"";
    }
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return runnable -> {
      Thread thread = new Thread(runnable, name);
      thread.setDaemon(true);
      return thread;
    };
  }

  @Override
  public void close() {
    http.stop(0);
    listeners.forEach(out -> {
      try {
        out.close();
      } catch (IOException ignored) {
        // The page is gone already.
      }
    });
    publisher.shutdownNow();
    handlers.shutdownNow();
    model.close();
    if (config != null) {
      config.close();
    }
  }
}
