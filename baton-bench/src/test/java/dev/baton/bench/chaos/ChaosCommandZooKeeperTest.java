package dev.baton.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chaos command end to end on ZooKeeper: apart from {@link ChaosCommandTest}'s run on the other
 * stores so that the two runs, each at least a round of every fault kind long, take the build's two
 * test JVMs at once.
 */
class ChaosCommandZooKeeperTest {

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void shortRun_writesItsTable_withTheSeedAndTheSchedule(@TempDir Path folder) throws Exception {
    String text = ChaosCommandTest.runAndRead(folder, "zookeeper");
    assertTrue(text.contains("| read-write lock |") && text.contains("| semaphore of 2 |"), text);
  }
}
