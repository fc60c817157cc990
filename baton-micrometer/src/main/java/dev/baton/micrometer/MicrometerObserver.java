package dev.baton.micrometer;

import dev.baton.BatonObserver;
import dev.baton.ConnectionState;
import dev.baton.WaitTimeoutException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * A {@link BatonObserver} that records Micrometer meters. Give it to the client's builder:
 *
 * <pre>{@code
 * Baton baton = Baton.builder().connectString("zk:2181")
 *     .observer(new MicrometerObserver(meterRegistry, PathTags.defaults())).build();
 * }</pre>
 *
 * <p>Meters (tags in brackets; {@code path} is a bounded prefix, see {@link PathTags}):
 * <ul>
 *   <li>{@value #ACQUIRE} timer: how long acquisitions waited [recipe, path, outcome =
 *       acquired|timeout|error, grant = queued|local-hand-over|cached|reentrant|none]
 *   <li>{@value #HELD} timer: how long leases were held until released [recipe, path]
 *   <li>{@value #HAND_OVERS} and {@value #CACHE_HITS} counters: grants served inside the client
 *       without a request [recipe, path]
 *   <li>{@value #LEASE_LOSSES} counter: held leases that turned SUSPECT or LOST [recipe, path,
 *       cause = suspect|lost]
 *   <li>{@value #SESSION_STATES} counter: connection state changes [state]
 *   <li>{@value #LEADERSHIP} counter: leadership gained and lost [recipe = leader-latch|leader-selector,
 *       path, change = gained|lost]
 *   <li>{@value #QUEUE_ITEMS} counter: queue items [path, event = taken|acked|released|dead-lettered]
 * </ul>
 * Semaphores ({@code recipe = semaphore}) and Redis clients ({@code RedisBaton.Builder.observer})
 * record the lock meters too; a Redis lock name is cut at its colons ({@link PathTags}).
 * {@link ConfigMetrics} and {@link RegistryMetrics} add the config center's and the registry's.
 */
public final class MicrometerObserver implements BatonObserver {
  public static final String ACQUIRE = "baton.lock.acquire";
  public static final String HELD = "baton.lock.held";
  public static final String HAND_OVERS = "baton.lock.hand.overs";
  public static final String CACHE_HITS = "baton.lock.cache.hits";
  public static final String LEASE_LOSSES = "baton.lease.losses";
  public static final String SESSION_STATES = "baton.session.state.changes";
  public static final String LEADERSHIP = "baton.leadership.changes";
  public static final String QUEUE_ITEMS = "baton.queue.items";

  private final MeterRegistry registry;
  private final PathTags paths;

  public MicrometerObserver(MeterRegistry registry, PathTags paths) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.paths = Objects.requireNonNull(paths, "paths");
  }

  @Override
  public void acquired(String recipe, String path, Duration waited, Grant grant) {
    String prefix = paths.of(path);
    acquireTimer(recipe, prefix, "acquired", tagOf(grant)).record(waited);
    if (grant == Grant.LOCAL_HAND_OVER) {
      Counter.builder(HAND_OVERS).description("Locks handed between threads of one client without a request")
          .tags("recipe", recipe, "path", prefix).register(registry).increment();
    } else if (grant == Grant.CACHED) {
      Counter.builder(CACHE_HITS).description("Locks served from a node the client kept after a release")
          .tags("recipe", recipe, "path", prefix).register(registry).increment();
    }
  }

  @Override
  public void acquireFailed(String recipe, String path, Duration waited, Throwable cause) {
    String outcome = cause == null || cause instanceof WaitTimeoutException ? "timeout" : "error";
    acquireTimer(recipe, paths.of(path), outcome, "none").record(waited);
  }

  @Override
  public void released(String recipe, String path, Duration held) {
    Timer.builder(HELD).description("How long leases were held until released")
        .tags("recipe", recipe, "path", paths.of(path)).register(registry).record(held);
  }

  @Override
  public void leaseLost(String recipe, String path, Loss cause) {
    Counter.builder(LEASE_LOSSES).description("Held leases that stopped being trusted")
        .tags("recipe", recipe, "path", paths.of(path), "cause", cause.name().toLowerCase(Locale.ROOT))
        .register(registry).increment();
  }

  @Override
  public void connectionStateChanged(ConnectionState state) {
    Counter.builder(SESSION_STATES).description("Changes of the client's connection state")
        .tag("state", state.name().toLowerCase(Locale.ROOT)).register(registry).increment();
  }

  @Override
  public void leadershipGained(String recipe, String path) {
    leadership(recipe, path, "gained");
  }

  @Override
  public void leadershipLost(String recipe, String path) {
    leadership(recipe, path, "lost");
  }

  private void leadership(String recipe, String path, String change) {
    Counter.builder(LEADERSHIP).description("Leadership gained and lost by this client's elections")
        .tags("recipe", recipe, "path", paths.of(path), "change", change).register(registry).increment();
  }

  @Override
  public void queueItem(String path, QueueEvent event) {
    Counter.builder(QUEUE_ITEMS).description("Queue items taken, acknowledged, given back or dead-lettered")
        .tags("path", paths.of(path), "event", tagOf(event))
        .register(registry).increment();
  }

  private Timer acquireTimer(String recipe, String prefix, String outcome, String grant) {
    return Timer.builder(ACQUIRE).description("How long lock acquisitions waited")
        .tags("recipe", recipe, "path", prefix, "outcome", outcome, "grant", grant).register(registry);
  }

  private static String tagOf(Enum<?> value) {
    return value.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
