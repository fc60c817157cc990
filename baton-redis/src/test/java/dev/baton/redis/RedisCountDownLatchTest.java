package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonException;
import dev.baton.ClientClosedException;
import dev.baton.ConnectionException;
import dev.baton.ConnectionState;
import dev.baton.testkit.FaultProxy;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RCountDownLatch;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The countdown latch in Redisson's RCountDownLatch layout: Baton and Redisson on the same name set,
 * count down and wake each other's waiters, both ways; waiting is woken by the channel, not polling.
 */
class RedisCountDownLatchTest extends RedisTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private RedissonClient redisson;
  private ExecutorService threads;

  @BeforeEach
  void start() {
    Config config = new Config();
    config.useSingleServer().setAddress(redis.uri()).setConnectionMinimumIdleSize(1)
        .setSubscriptionConnectionMinimumIdleSize(1);
    redisson = Redisson.create(config);
    threads = Executors.newCachedThreadPool();
  }

  @AfterEach
  void stop() {
    threads.shutdownNow();
    redisson.shutdown();
  }

  private static long subscribers(String channel) {
    Long n = raw().pubsubNumsub(channel).get(channel);
    return n == null ? 0 : n;
  }

  @Test
  void theCountIsRedissonsKey_setOnceByEitherClient() {
    RedisCountDownLatch latch = client().countDownLatch("batch");
    RCountDownLatch rlatch = redisson.getCountDownLatch("batch");
    assertThat(latch.getCount()).as("never set").isZero();
    assertThat(latch.trySetCount(3)).isTrue();
    assertThat(raw().get("batch")).isEqualTo("3");
    assertThat(rlatch.getCount()).isEqualTo(3);
    assertThat(rlatch.trySetCount(5)).as("Redisson, on a latch Baton set").isFalse();
    assertThat(latch.trySetCount(5)).isFalse();
    rlatch.countDown();
    assertThat(latch.countDown()).isEqualTo(1);
    assertThat(rlatch.getCount()).isEqualTo(1);
    assertThat(latch.countDown()).isZero();
    assertThat(raw().exists("batch")).as("the key goes at zero, as Redisson's does").isZero();
    assertThat(rlatch.getCount()).isZero();
    assertThat(latch.countDown()).as("on an open latch").isZero();
    assertThat(raw().exists("batch")).isZero();
    assertThat(rlatch.trySetCount(2)).as("an open latch can be set again").isTrue();
    assertThat(latch.getCount()).isEqualTo(2);
    assertThat(latch.trySetCount(1)).isFalse();
  }

  @Test
  void batonWaiters_areWokenByRedissonsCountDown() throws Exception {
    RedisCountDownLatch first = client().countDownLatch("gate");
    RedisCountDownLatch second = client().countDownLatch("gate");
    assertThat(first.trySetCount(2)).isTrue();
    List<Future<Boolean>> waiters = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      RedisCountDownLatch latch = i % 2 == 0 ? first : second;
      waiters.add(threads.submit(() -> latch.await(WAIT)));
    }
    // Both clients listen on Redisson's channel, one subscription each, however many threads wait.
    await().until(() -> subscribers(RedisCountDownLatch.channelOf("gate")) == 2);
    RCountDownLatch rlatch = redisson.getCountDownLatch("gate");
    rlatch.countDown();
    assertThat(waiters).allSatisfy(w -> assertThat(w).isNotDone());
    rlatch.countDown();
    for (Future<Boolean> waiter : waiters) {
      assertThat(waiter.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void redissonsWaiter_isWokenByBatonsCountDown() throws Exception {
    RedisCountDownLatch latch = client().countDownLatch("door");
    RCountDownLatch rlatch = redisson.getCountDownLatch("door");
    assertThat(latch.trySetCount(1)).isTrue();
    Future<Boolean> redissonWaiter = threads.submit(() -> rlatch.await(WAIT.toSeconds(), TimeUnit.SECONDS));
    await().until(() -> subscribers(RedisCountDownLatch.channelOf("door")) >= 1);
    assertThat(redissonWaiter).isNotDone();
    latch.countDown();
    assertThat(redissonWaiter.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void aWaiterReadsTheCountOnlyWhenTheChannelSaysSo() throws Exception {
    RedisCountDownLatch latch = client().countDownLatch("quiet");
    latch.trySetCount(1);
    String channel = RedisCountDownLatch.channelOf("quiet");
    raw().configResetstat();
    Future<Boolean> waiter = threads.submit(() -> latch.await(WAIT));
    await().until(() -> subscribers(channel) == 1);
    // Its two reads: before subscribing, and after (a zero published between the two is seen by the second).
    await().until(() -> getCalls() == 2);
    long base = getCalls();
    for (int message = 1; message <= 5; message++) {
      raw().publish(channel, "1"); // Redisson's "a count was set": the waiter reads, finds 1, waits on
      long expected = message;
      await().until(() -> getCalls() - base >= expected);
    }
    assertThat(waiter).isNotDone();
    assertThat(getCalls() - base).as("reads: one per message, none of its own").isEqualTo(5);
    redisson.getCountDownLatch("quiet").countDown();
    assertThat(waiter.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
  }

  /** GET calls since the statistics were reset (the latch's reads; Redisson's count-down sends none). */
  private static long getCalls() {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("cmdstat_get:calls=(\\d+)")
        .matcher(raw().info("commandstats"));
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }

  @Test
  void await_onAnOpenLatch_isTrueAtOnce_andTimesOutFalseOnAClosedOne() {
    RedisCountDownLatch latch = client().countDownLatch("open");
    assertThat(latch.await(Duration.ZERO)).isTrue();
    latch.trySetCount(1);
    assertThat(latch.await(Duration.ZERO)).isFalse();
    assertThat(latch.await(Duration.ofMillis(200))).isFalse();
    assertThat(subscribers(RedisCountDownLatch.channelOf("open"))).as("a timed-out waiter's listener lingers at most")
        .isLessThanOrEqualTo(1);
    assertThat(latch.getCount()).isEqualTo(1);
  }

  @Test
  void aWaiter_isFailedWhenItsClientCloses() {
    RedisBaton closing = client();
    RedisCountDownLatch latch = closing.countDownLatch("closing");
    latch.trySetCount(1);
    CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> latch.await(WAIT), threads);
    await().until(() -> subscribers(RedisCountDownLatch.channelOf("closing")) == 1);
    closing.close();
    assertThatThrownBy(() -> waiter.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(ClientClosedException.class);
    assertThatThrownBy(() -> closing.countDownLatch("closing")).isInstanceOf(ClientClosedException.class);
  }

  @Test
  void aWaiterWhoseConnectionDrops_seesTheZeroPublishedMeanwhile_onceItIsBack() throws Exception {
    FaultProxy proxy = closeAfter(FaultProxy.start(new InetSocketAddress(redis.host(), redis.port())));
    RedisBaton behindProxy = client(RedisBaton.builder().uri("redis://" + proxy.connectString())
        .commandTimeout(Duration.ofMillis(500)));
    RedisCountDownLatch waiting = behindProxy.countDownLatch("dropped");
    waiting.trySetCount(1);
    Future<Boolean> waiter = threads.submit(() -> waiting.await(WAIT));
    await().until(() -> subscribers(RedisCountDownLatch.channelOf("dropped")) == 1);
    proxy.cut();
    await().until(() -> behindProxy.connectionState() != ConnectionState.CONNECTED);
    // Published while the waiter cannot hear it: only its read after reconnecting can see the zero.
    assertThat(redisson.getCountDownLatch("dropped").getCount()).isEqualTo(1);
    redisson.getCountDownLatch("dropped").countDown();
    assertThat(waiter).isNotDone();
    proxy.restore();
    assertThat(waiter.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void aWaitThatEndsWhileTheConnectionIsDown_throwsConnectionException_notFalse() throws Exception {
    FaultProxy proxy = closeAfter(FaultProxy.start(new InetSocketAddress(redis.host(), redis.port())));
    RedisBaton behindProxy = client(RedisBaton.builder().uri("redis://" + proxy.connectString())
        .commandTimeout(Duration.ofMillis(500)));
    RedisCountDownLatch latch = behindProxy.countDownLatch("down");
    latch.trySetCount(1);
    Future<Boolean> waiter = threads.submit(() -> latch.await(Duration.ofSeconds(3)));
    await().until(() -> subscribers(RedisCountDownLatch.channelOf("down")) == 1);
    proxy.cut();
    assertThatThrownBy(() -> waiter.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(ConnectionException.class).hasMessageContaining("down");
    assertThatThrownBy(latch::countDown).as("refused unsent while down").isInstanceOf(ConnectionException.class)
        .isNotInstanceOf(dev.baton.OutcomeUnknownException.class);
  }

  @Test
  void badInput_isRefused() {
    RedisBaton baton = client();
    assertThatThrownBy(() -> baton.countDownLatch(null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("latch");
    assertThatThrownBy(() -> baton.countDownLatch(" ")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("latch");
    RedisCountDownLatch latch = baton.countDownLatch("bad");
    assertThatThrownBy(() -> latch.trySetCount(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("count");
    assertThatThrownBy(() -> latch.await(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("timeout");
    assertThatThrownBy(() -> latch.await(null)).isInstanceOf(NullPointerException.class);
    raw().set("bad", "nope");
    assertThatThrownBy(latch::getCount).isInstanceOf(BatonException.class).hasMessageContaining("nope");
    assertThatThrownBy(latch::countDown).isInstanceOf(BatonException.class).hasMessageContaining("bad");
  }
}
