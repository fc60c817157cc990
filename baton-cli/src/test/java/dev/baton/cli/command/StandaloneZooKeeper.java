package dev.baton.cli.command;

import dev.baton.Baton;
import dev.baton.testkit.TestCluster;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * One standalone ZooKeeper for a test class, and a Baton client of the test's own on it. The server
 * grants sessions of up to 10 s, not the testkit's 2 s: the module's tests run in two JVMs on a
 * loaded machine, where a 2 s session expires under a client paused by the scheduler or the GC.
 */
public abstract class StandaloneZooKeeper {
  /** The longest session the server grants; a client asking more (the command line's 30 s default) gets this. */
  public static final String MAX_SESSION_TIMEOUT_MS = "10000";
  /** The bound of a wait for a condition: the default 10 s is too short for the loaded machine. */
  public static final Duration WAIT = Duration.ofSeconds(30);
  public static TestCluster cluster;
  public static Baton baton;

  /** A standalone server of its own that grants sessions of up to {@link #MAX_SESSION_TIMEOUT_MS}. */
  public static TestCluster startServer() {
    return TestCluster.builder().standalone().property("maxSessionTimeout", MAX_SESSION_TIMEOUT_MS).start();
  }

  @BeforeAll
  static void startZooKeeper() {
    cluster = startServer();
    baton = Baton.connect(cluster.connectString());
  }

  @AfterAll
  static void stopZooKeeper() {
    baton.close();
    cluster.close();
  }
}
