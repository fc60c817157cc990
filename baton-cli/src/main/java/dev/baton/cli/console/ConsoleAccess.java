package dev.baton.cli.console;

import com.sun.net.httpserver.HttpExchange;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Who may use the console, checked on every request before anything is read or written:
 * <ul>
 *   <li>the Host header must name an allowed host (loopback names by default), so that a page of
 *       another site whose name was rebound to this address (DNS rebinding) is refused;</li>
 *   <li>an Origin header, when there is one, must be this console's own, on every API request (the
 *       writes and the event stream included), so that no other site's page can use it;</li>
 *   <li>with a token, every API request must carry it: {@code Authorization: Bearer TOKEN}, or, for
 *       the event stream only (a browser's EventSource cannot set headers), {@code ?token=TOKEN}.
 *       The page and its script hold no data and are served without it.</li>
 * </ul>
 *
 * @param hosts the allowed host names, lower case, IPv6 addresses in brackets
 * @param token the bearer token, or null for none
 * @param scheme {@code http} or {@code https}, for the origin
 */
public record ConsoleAccess(Set<String> hosts, String token, String scheme) {
  /** The names by which a browser on this machine reaches a console bound to loopback. */
  static final List<String> LOOPBACK_NAMES = List.of("localhost", "127.0.0.1", "[::1]");

  /** A refused request: the status and the reason. */
  record Refusal(int status, String reason) {}

  /** Loopback names only, no token, plain HTTP: the console's defaults. */
  static ConsoleAccess loopback() {
    return new ConsoleAccess(Set.copyOf(LOOPBACK_NAMES), null, "http");
  }

  /** Loopback names and {@code extra}, normalized as {@link #hostOf} does. */
  static ConsoleAccess of(List<String> extra, String token, boolean tls) {
    Set<String> hosts = new LinkedHashSet<>(LOOPBACK_NAMES);
    extra.forEach(host -> hosts.add(normalize(host)));
    return new ConsoleAccess(Set.copyOf(hosts), token, tls ? "https" : "http");
  }

  /** Why {@code exchange} is refused, or empty if it may go on. {@code port}: the port the console listens on. */
  Optional<Refusal> check(HttpExchange exchange, int port) {
    String host = hostOf(exchange.getRequestHeaders().getFirst("Host"));
    if (host == null || !hosts.contains(host)) {
      return Optional.of(new Refusal(403, "the Host header " + quoted(exchange.getRequestHeaders().getFirst("Host"))
          + " is not one this console answers to; start it with --allowed-host NAME to add one"));
    }
    String path = exchange.getRequestURI().getPath();
    if (!path.startsWith("/api/")) {
      return Optional.empty(); // the page and its script: no data in them
    }
    String origin = exchange.getRequestHeaders().getFirst("Origin");
    if (origin != null && !sameOrigin(origin, port)) {
      return Optional.of(new Refusal(403, "requests from the page of another site (Origin " + quoted(origin)
          + ") are refused"));
    }
    if (token != null && !presentsToken(exchange, path)) {
      return Optional.of(new Refusal(401, "this console needs its token: send Authorization: Bearer TOKEN"
          + " (the token of --token-file, or the one printed at start)"));
    }
    return Optional.empty();
  }

  private boolean sameOrigin(String origin, int port) {
    try {
      URI uri = new URI(origin);
      if (uri.getScheme() == null || uri.getHost() == null || !uri.getScheme().equalsIgnoreCase(scheme)) {
        return false;
      }
      int originPort = uri.getPort() != -1 ? uri.getPort() : scheme.equals("https") ? 443 : 80;
      return originPort == port && hosts.contains(normalize(uri.getHost()));
    } catch (URISyntaxException e) {
      return false; // "null" (a sandboxed page, a file) and anything malformed
    }
  }

  private boolean presentsToken(HttpExchange exchange, String path) {
    String authorization = exchange.getRequestHeaders().getFirst("Authorization");
    if (authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return matches(authorization.substring(7).trim());
    }
    if (path.equals("/api/events")) {
      String query = exchange.getRequestURI().getRawQuery();
      if (query != null) {
        for (String pair : query.split("&")) {
          if (pair.startsWith("token=")) {
            return matches(java.net.URLDecoder.decode(pair.substring(6), StandardCharsets.UTF_8));
          }
        }
      }
    }
    return false;
  }

  private boolean matches(String presented) {
    // In constant time: how long a comparison takes says nothing about the token.
    return MessageDigest.isEqual(presented.getBytes(StandardCharsets.UTF_8), token.getBytes(StandardCharsets.UTF_8));
  }

  /** The host of a Host header ({@code name[:port]}, {@code [v6][:port]}), lower case; null if there is none. */
  static String hostOf(String header) {
    if (header == null || header.isBlank()) {
      return null;
    }
    String value = header.trim();
    if (value.startsWith("[")) {
      int end = value.indexOf(']');
      return end < 0 ? null : normalize(value.substring(0, end + 1));
    }
    int colon = value.indexOf(':');
    return normalize(colon < 0 ? value : value.substring(0, colon));
  }

  /** Lower case, without a final dot; a bare IPv6 address gets its brackets. */
  static String normalize(String host) {
    String name = host.toLowerCase(Locale.ROOT);
    if (name.endsWith(".")) {
      name = name.substring(0, name.length() - 1);
    }
    if (name.contains(":") && !name.startsWith("[")) {
      name = "[" + name + "]";
    }
    return name;
  }

  private static String quoted(String value) {
    if (value == null) {
      return "(none)";
    }
    String shown = value.length() > 100 ? value.substring(0, 100) + "..." : value;
    return "'" + shown.replaceAll("[^\\x20-\\x7e]", "?") + "'";
  }
}
