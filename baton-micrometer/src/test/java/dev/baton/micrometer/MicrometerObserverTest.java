package dev.baton.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.Codec;
import dev.baton.leader.LeaderLatch;
import dev.baton.leader.LeaderSelector;
import dev.baton.lock.Semaphore;
import dev.baton.queue.ConsumerOptions;
import dev.baton.queue.DistributedQueue;
import dev.baton.queue.QueueConsumer;
import dev.baton.config.ConfigCenter;
import dev.baton.discovery.Registration;
import dev.baton.discovery.ServiceInstance;
import dev.baton.discovery.ServiceRegistry;
import dev.baton.lock.AcquireTimeoutException;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.Mutex;
import dev.baton.lock.MutexOptions;
import dev.baton.testkit.FaultProxy;
import dev.baton.testkit.ZooKeeperExtension;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A scripted sequence of lock, config and registry events against an embedded ZooKeeper, then the
 * meters of a {@link SimpleMeterRegistry}: their names, tags and counts.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class MicrometerObserverTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  @RegisterExtension
  static final ZooKeeperExtension zk = new ZooKeeperExtension();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final Meters read = new Meters(meters);

  private <T extends AutoCloseable> T closing(T resource) {
    return zk.closing(resource);
  }

  private Baton observed(String connectString, Duration session) {
    return closing(Baton.builder().connectString(connectString).sessionTimeout(session)
        .observer(new MicrometerObserver(meters, PathTags.defaults())).build());
  }

  private long acquires(String recipe, String outcome, String grant) {
    return read.acquires(recipe, "/shop", outcome, grant);
  }

  private double count(String name, String... tags) {
    return read.count(name, tags);
  }

  @Test
  void scriptedLocking_queuedReentrantTimedOutAndHeld_countedUnderTheirTags() throws Exception {
    Baton baton = observed(zk.connectString(), Duration.ofSeconds(10));
    Baton other = closing(Baton.connect(zk.connectString()));
    Mutex mutex = baton.mutex("/shop/orders/1");

    mutex.acquire().close();
    try (Lease outer = mutex.acquire(WAIT); Lease inner = mutex.acquire(WAIT)) {
      assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
    }
    try (Lease theirs = other.mutex("/shop/orders/2").acquire(WAIT)) {
      assertThat(baton.mutex("/shop/orders/2").tryAcquire(Duration.ofMillis(100))).isEmpty();
      assertThatThrownBy(() -> baton.mutex("/shop/orders/2").acquire(Duration.ofMillis(100)))
          .isInstanceOf(AcquireTimeoutException.class);
    }
    baton.readWriteLock("/shop/catalog").readLock().acquire(WAIT).close();

    assertThat(acquires("mutex", "acquired", "queued")).isEqualTo(2);
    assertThat(acquires("mutex", "acquired", "reentrant")).isEqualTo(1);
    assertThat(acquires("mutex", "timeout", "none")).isEqualTo(2);
    assertThat(acquires("read-lock", "acquired", "queued")).isEqualTo(1);
    await().atMost(WAIT).untilAsserted(() -> {
      Timer held = meters.find(MicrometerObserver.HELD).tags("recipe", "mutex", "path", "/shop").timer();
      assertThat(held).isNotNull();
      assertThat(held.count()).as("every lease closed, the reentrant one included").isEqualTo(3);
    });
    assertThat(meters.find(MicrometerObserver.ACQUIRE).tag("path", "/shop/orders/1").timer())
        .as("paths are cut to their prefix").isNull();
  }

  @Test
  void cachingAndLocalHandOver_countedAsCacheHitsAndHandOvers() throws Exception {
    Baton baton = observed(zk.connectString(), Duration.ofSeconds(10));
    Mutex cached = baton.mutex("/shop/cached", MutexOptions.defaults().withCaching(Duration.ofSeconds(30)));
    cached.acquire(WAIT).close();
    cached.acquire(WAIT).close();

    Mutex shared = baton.mutex("/shop/busy", MutexOptions.defaults().withLocalHandOver(8));
    Meters.handOverOnce(shared, WAIT);

    assertThat(count(MicrometerObserver.CACHE_HITS, "recipe", "mutex", "path", "/shop")).isEqualTo(1);
    assertThat(acquires("mutex", "acquired", "cached")).isEqualTo(1);
    assertThat(count(MicrometerObserver.HAND_OVERS, "recipe", "mutex", "path", "/shop")).isEqualTo(1);
    assertThat(acquires("mutex", "acquired", "local-hand-over")).isEqualTo(1);
    assertThat(acquires("mutex", "acquired", "queued")).as("one node each").isEqualTo(2);
  }

  @Test
  void sessionExpiresWhileHeld_leaseLossesByCauseAndSessionStates() {
    FaultProxy proxy = closing(FaultProxy.start(zk.address()));
    Baton baton = observed(proxy.connectString(), Duration.ofSeconds(1));
    Lease lease = baton.mutex("/shop/fragile").acquire(WAIT);

    proxy.blackhole();
    await().atMost(WAIT).until(() -> lease.state() == LeaseState.LOST);
    proxy.restore();

    await().atMost(WAIT).untilAsserted(() -> {
      read.assertOneSuspectThenLost("/shop");
      assertThat(count(MicrometerObserver.SESSION_STATES, "state", "suspended")).isGreaterThanOrEqualTo(1);
      assertThat(count(MicrometerObserver.SESSION_STATES, "state", "reconnected")).isGreaterThanOrEqualTo(1);
    });
    lease.close();
    assertThat(meters.find(MicrometerObserver.HELD).timer()).as("a lost lease is no hold that ended in a release").isNull();
  }

  @Test
  void semaphore_leasesTakenAndReleased_countedAsTheSemaphoreRecipe() {
    Baton baton = observed(zk.connectString(), Duration.ofSeconds(10));
    Semaphore pool = baton.semaphore("/shop/pool", 2);

    try (Lease one = pool.acquire(WAIT); Lease two = pool.acquire(WAIT)) {
      assertThat(pool.tryAcquire(Duration.ofMillis(100))).as("both permits taken").isEmpty();
    }

    assertThat(acquires("semaphore", "acquired", "queued")).isEqualTo(2);
    assertThat(acquires("semaphore", "timeout", "none")).isEqualTo(1);
    await().atMost(WAIT).untilAsserted(() -> {
      Timer held = meters.find(MicrometerObserver.HELD).tags("recipe", "semaphore", "path", "/shop").timer();
      assertThat(held).isNotNull();
      assertThat(held.count()).isEqualTo(2);
    });
  }

  @Test
  void leaderLatch_gainedThenClosed_countedAsGainedAndLost() {
    Baton baton = observed(zk.connectString(), Duration.ofSeconds(10));
    LeaderLatch latch = baton.leaderLatch("/shop/leader", "node-1");
    latch.start();
    assertThat(latch.await(WAIT)).isTrue();

    latch.close();

    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(count(MicrometerObserver.LEADERSHIP, "recipe", "leader-latch", "path", "/shop", "change", "gained")).isEqualTo(1);
      assertThat(count(MicrometerObserver.LEADERSHIP, "recipe", "leader-latch", "path", "/shop", "change", "lost")).isEqualTo(1);
    });
  }

  @Test
  void leaderSelector_taskRunsAndReturns_countedAsGainedAndLost() {
    Baton baton = observed(zk.connectString(), Duration.ofSeconds(10));
    CountDownLatch led = new CountDownLatch(1);
    try (LeaderSelector selector = baton.leaderSelector("/shop/selector", "node-1", leadership -> led.countDown())) {
      selector.start();

      await().atMost(WAIT).untilAsserted(() -> {
        assertThat(led.getCount()).isZero();
        assertThat(count(MicrometerObserver.LEADERSHIP, "recipe", "leader-selector", "path", "/shop", "change", "gained")).isEqualTo(1);
        assertThat(count(MicrometerObserver.LEADERSHIP, "recipe", "leader-selector", "path", "/shop", "change", "lost")).isEqualTo(1);
      });
    }
  }

  @Test
  void queue_itemsTakenAckedGivenBackAndDeadLettered_countedByEvent() {
    Baton baton = observed(zk.connectString(), Duration.ofSeconds(10));
    DistributedQueue<String> queue = baton.queue("/shop/jobs", Codec.utf8());
    queue.put("given-back");
    queue.take(WAIT).orElseThrow().release();
    queue.take(WAIT).orElseThrow().ack();
    queue.put("poison");
    List<String> dead = new CopyOnWriteArrayList<>();

    try (QueueConsumer consumer = queue.consume(item -> {
      throw new IllegalStateException("cannot handle " + item);
    }, ConsumerOptions.defaults().withMaxAttempts(2).withBackOff(Duration.ofMillis(10), Duration.ofMillis(10))
        .withDeadLetterHandler(letter -> dead.add(new String(letter.data(), StandardCharsets.UTF_8))))) {
      await().atMost(WAIT).until(() -> dead.contains("poison"));
    }

    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(count(MicrometerObserver.QUEUE_ITEMS, "path", "/shop", "event", "taken")).as("2 takes, 2 deliveries").isEqualTo(4);
      assertThat(count(MicrometerObserver.QUEUE_ITEMS, "path", "/shop", "event", "acked")).isEqualTo(1);
      assertThat(count(MicrometerObserver.QUEUE_ITEMS, "path", "/shop", "event", "released")).as("1 release, 1 failure").isEqualTo(2);
      assertThat(count(MicrometerObserver.QUEUE_ITEMS, "path", "/shop", "event", "dead-lettered")).isEqualTo(1);
    });
  }

  @Test
  void configWrites_countedAsCreatedUpdatedDeleted() throws Exception {
    Baton baton = closing(Baton.connect(zk.connectString()));
    ConfigCenter config = closing(ConfigCenter.open(baton, "/config"));
    ConfigMetrics.bind(config, "/config", meters);

    config.create("db/pool", "10");
    config.update("db/pool", "20");
    config.delete("db/pool");

    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(count(ConfigMetrics.UPDATES, "prefix", "/config", "change", "created")).isEqualTo(1);
      assertThat(count(ConfigMetrics.UPDATES, "prefix", "/config", "change", "updated")).isEqualTo(1);
      assertThat(count(ConfigMetrics.UPDATES, "prefix", "/config", "change", "deleted")).isEqualTo(1);
    });
  }

  @Test
  void registryChanges_countedForServicesAndInstances() {
    Baton baton = closing(Baton.connect(zk.connectString()));
    ServiceRegistry registry = closing(ServiceRegistry.open(baton, "/services"));
    RegistryMetrics.bindServices(registry, meters);
    RegistryMetrics.bindView(registry.watch("orders"), "orders", PathTags.defaults(), meters);

    Registration registration = registry.register(ServiceInstance.builder("orders").address("10.0.0.1").port(8080).build());

    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(count(RegistryMetrics.CHANGES, "kind", "services")).isGreaterThanOrEqualTo(1);
      assertThat(count(RegistryMetrics.CHANGES, "kind", "instances", "service", "orders")).isGreaterThanOrEqualTo(1);
    });
    registration.close();
  }

  @Test
  void pathTags_pastTheLimit_newPrefixesShareOneValue() {
    PathTags tags = new PathTags(1, 2);

    assertThat(List.of(tags.of("/a/x"), tags.of("/b/y"), tags.of("/c/z"), tags.of("/a/w")))
        .containsExactly("/a", "/b", PathTags.OTHER, "/a");
    assertThat(new PathTags(2, 10).of("/locks/orders/42")).isEqualTo("/locks/orders");
    assertThat(new PathTags(1, 10).of("orders:sku-42")).as("a Redis lock name").isEqualTo("orders");
    assertThat(new PathTags(1, 10).of("orders")).isEqualTo("orders");
    assertThatThrownBy(() -> new PathTags(0, 10)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("depth");
  }
}
