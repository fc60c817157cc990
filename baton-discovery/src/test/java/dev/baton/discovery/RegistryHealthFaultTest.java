package dev.baton.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import dev.baton.ConnectionException;
import dev.baton.ConnectionState;
import dev.baton.RetryPolicy;
import dev.baton.testkit.FaultProxy;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Health checks across connection faults: the application's own update is what the health is
 * laid over even when that update's reply did not come in time, and closing does not wait for a
 * health write that cannot be sent.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RegistryHealthFaultTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(15);
  private static final Duration INTERVAL = Duration.ofMillis(50);

  private static ServiceInstance.Builder orders(String id) {
    return ServiceInstance.builder("orders").id(id).address("10.0.0.5").port(8080);
  }

  private static String health(ServiceView view, String id) {
    return view.instance(id).map(i -> String.valueOf(i.payload().get("health"))).orElse("absent");
  }

  /**
   * A drain (enabled false) whose update failed on a cut link still lands once the link is back,
   * and a down/up blip of the health afterwards must keep it drained, not put it back in rotation.
   */
  @Test
  void drainWhoseUpdateFailedOnACutLink_staysDrainedAcrossAHealthBlip() throws Exception {
    String base = "/health-drain";
    AtomicReference<Health> health = new AtomicReference<>(Health.up());
    // Closed after everything that talks through it (closing() closes last what it was given first),
    // so the registration's own close at the end does not meet a link that is gone.
    FaultProxy proxy = closing(FaultProxy.start(cluster.address(0)));
    Baton provider = closing(Baton.builder().connectString(proxy.connectString()).sessionTimeout(Duration.ofSeconds(20))
        .retryPolicy(RetryPolicy.exponentialBackoff(Duration.ofMillis(20), Duration.ofMillis(100), 2)).build());
    Registration me = closing(ServiceRegistry.open(provider, base)).register(orders("me").build(),
        RegisterOptions.defaults().withHealthCheck(HealthCheck.of(health::get), INTERVAL));
    ServiceView view = closing(ServiceRegistry.open(baton(), base)).watch("orders");
    assertThat(view.pick(PickStrategy.ROUND_ROBIN)).isPresent();

    proxy.cut();
    await().atMost(WAIT).until(() -> provider.connectionState() == ConnectionState.SUSPENDED);
    assertThatThrownBy(() -> me.update(orders("me").enabled(false).build())).isInstanceOf(ConnectionException.class);
    proxy.restore();
    await().atMost(WAIT).until(() -> view.instance("me").map(i -> !i.isEnabled()).orElse(false));

    health.set(Health.down("blip"));
    await().atMost(WAIT).until(() -> health(view, "me").equals("DOWN"));
    health.set(Health.up());
    await().atMost(WAIT).until(() -> health(view, "me").equals("UP"));

    assertThat(view.instance("me").orElseThrow().isEnabled()).as("still drained").isFalse();
    assertThat(view.pick(PickStrategy.ROUND_ROBIN)).isEmpty();
    assertThat(me.instance().isEnabled()).isFalse();
  }

  /**
   * The health turns while the ensemble cannot be reached: its write waits for the connection,
   * and close must not wait behind it (it returns once the session is presumed lost).
   */
  @Test
  void closeWhileAHealthWriteWaitsForTheConnection_returns() throws Exception {
    String base = "/health-close-outage";
    AtomicReference<Health> health = new AtomicReference<>(Health.up());
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0))) {
      Baton provider = baton(proxy.connectString(), Duration.ofSeconds(1));
      Registration me = closing(ServiceRegistry.open(provider, base)).register(orders("me").build(),
          RegisterOptions.defaults().withHealthCheck(HealthCheck.of(health::get), INTERVAL));
      proxy.blackhole();
      await().atMost(WAIT).until(() -> provider.connectionState() == ConnectionState.SUSPENDED);

      health.set(Health.down("outage"));
      await().atMost(WAIT).until(() -> !me.instance().isEnabled()); // the write is taken, and waits

      CompletableFuture<Void> closed = CompletableFuture.runAsync(me::close, pool(1));
      try {
        closed.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      } finally {
        proxy.restore();
      }
      assertThat(me.isRegistered()).isFalse();
    }
  }
}
