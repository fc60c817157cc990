package dev.baton.cli.command;

import dev.baton.Baton;
import dev.baton.testkit.TestCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** One standalone ZooKeeper for a test class, and a Baton client of the test's own on it. */
public abstract class StandaloneZooKeeper {
  public static TestCluster cluster;
  public static Baton baton;

  @BeforeAll
  static void startZooKeeper() {
    cluster = TestCluster.standalone();
    baton = Baton.connect(cluster.connectString());
  }

  @AfterAll
  static void stopZooKeeper() {
    baton.close();
    cluster.close();
  }
}
