package dev.baton.embedded;

import dev.baton.BatonException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A real {@code redis-server} in a child process, for development, the demo and tests: on
 * loopback, on a free port or a given one, with persistence off (a restart starts empty, as a
 * failed-over master without the data would). The binary is the {@code redis-server} on the
 * {@code PATH} if there is one, else the one the {@code com.github.codemonstur:embedded-redis}
 * package ships (Redis 6.2, Linux and macOS on x86-64 and ARM), copied to a temporary file once
 * per JVM.
 *
 * <pre>{@code
 * try (EmbeddedRedis redis = EmbeddedRedis.start();
 *      RedisBaton baton = RedisBaton.connect(redis.uri())) { ... }
 * }</pre>
 *
 * <p>The process is killed when this object is closed and, as a last resort, when the JVM exits.
 */
public final class EmbeddedRedis implements AutoCloseable {
  private static final String HOST = InetAddress.getLoopbackAddress().getHostAddress();
  private static final long START_TIMEOUT_SECONDS = 20;
  private static volatile Path shippedBinary;

  private final int port;
  private final List<String> extraArgs;
  private final Path sentinelConfig;
  private volatile Process process;
  private Path workDirectory;

  private EmbeddedRedis(int port, List<String> extraArgs, Path sentinelConfig) {
    this.port = port;
    this.extraArgs = List.copyOf(extraArgs);
    this.sentinelConfig = sentinelConfig;
  }

  /**
   * Starts a Sentinel on a free loopback port that watches {@code master} under {@code name}, with
   * a quorum of one and short timeouts (the master is judged down after 500 ms of silence), so a
   * test or the demo sees a failover within seconds. Its URI for clients is
   * {@code redis-sentinel://127.0.0.1:port#name}.
   */
  public static EmbeddedRedis sentinel(EmbeddedRedis master, String name) {
    int port = Builder.freePort();
    try {
      Path config = Files.createTempFile("baton-sentinel-", ".conf");
      config.toFile().deleteOnExit();
      Files.writeString(config, String.join("\n",
          "port " + port,
          "bind " + HOST,
          "sentinel monitor " + name + " " + master.host() + " " + master.port() + " 1",
          "sentinel down-after-milliseconds " + name + " 500",
          "sentinel failover-timeout " + name + " 3000",
          ""));
      EmbeddedRedis sentinel = new EmbeddedRedis(port, List.of(), config);
      sentinel.launch();
      return sentinel;
    } catch (IOException e) {
      throw new UncheckedIOException("Could not write a Sentinel configuration file", e);
    }
  }

  /** The process id, for tests that pause it ({@code kill -STOP}) to stand for a slow server. */
  public long pid() {
    Process p = process;
    if (p == null) {
      throw new IllegalStateException("redis-server on port " + port + " is not running");
    }
    return p.pid();
  }

  /**
   * Starts a Redis Cluster of {@code masters} nodes on loopback and waits until every node reports
   * {@code cluster_state:ok}; its {@link EmbeddedRedisCluster#uri()} is a {@code redis-cluster://}
   * URI naming every node.
   *
   * @throws IllegalArgumentException if {@code masters} is not 1-16
   * @throws BatonException if a node does not start or the cluster does not form within 30 s
   */
  public static EmbeddedRedisCluster cluster(int masters) {
    return EmbeddedRedisCluster.start(masters);
  }

  /** Starts a server on a free loopback port. */
  public static EmbeddedRedis start() {
    return builder().start();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** {@code redis://127.0.0.1:port}. */
  public String uri() {
    return "redis://" + HOST + ":" + port;
  }

  public String host() {
    return HOST;
  }

  public int port() {
    return port;
  }

  /** Whether the process is running. */
  public boolean isRunning() {
    Process p = process;
    return p != null && p.isAlive();
  }

  /** Kills the process at once (SIGKILL), as a crash would: nothing is saved, clients see the connection drop. */
  public void kill() {
    Process p = process;
    if (p != null) {
      p.destroyForcibly();
      try {
        p.waitFor(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Stops the process where it stands ({@code SIGSTOP}), as a long pause or a partition would: its
   * connections stay open, nothing is answered, replication stalls. {@link #resume()} goes on.
   */
  public void pause() {
    signal("-STOP");
  }

  /** Lets a {@link #pause() paused} process go on ({@code SIGCONT}). */
  public void resume() {
    signal("-CONT");
  }

  private void signal(String which) {
    try {
      Process kill = new ProcessBuilder("kill", which, Long.toString(pid())).redirectErrorStream(true).start();
      if (!kill.waitFor(START_TIMEOUT_SECONDS, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new BatonException("kill " + which + " " + pid() + " failed: "
            + new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Could not run kill " + which, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BatonException("Interrupted while signalling redis-server " + pid(), e);
    }
  }

  /** Starts the process again on the same port, empty; kills it first if it runs. */
  public void restart() {
    kill();
    launch();
  }

  @Override
  public void close() {
    kill();
    deleteWorkDirectory();
  }

  private synchronized void deleteWorkDirectory() {
    if (workDirectory == null) {
      return;
    }
    try (java.util.stream.Stream<Path> files = Files.walk(workDirectory)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
    } catch (IOException e) {
      // Only temporary files are left behind; the server is already gone.
    }
    workDirectory = null;
  }

  private void launch() {
    List<String> command = new ArrayList<>();
    command.add(binary().toString());
    String readyLine = "Ready to accept connections";
    if (sentinelConfig != null) {
      // Sentinel rewrites its file as it learns the topology, so each start gets it as written then.
      command.addAll(List.of(sentinelConfig.toString(), "--sentinel"));
      readyLine = "+monitor master";
    } else {
      // A replica's full sync makes the master write an RDB file even with saving off; it goes to a
      // directory of this server's own, never into the caller's working directory.
      command.addAll(List.of("--port", Integer.toString(port), "--bind", HOST, "--save", "",
          "--appendonly", "no", "--protected-mode", "no", "--daemonize", "no",
          "--dir", workDirectory().toString()));
    }
    command.addAll(extraArgs);
    Process started;
    try {
      started = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new BatonException("Could not start " + command.get(0) + ": " + e.getMessage(), e);
    }
    CompletableFuture<Void> ready = new CompletableFuture<>();
    StringBuilder output = new StringBuilder();
    String marker = readyLine;
    Thread reader = new Thread(() -> readOutput(started.getInputStream(), output, ready, marker),
        "embedded-redis-" + port);
    reader.setDaemon(true);
    reader.start();
    try {
      ready.get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      started.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new BatonException("Interrupted while starting redis-server on port " + port, e);
    } catch (ExecutionException | TimeoutException e) {
      started.destroyForcibly();
      throw new BatonException("redis-server did not start on " + HOST + ":" + port + " within "
          + START_TIMEOUT_SECONDS + " s; it printed:\n" + output, e);
    }
    process = started;
    Runtime.getRuntime().addShutdownHook(new Thread(started::destroyForcibly));
  }

  private synchronized Path workDirectory() {
    if (workDirectory == null) {
      try {
        workDirectory = Files.createTempDirectory("baton-redis-" + port + "-");
      } catch (IOException e) {
        throw new UncheckedIOException("Could not make a working directory for redis-server", e);
      }
      workDirectory.toFile().deleteOnExit();
    }
    return workDirectory;
  }

  private static void readOutput(InputStream in, StringBuilder output, CompletableFuture<Void> ready, String marker) {
    try (BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        if (!ready.isDone()) {
          synchronized (output) {
            output.append(line).append('\n');
          }
          if (line.contains(marker)) {
            ready.complete(null);
          }
        }
      }
      ready.completeExceptionally(new IOException("redis-server exited"));
    } catch (IOException e) {
      ready.completeExceptionally(e);
    }
  }

  /** The {@code redis-server} this class runs: the one on the PATH, else the shipped one. */
  public static synchronized Path binary() {
    String path = System.getenv("PATH");
    if (path != null) {
      for (String dir : path.split(java.io.File.pathSeparator)) {
        Path candidate = Path.of(dir, "redis-server");
        if (Files.isExecutable(candidate)) {
          return candidate;
        }
      }
    }
    if (shippedBinary == null) {
      shippedBinary = extractShipped();
    }
    return shippedBinary;
  }

  private static Path extractShipped() {
    String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
    boolean arm = arch.contains("aarch64") || arch.contains("arm");
    String resource;
    if (os.contains("linux")) {
      resource = arm ? "redis-server-6.2.7-linux-arm64" : "redis-server-6.2.6-v5-linux-amd64";
    } else if (os.contains("mac")) {
      resource = arm ? "redis-server-6.2.6-v5-darwin-arm64" : "redis-server-6.2.6-v5-darwin-amd64";
    } else {
      throw new BatonException("No redis-server on the PATH, and none shipped for " + os + "/" + arch
          + "; install Redis and put redis-server on the PATH");
    }
    try (InputStream in = EmbeddedRedis.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new BatonException("The redis-server binary " + resource + " is not on the classpath"
            + " (com.github.codemonstur:embedded-redis); install Redis or add that package");
      }
      Path file = Files.createTempFile("baton-redis-server-", "");
      Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
      file.toFile().deleteOnExit();
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException("Could not copy " + resource + " to a temporary file", e);
    }
  }

  /** Settings of an embedded Redis; {@link #start()} starts it. */
  public static final class Builder {
    private int port;
    private final List<String> args = new ArrayList<>();

    private Builder() {}

    /** A fixed port; 0 (the default) picks a free one. */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be 0 (any free port) or 1-65535, was " + port);
      }
      this.port = port;
      return this;
    }

    /** Makes the server a replica of {@code primary}. */
    public Builder replicaOf(EmbeddedRedis primary) {
      return arg("--replicaof", primary.host(), Integer.toString(primary.port()));
    }

    /** Further {@code redis-server} command-line arguments, such as {@code "--requirepass", "s3cret"}. */
    public Builder arg(String... more) {
      args.addAll(List.of(more));
      return this;
    }

    public EmbeddedRedis start() {
      EmbeddedRedis redis = new EmbeddedRedis(port == 0 ? freePort() : port, args, null);
      redis.launch();
      return redis;
    }

    static int freePort() {
      try (ServerSocket socket = new ServerSocket()) {
        socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        return socket.getLocalPort();
      } catch (IOException e) {
        throw new UncheckedIOException("No free loopback port", e);
      }
    }
  }
}
