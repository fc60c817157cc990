package dev.baton.cli.command;

import dev.baton.ConnectStrings;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Optional;

/**
 * Tells a refused port from a silent one before connecting: the ZooKeeper client retries a refused
 * connection until its whole timeout has passed, so that nothing listening at all took the full
 * {@code --connect-timeout} to say. One plain TCP connection per server, closed at once.
 */
public final class PortProbe {
  /** Past this, a server that neither accepts nor refuses is left to the client's own wait. */
  private static final Duration MOST = Duration.ofSeconds(1);

  private PortProbe() {}

  /**
   * Why every server of {@code connect} refused a connection, or empty if one of them accepted,
   * or did not answer within a second (a slow link or a firewall: the client's own wait decides).
   */
  static Optional<String> refusedEverywhere(String connect, Duration connectTimeout) {
    int timeout = (int) Math.max(1, Math.min(MOST.toMillis(), connectTimeout.toMillis()));
    String reason = null;
    for (String raw : connect.split(",")) {
      String entry = raw.trim();
      String host = ConnectStrings.host(entry);
      String rest = entry.startsWith("[") ? entry.substring(entry.indexOf(']') + 1) : entry.substring(host.length());
      int port = rest.startsWith(":") ? Integer.parseInt(rest.substring(1)) : 2181;
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(host, port), timeout);
        return Optional.empty();
      } catch (ConnectException e) {
        reason = "connection refused";
      } catch (IOException e) {
        return Optional.empty(); // unresolved, unreachable or silent: not known to be refused
      }
    }
    return Optional.ofNullable(reason);
  }
}
