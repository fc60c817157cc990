package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonException;
import dev.baton.ConnectionException;
import dev.baton.ConnectionState;
import dev.baton.OutcomeUnknownException;
import dev.baton.atomic.Counter;
import dev.baton.testkit.FaultProxy;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RAtomicLong;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The Redis counter in its key: a plain string that INCRBY and Redisson's RAtomicLong share, its
 * refusals of bad data, and its failures on a lost connection (Baton's exceptions, never Lettuce's).
 */
class RedisCounterTest extends RedisTestSupport {
  private RedissonClient redisson;

  @BeforeEach
  void startRedisson() {
    Config config = new Config();
    config.useSingleServer().setAddress(redis.uri()).setConnectionMinimumIdleSize(1)
        .setSubscriptionConnectionMinimumIdleSize(1);
    redisson = Redisson.create(config);
  }

  @AfterEach
  void stopRedisson() {
    redisson.shutdown();
  }

  @Test
  void theValueIsAPlainStringKey_sharedWithIncrbyAndRedissonsAtomicLong() {
    Counter counter = client().counter("orders");
    RAtomicLong atomic = redisson.getAtomicLong("orders");
    assertThat(counter.incrementAndGet()).isEqualTo(1);
    assertThat(raw().type("orders")).isEqualTo("string");
    assertThat(raw().get("orders")).isEqualTo("1");
    assertThat(atomic.get()).as("Redisson's read of Baton's write").isEqualTo(1);
    assertThat(atomic.addAndGet(10)).isEqualTo(11);
    assertThat(counter.get()).as("Baton's read of Redisson's write").isEqualTo(11);
    assertThat(raw().incrby("orders", 4)).isEqualTo(15);
    assertThat(counter.addAndGet(5)).isEqualTo(20);
    assertThat(atomic.compareAndSet(20, 30)).isTrue();
    assertThat(counter.compareAndSet(20, 40)).as("Redisson moved it on").isFalse();
    assertThat(counter.compareAndSet(30, 40)).isTrue();
    assertThat(atomic.compareAndSet(30, 50)).isFalse();
    assertThat(atomic.get()).isEqualTo(40);
    counter.set(-7);
    assertThat(atomic.get()).isEqualTo(-7);
    atomic.set(Long.MAX_VALUE);
    assertThat(counter.get()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void aMissingKey_isZero_forCompareAndSetToo() {
    Counter counter = client().counter("fresh");
    assertThat(counter.get()).isZero();
    assertThat(raw().exists("fresh")).as("a read creates nothing").isZero();
    assertThat(counter.compareAndExchange(0, 3)).isZero();
    assertThat(redisson.getAtomicLong("fresh").get()).isEqualTo(3);
  }

  @Test
  void overflow_isAnArithmeticException_andNothingIsWritten() {
    Counter counter = client().counter("big");
    counter.set(Long.MAX_VALUE);
    assertThatThrownBy(() -> counter.incrementAndGet()).isInstanceOf(ArithmeticException.class)
        .hasMessageContaining("big");
    assertThat(counter.get()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void aKeyThatIsNotANumber_isRefusedNamingItsData_andKept() {
    raw().set("text", "hello");
    raw().rpush("list", "x");
    Counter text = client().counter("text");
    assertThatThrownBy(text::get).isInstanceOf(BatonException.class).hasMessageContaining("text")
        .hasMessageContaining("hello");
    assertThatThrownBy(text::incrementAndGet).isInstanceOf(BatonException.class).hasMessageContaining("hello");
    assertThatThrownBy(() -> text.compareAndSet(0, 1)).isInstanceOf(BatonException.class)
        .hasMessageContaining("hello");
    assertThatThrownBy(() -> client().counter("list").get()).isInstanceOf(BatonException.class)
        .hasMessageContaining("WRONGTYPE");
    assertThat(raw().get("text")).isEqualTo("hello");
    text.set(2);
    assertThat(text.get()).as("set overwrites what was there").isEqualTo(2);
  }

  @Test
  void aCutConnection_failsCallsWithConnectionException_andTheyWorkOnceBack() {
    FaultProxy proxy = closeAfter(FaultProxy.start(new InetSocketAddress(redis.host(), redis.port())));
    RedisBaton baton = client(RedisBaton.builder().uri("redis://" + proxy.connectString())
        .commandTimeout(Duration.ofMillis(500)));
    Counter counter = baton.counter("cut");
    counter.set(5);
    proxy.cut();
    await().until(() -> baton.connectionState() != ConnectionState.CONNECTED);
    assertThatThrownBy(counter::get).isInstanceOf(ConnectionException.class).hasMessageContaining(baton.address());
    assertThatThrownBy(counter::incrementAndGet).isInstanceOf(ConnectionException.class)
        .as("refused before sending: certainly not applied").isNotInstanceOf(OutcomeUnknownException.class);
    proxy.restore();
    await().ignoreExceptions().until(() -> counter.incrementAndGet() == 6);
  }

  @Test
  void aLostReply_isOutcomeUnknownForUpdates_andConnectionExceptionForReads() {
    FaultProxy proxy = closeAfter(FaultProxy.start(new InetSocketAddress(redis.host(), redis.port())));
    RedisBaton baton = client(RedisBaton.builder().uri("redis://" + proxy.connectString())
        .commandTimeout(Duration.ofMillis(300)));
    Counter counter = baton.counter("silent");
    counter.set(1);
    proxy.blackhole();
    assertThatThrownBy(counter::get).isInstanceOf(ConnectionException.class)
        .isNotInstanceOf(OutcomeUnknownException.class).hasMessageContaining("silent");
    assertThatThrownBy(() -> counter.addAndGet(2)).isInstanceOf(OutcomeUnknownException.class)
        .hasMessageContaining("silent")
        .satisfies(e -> assertThat(((OutcomeUnknownException) e).path()).isEqualTo("silent"));
    assertThatThrownBy(() -> counter.compareAndSet(1, 2)).isInstanceOf(OutcomeUnknownException.class);
    proxy.restore();
    await().ignoreExceptions().until(() -> counter.get() >= 1);
  }
}
