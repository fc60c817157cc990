package dev.baton.cli.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.cli.BatonCommand;
import dev.baton.leader.LeaderLatch;
import dev.baton.leader.LeaderSelector;
import dev.baton.testkit.TestCluster;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class LeaderCommandTest {
  static TestCluster cluster;
  static Baton first;
  static Baton second;

  @BeforeAll
  static void start() {
    cluster = TestCluster.standalone();
    first = Baton.connect(cluster.connectString());
    second = Baton.connect(cluster.connectString());
  }

  @AfterAll
  static void stop() {
    second.close();
    first.close();
    cluster.close();
  }

  @Test
  void latch_printsTheLeaderThenTheLine() {
    try (LeaderLatch leader = first.leaderLatch("/election/latch", "reports-1");
        LeaderLatch follower = second.leaderLatch("/election/latch", "reports-2")) {
      leader.start();
      assertThat(leader.await(Duration.ofSeconds(10))).isTrue();
      follower.start();
      await().until(() -> leader.participants().size() == 2);

      Cli.Run run = Cli.run("leader", "/election/latch", "--connect", cluster.connectString());

      assertThat(run.exitCode()).as(run.err()).isZero();
      assertThat(run.out().lines()).containsExactly(
          "reports-1 leads /election/latch (leader latch, 2 participants)", "1 reports-1", "2 reports-2");
      assertThat(leader.participants()).as("reading took no part").containsExactly("reports-1", "reports-2");
    }
  }

  @Test
  void selector_printsItsLeader() throws Exception {
    CountDownLatch leading = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(1);
    try (LeaderSelector selector = first.leaderSelector("/election/selector", "billing-a", lease -> {
      leading.countDown();
      done.await();
    })) {
      selector.start();
      leading.await();

      Cli.Run run = Cli.run("leader", "/election/selector", "--connect", cluster.connectString());

      assertThat(run.exitCode()).as(run.err()).isZero();
      assertThat(run.out()).startsWith("billing-a leads /election/selector (leader selector, 1 participant)");
      done.countDown();
    }
  }

  @Test
  void noParticipants_saysSo() {
    Cli.Run run = Cli.run("leader", "/election/empty", "--connect", cluster.connectString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out().strip()).isEqualTo("nobody leads /election/empty: it has no participants");
  }

  @Test
  void badPath_isAUsageError_namingIt() {
    Cli.Run run = Cli.run("leader", "election", "--connect", cluster.connectString());

    assertThat(run.exitCode()).isEqualTo(BatonCommand.USAGE);
    assertThat(run.err()).contains("<path>").contains("election path 'election'");
  }
}
