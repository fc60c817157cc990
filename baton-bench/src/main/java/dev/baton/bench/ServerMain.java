package dev.baton.bench;

import dev.baton.embedded.EmbeddedZooKeeper;
import java.io.IOException;

/**
 * The benchmark's ZooKeeper server, in a JVM of its own so that its threads, garbage and fsyncs
 * are not the clients' (started by {@link ServerProcess}; not meant to be run by hand).
 * Standalone, on a free loopback port, data in a temporary folder, fsync on each write as in
 * production. Prints {@value #READY} followed by {@code host:port} once it answers, and stops
 * when its standard input closes (the harness ended, even by {@code kill -9}) or on SIGTERM.
 */
public final class ServerMain {
  static final String READY = "BATON-BENCH-ZOOKEEPER ";

  private ServerMain() {}

  public static void main(String[] args) throws IOException {
    EmbeddedZooKeeper server = EmbeddedZooKeeper.builder().forceSync(true).start();
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "zookeeper-stop"));
    System.out.println(READY + server.connectString());
    System.out.flush();
    while (System.in.read() != -1) {
      // nothing is ever sent; end of input means the harness is gone
    }
    System.exit(0);
  }
}
