package dev.baton.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.embedded.EmbeddedRedis;
import dev.baton.testkit.ZooKeeperExtension;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Every scenario's example runs here and does what its Javadoc says, so none rots. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ExamplesTest {
  @RegisterExtension
  static final ZooKeeperExtension zk = new ZooKeeperExtension();


  @Test
  void flashSale_manyBuyersOnThreeNodes_sellsTheStockExactly() {
    FlashSale.Result result = FlashSale.run(zk.connectString(), 3, 4, 20);

    assertThat(result.sold()).isEqualTo(20);
    assertThat(result.left()).isZero();
    assertThat(result.fencedOut()).as("no holder was superseded").isZero();
  }

  @Test
  void configCenter_operatorTurnsAFlagOn_applicationHearsAndReadsIt() {
    assertThat(ConfigCenterExample.run(zk.connectString()))
        .isEqualTo(new ConfigCenterExample.Result("off", "on", "on"));
  }

  @Test
  void namingService_providerGoesAway_callerStopsSeeingIt() {
    NamingService.Result result = NamingService.run(zk.connectString());

    assertThat(result.before()).containsExactly("10.0.0.1:8080", "10.0.0.2:8080");
    assertThat(result.picked()).as("round robin visits both").containsExactly("10.0.0.1:8080", "10.0.0.2:8080");
    assertThat(result.after()).containsExactly("10.0.0.1:8080");
  }

  @Test
  void masterElection_fiveParticipants_tenTermsNeverTwoLeaders() {
    MasterElection.Result result = MasterElection.run(zk.connectString(), 5, 10);

    assertThat(result.mostLeadersAtOnce()).isEqualTo(1);
    List<String> log = result.log();
    assertThat(log.size()).isGreaterThanOrEqualTo(20);
    // Each "becomes leader" is followed by the same participant's "leaves" before anyone else leads.
    for (int i = 0; i + 1 < log.size(); i += 2) {
      String leader = log.get(i).substring(0, log.get(i).indexOf(' '));
      assertThat(log.get(i)).contains("becomes leader");
      assertThat(log.get(i + 1)).isEqualTo(leader + " leaves");
    }
  }

  @Test
  void workQueue_aWorkerFailsOnce_everyOrderShippedOnce() {
    WorkQueue.Result result = WorkQueue.run(zk.connectString(), 20);

    assertThat(result.shipped()).containsExactlyInAnyOrderElementsOf(
        IntStream.range(0, 20).mapToObj(i -> "sku-" + i).toList());
    assertThat(result.givenBack()).isEqualTo(1);
  }

  @Test
  void barriers_fourWorkers_allStartTogetherAndFinishTogether() {
    List<String> events = Barriers.run(zk.connectString(), 4).events();

    assertThat(events.get(0)).isEqualTo("released");
    int lastWork = events.stream().filter(e -> e.startsWith("work")).mapToInt(events::indexOf).max().orElseThrow();
    int firstLeave = events.stream().filter(e -> e.startsWith("leave")).mapToInt(events::indexOf).min().orElseThrow();
    assertThat(lastWork).as("every worker worked before any left").isLessThan(firstLeave);
    assertThat(events).hasSize(1 + 3 * 4);
  }

  @Test
  void readWriteLock_twoReadersAndAWriter_readersShareWriterWaits() {
    assertThat(ReadWriteLockExample.run(zk.connectString()))
        .isEqualTo(new ReadWriteLockExample.Result(true, true));
  }

  @Test
  void redisLock_twoClientsTakingTurns_otherKeptOutAndTokensGrow() {
    try (EmbeddedRedis redis = EmbeddedRedis.start()) {
      RedisLockExample.Result result = RedisLockExample.run(redis.uri(), 6);

      assertThat(result.othersKeptOut()).isTrue();
      assertThat(result.tokens()).hasSize(6).isSorted().doesNotHaveDuplicates();
    }
  }

  @Test
  void mains_withoutArguments_runAgainstTheirOwnServer() {
    FlashSale.main(new String[0]);
    RedisLockExample.main(new String[0]);
  }
}
