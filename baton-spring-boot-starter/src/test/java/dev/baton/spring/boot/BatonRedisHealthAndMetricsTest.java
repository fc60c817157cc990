package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.embedded.EmbeddedRedis;
import dev.baton.redis.RedisBaton;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The Redis client's health (what either Boot generation's indicator reports) and metrics through the starter, against a redis-server of each test's
 * own that the test stops.
 */
class BatonRedisHealthAndMetricsTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private EmbeddedRedis redis;

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(BatonRedisAutoConfiguration.class,
          BatonMetricsAutoConfiguration.class));

  @BeforeEach
  void startServer() {
    redis = EmbeddedRedis.start();
  }

  @AfterEach
  void stopServer() {
    redis.close();
  }

  @Test
  void serverStopped_healthDownWithTheReasonThenUpWhenBack() {
    runner.withPropertyValues("baton.redis.uri=" + redis.uri(), "baton.redis.lease-ttl=1500ms").run(context -> {
      RedisBaton client = context.getBean(RedisBaton.class);
      ClientHealth up = ClientHealth.of(client);
      assertThat(up.up()).isTrue();
      assertThat(up.details()).containsEntry("state", "CONNECTED").containsEntry("address", redis.uri());

      redis.kill();

      await().atMost(WAIT).until(() -> !ClientHealth.of(client).up());
      await().atMost(WAIT).until(() -> "LOST".equals(ClientHealth.of(client).details().get("state")));
      ClientHealth down = ClientHealth.of(client);
      assertThat(down.details()).containsKey("since");
      assertThat((String) down.details().get("reason")).contains(redis.uri()).contains("lease TTL");

      redis.restart();

      await().atMost(WAIT).until(() -> ClientHealth.of(client).up());
      assertThat(ClientHealth.of(client).details()).containsEntry("state", "RECONNECTED");
    });
  }

  @Test
  void meterRegistryPresent_redisClientRecordsLockAndConnectionMeters() {
    runner.withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
        .withPropertyValues("baton.redis.uri=" + redis.uri(), "baton.redis.lease-ttl=1500ms").run(context -> {
          RedisBaton client = context.getBean(RedisBaton.class);
          client.mutex("orders:42").acquire(WAIT).close();
          SimpleMeterRegistry meters = context.getBean(SimpleMeterRegistry.class);
          assertThat(meters.find("baton.lock.acquire").tags("recipe", "mutex", "path", "orders",
              "outcome", "acquired").timer()).isNotNull().extracting(t -> t.count()).isEqualTo(1L);

          redis.kill();

          await().atMost(WAIT).untilAsserted(() -> {
            Counter suspended = meters.find("baton.session.state.changes").tags("state", "suspended").counter();
            assertThat(suspended).isNotNull();
            assertThat(suspended.count()).isEqualTo(1);
          });
        });
  }
}
