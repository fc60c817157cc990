package dev.baton.cli.command;

import dev.baton.Baton;
import dev.baton.cli.BatonCommand;
import dev.baton.embedded.EmbeddedZooKeeper;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code baton server}: a standalone ZooKeeper in this process until Ctrl-C, for trying Baton out. */
@Command(
    name = "server",
    mixinStandardHelpOptions = true,
    description = {
        "Runs a standalone ZooKeeper server in this process until Ctrl-C.",
        "For development and trying Baton out; production wants an ensemble of three or five."
    })
public final class ServerCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--port", defaultValue = "2181", paramLabel = "PORT",
      description = "Client port; 0 picks a free one. Default: ${DEFAULT-VALUE}.")
  int port;

  @Option(names = "--host", defaultValue = "127.0.0.1", paramLabel = "ADDRESS",
      description = "Address to listen on; 0.0.0.0 for every interface. Default: ${DEFAULT-VALUE}.")
  String host;

  @Option(names = "--data", paramLabel = "DIR",
      description = "Keep the data in DIR across restarts. Default: a temporary folder, deleted on exit.")
  Path data;

  @Option(names = "--tick-time-ms", defaultValue = "500", paramLabel = "MS",
      description = "ZooKeeper's tick; sessions may last 2 to 20 ticks. Default: ${DEFAULT-VALUE}.")
  int tickTimeMs;

  /** Released by the shutdown hook; tests release it to stop the server. */
  final CountDownLatch stop = new CountDownLatch(1);

  @Override
  public Integer call() throws Exception {
    if (port < 0 || port > 65535) {
      throw new ParameterException(spec.commandLine(), "--port must be between 0 and 65535, was " + port);
    }
    if (tickTimeMs < 1) {
      throw new ParameterException(spec.commandLine(), "--tick-time-ms must be at least 1, was " + tickTimeMs);
    }
    checkHost();
    if (port != 0) {
      checkPortFree();
    }
    EmbeddedZooKeeper.Builder builder = EmbeddedZooKeeper.builder()
        .host(host).port(port).tickTime(Duration.ofMillis(tickTimeMs));
    if (data != null) {
      builder.dataDir(data);
    }
    PrintWriter out = spec.commandLine().getOut();
    CountDownLatch closed = new CountDownLatch(1);
    try (EmbeddedZooKeeper zk = builder.start()) {
      Thread hook = new Thread(() -> {
        stop.countDown();
        awaitQuietly(closed);
      }, "baton-server-shutdown");
      Runtime.getRuntime().addShutdownHook(hook);
      out.println("ZooKeeper serving at " + zk.connectString());
      out.println("  data: " + zk.dataDir().toAbsolutePath()
          + (data == null ? " (temporary, deleted on exit)" : ""));
      out.println("  sessions: " + 2 * tickTimeMs + " ms to " + 20 * tickTimeMs + " ms");
      out.println("Try: baton demo --connect " + zk.connectString());
      out.println("Press Ctrl-C to stop.");
      out.flush();
      stop.await();
      removeHook(hook);
    } finally {
      // The hook waits for this, so the data folder is gone before the JVM halts.
      closed.countDown();
    }
    out.println("ZooKeeper stopped.");
    out.flush();
    return BatonCommand.OK;
  }

  // Unresolved, the bind below would fail as if the port were taken.
  private void checkHost() {
    try {
      java.net.InetAddress.getByName(host);
    } catch (java.net.UnknownHostException e) {
      throw new ParameterException(spec.commandLine(), "--host '" + host + "' cannot be resolved to an address"
          + " of this machine; try 127.0.0.1, or 0.0.0.0 for every interface");
    }
  }

  // ZooKeeper reports a taken port only in its log and then waits out its start timeout.
  private void checkPortFree() {
    try (ServerSocket socket = new ServerSocket()) {
      // As ZooKeeper binds: connections of a server stopped just now must not count as taken.
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(host, port));
    } catch (IOException e) {
      throw new CliException("Cannot listen on " + host + ":" + port + " (" + e.getMessage()
          + "); is another ZooKeeper running? Choose another port with --port");
    }
  }

  private static void removeHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // Ctrl-C: the hook is already running and waits for the server to close.
    }
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
