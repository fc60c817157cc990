package dev.baton.discovery;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A check of an instance's health that the registering process runs at an interval ({@link
 * RegisterOptions#withHealthCheck}). It runs on a thread of the registry's own, one check at a
 * time, so it may block (bounded by its own timeout). A check that throws counts as down, with
 * the exception as the reason.
 */
@FunctionalInterface
public interface HealthCheck {

  /** Checks once. */
  Health check();

  /** A check by the application's own code. */
  static HealthCheck of(Supplier<Health> supplier) {
    Objects.requireNonNull(supplier, "supplier must not be null");
    return supplier::get;
  }

  /**
   * Up when an HTTP GET of {@code uri} answers 2xx or 3xx within {@code timeout}; down on another
   * status, a refused connection or a timeout.
   *
   * @throws IllegalArgumentException if {@code uri} is not http(s) or {@code timeout} is not positive
   */
  static HealthCheck http(URI uri, Duration timeout) {
    Objects.requireNonNull(uri, "uri must not be null");
    if (!"http".equalsIgnoreCase(uri.getScheme()) && !"https".equalsIgnoreCase(uri.getScheme())) {
      throw new IllegalArgumentException("health check uri must be http or https, was " + uri);
    }
    positive(timeout);
    HttpClient client = HttpClient.newBuilder().connectTimeout(timeout).build();
    HttpRequest request = HttpRequest.newBuilder(uri).timeout(timeout).GET().build();
    return () -> {
      try {
        int status = client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
        return status >= 200 && status < 400 ? Health.up() : Health.down("GET " + uri + " answered " + status);
      } catch (IOException e) {
        return Health.down("GET " + uri + " failed: " + e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Health.down("GET " + uri + " interrupted");
      }
    };
  }

  /**
   * Up when a TCP connection to {@code host:port} opens within {@code timeout}.
   *
   * @throws IllegalArgumentException if the port is out of range or {@code timeout} not positive
   */
  static HealthCheck tcp(String host, int port, Duration timeout) {
    Objects.requireNonNull(host, "host must not be null");
    if (port < 1 || port > 65_535) {
      throw new IllegalArgumentException("health check port must be between 1 and 65535, was " + port);
    }
    positive(timeout);
    return () -> {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(host, port), (int) Math.min(timeout.toMillis(), Integer.MAX_VALUE));
        return Health.up();
      } catch (IOException e) {
        return Health.down("TCP connect to " + host + ":" + port + " failed: " + e.getMessage());
      }
    };
  }

  private static void positive(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout must not be null");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("health check timeout must be positive, was " + timeout);
    }
  }
}
