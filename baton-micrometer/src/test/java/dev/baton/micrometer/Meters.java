package dev.baton.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** What the scripted sequences of both backends share: reading meters, and one local hand-over. */
final class Meters {
  private final MeterRegistry registry;

  Meters(MeterRegistry registry) {
    this.registry = registry;
  }

  /** Acquisitions recorded for {@code recipe} under {@code path}, with this outcome and grant. */
  long acquires(String recipe, String path, String outcome, String grant) {
    Timer timer = registry.find(MicrometerObserver.ACQUIRE)
        .tags("recipe", recipe, "path", path, "outcome", outcome, "grant", grant).timer();
    return timer == null ? 0 : timer.count();
  }

  double count(String name, String... tags) {
    Counter counter = registry.find(name).tags(tags).counter();
    return counter == null ? 0 : counter.count();
  }

  /** Holds {@code shared}, lets a second thread queue behind inside the client, then releases: one local hand-over. */
  static void handOverOnce(Mutex shared, Duration wait) throws Exception {
    Lease first = shared.acquire(wait);
    CompletableFuture<Lease> second = new CompletableFuture<>();
    Thread waiter = new Thread(() -> second.complete(shared.acquire(wait)));
    waiter.start();
    await().atMost(wait).until(() -> waiter.getState() == Thread.State.WAITING
        || waiter.getState() == Thread.State.TIMED_WAITING);
    first.close();
    second.get(wait.toMillis(), TimeUnit.MILLISECONDS).close();
  }

  /** A lease of {@code path} turned SUSPECT then LOST, counted once each. */
  void assertOneSuspectThenLost(String path) {
    assertThat(count(MicrometerObserver.LEASE_LOSSES, "recipe", "mutex", "path", path, "cause", "suspect")).isEqualTo(1);
    assertThat(count(MicrometerObserver.LEASE_LOSSES, "recipe", "mutex", "path", path, "cause", "lost")).isEqualTo(1);
  }
}
