package dev.baton.embedded;

import dev.baton.Baton;
import dev.baton.BatonException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;

/**
 * A standalone ZooKeeper server in this JVM, for development, the demo and tests: on loopback,
 * on a free port or a given one, with its data in a given folder or a temporary one that is
 * deleted on close.
 *
 * <pre>{@code
 * try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.builder().start();
 *      Baton baton = Baton.connect(zk.connectString())) { ... }
 * }</pre>
 */
public final class EmbeddedZooKeeper implements AutoCloseable {
  private final ZooKeeperServerEmbedded server;
  private final int port;
  private final String host;
  private final Path dataDir;
  private final boolean deleteDataOnClose;

  private EmbeddedZooKeeper(
      ZooKeeperServerEmbedded server, String host, int port, Path dataDir, boolean deleteDataOnClose) {
    this.server = server;
    this.host = host;
    this.port = port;
    this.dataDir = dataDir;
    this.deleteDataOnClose = deleteDataOnClose;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Starts a server on a free loopback port with a temporary data folder. */
  public static EmbeddedZooKeeper start() {
    return builder().start();
  }

  /** {@code host:port} for {@code Baton.connect}. */
  public String connectString() {
    return host + ":" + port;
  }

  public int port() {
    return port;
  }

  public Path dataDir() {
    return dataDir;
  }

  /** Stops the server; a temporary data folder is deleted. */
  @Override
  public void close() {
    server.close();
    if (deleteDataOnClose) {
      deleteRecursively(dataDir);
    }
  }

  /** Settings of an embedded server; {@link #start()} validates them and starts it. */
  public static final class Builder {
    private int port;
    private Path dataDir;
    private String host = InetAddress.getLoopbackAddress().getHostAddress();
    private Duration tickTime = Duration.ofMillis(500);
    private boolean forceSync = true;
    private Duration startTimeout = Duration.ofSeconds(30);

    private Builder() {}

    /** The client port; 0 (the default) picks a free one. */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be between 0 and 65535, was " + port);
      }
      this.port = port;
      return this;
    }

    /** Where snapshots and logs go; by default a temporary folder deleted on close. */
    public Builder dataDir(Path dataDir) {
      this.dataDir = java.util.Objects.requireNonNull(dataDir, "dataDir");
      return this;
    }

    /** The address to listen on; loopback by default. */
    public Builder host(String host) {
      this.host = java.util.Objects.requireNonNull(host, "host");
      return this;
    }

    /**
     * ZooKeeper's tick: the smallest session timeout the server grants is two ticks, the largest
     * twenty. 500 ms by default (sessions of 1 to 10 s; ZooKeeper's own default is 2 s).
     */
    public Builder tickTime(Duration tickTime) {
      java.util.Objects.requireNonNull(tickTime, "tickTime");
      if (tickTime.toMillis() < 1) {
        throw new IllegalArgumentException("tickTime must be at least 1 ms, was " + tickTime);
      }
      this.tickTime = tickTime;
      return this;
    }

    /** Whether the transaction log is fsync'ed on each write, as in production (the default). */
    public Builder forceSync(boolean forceSync) {
      this.forceSync = forceSync;
      return this;
    }

    public EmbeddedZooKeeper start() {
      boolean temporary = dataDir == null;
      Path dir;
      try {
        dir = temporary ? Files.createTempDirectory("baton-zk-") : Files.createDirectories(dataDir);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot create ZooKeeper data folder " + dataDir, e);
      }
      int chosen = port == 0 ? freePort(host) : port;
      Properties config = new Properties();
      config.setProperty("clientPort", Integer.toString(chosen));
      config.setProperty("clientPortAddress", host);
      config.setProperty("dataDir", dir.toAbsolutePath().toString());
      config.setProperty("tickTime", Long.toString(tickTime.toMillis()));
      config.setProperty("forceSync", forceSync ? "yes" : "no");
      config.setProperty("admin.enableServer", "false");
      config.setProperty("4lw.commands.whitelist", "*");
      config.setProperty("maxClientCnxns", "0");
    // ZooKeeper keeps this setting in a static field: unsaid, a server takes the one of the JVM's
    // last configured server, and after an ensemble member's (false) a standalone one will not start.
    config.setProperty("standaloneEnabled", "true");
      ZooKeeperServerEmbedded server;
      try {
        server = ZooKeeperServerEmbedded.builder()
            .baseDir(dir)
            .configuration(config)
            .exitHandler(ExitHandler.LOG_ONLY)
            .build();
        // Waits until the server answers on its client port.
        server.start(startTimeout.toMillis());
      } catch (Exception e) {
        if (temporary) {
          deleteRecursively(dir);
        }
        // ZooKeeper's configuration errors say only which file; the reason is their cause.
        String reason = e.getCause() != null && e.getCause() != e ? e.getMessage() + ": " + e.getCause() : e.getMessage();
        throw new BatonException(
            "Cannot start embedded ZooKeeper on " + host + ":" + chosen + " (data in " + dir + "): " + reason, e);
      }
      return new EmbeddedZooKeeper(server, host, chosen, dir, temporary);
    }
  }

  private static int freePort(String host) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(host, 0));
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot find a free port on " + host, e);
    }
  }

  private static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // A leftover temporary folder is not worth failing a close for.
    }
  }
}
