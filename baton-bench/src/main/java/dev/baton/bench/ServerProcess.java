package dev.baton.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Starts {@link ServerMain} as a child JVM from this process's own class path, and stops it at
 * the end, on Ctrl-C (a shutdown hook), or when this JVM dies (the child's input closes).
 */
final class ServerProcess implements AutoCloseable {
  /** The server JVM's heap, as in the baseline measurements. */
  private static final List<String> SERVER_JVM_OPTIONS = List.of("-Xms512m", "-Xmx1g");
  private static final long START_LIMIT_SECONDS = 60;

  private final Process process;
  private final String host;
  private final int port;
  private final Thread hook;

  private ServerProcess(Process process, String host, int port) {
    this.process = process;
    this.host = host;
    this.port = port;
    this.hook = new Thread(this::stop, "bench-server-stop");
    Runtime.getRuntime().addShutdownHook(hook);
  }

  /** Starts the server; its log (warnings and worse) goes to {@code log}. */
  static ServerProcess start(Path log) throws IOException, InterruptedException {
    Files.createDirectories(log.toAbsolutePath().getParent());
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new java.util.ArrayList<>();
    command.add(java);
    command.addAll(SERVER_JVM_OPTIONS);
    command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(ServerMain.class.getName());
    Process process = new ProcessBuilder(command)
        .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .start();
    BufferedReader out = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    CompletableFuture<String> ready = CompletableFuture.supplyAsync(() -> readReadyLine(out));
    String address;
    try {
      address = ready.get(START_LIMIT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      process.destroyForcibly();
      throw new IOException("The ZooKeeper server process did not start within " + START_LIMIT_SECONDS
          + " s; see " + log, e);
    }
    // Keep reading its output so the child never blocks on a full pipe.
    Thread drain = new Thread(() -> readQuietly(out), "bench-server-stdout");
    drain.setDaemon(true);
    drain.start();
    int colon = address.lastIndexOf(':');
    return new ServerProcess(process, address.substring(0, colon),
        Integer.parseInt(address.substring(colon + 1)));
  }

  String host() {
    return host;
  }

  int port() {
    return port;
  }

  long pid() {
    return process.pid();
  }

  /** SIGTERM (the child closes the server and deletes its data), then SIGKILL after 15 s. */
  private void stop() {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(15, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    stop();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // already shutting down: the hook runs (and finds the process gone)
    }
  }

  private static String readReadyLine(BufferedReader out) {
    try {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        if (line.startsWith(ServerMain.READY)) {
          return line.substring(ServerMain.READY.length()).trim();
        }
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    throw new IllegalStateException("server process ended before it was ready");
  }

  private static void readQuietly(BufferedReader out) {
    try {
      while (out.readLine() != null) {
        // discarded: the server logs to its error stream
      }
    } catch (IOException e) {
      // the process ended
    }
  }
}
