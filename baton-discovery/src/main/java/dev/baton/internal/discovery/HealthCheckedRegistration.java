package dev.baton.internal.discovery;

import dev.baton.BatonException;
import dev.baton.discovery.Health;
import dev.baton.discovery.HealthCheck;
import dev.baton.discovery.RegisterOptions;
import dev.baton.discovery.Registration;
import dev.baton.discovery.ServiceInstance;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A registration whose instance a health check marks down and up, through the registration's
 * own {@link Registration#update} (so the node is never dropped, and the registration keeps it
 * across connection loss and expiry as always). What is written is the instance as the
 * application registered or last updated it, with the health laid over it: {@code enabled}
 * false while down (true or as registered while up), and the payload's {@code "health"} and
 * {@code "healthDetail"}.
 *
 * <p>The health turns after enough checks in a row disagree with it (the options' thresholds),
 * not on each check, so that one slow check does not take an instance out of rotation nor one
 * pass put a flapping one back.
 *
 * <p>Checks run on the registry's health thread, one at a time. {@link #update} and the checks
 * hand their writes to the registration under this object's lock, in order, so the last word is
 * always the latest state of both; nothing waits for the ensemble under it (a health write during
 * an outage would otherwise hold up {@link #close} and the application's updates). The health
 * thread never waits for a write at all: the registration writes it once the connection is back.
 * The declared instance is the application's last update the registration took, whether or not
 * its wait for the ensemble then succeeded: the registration writes it all the same, and a later
 * turn of the health must not bring an older one back.
 */
final class HealthCheckedRegistration implements Registration {
  private static final Logger log = LoggerFactory.getLogger(HealthCheckedRegistration.class);
  static final String HEALTH = "health";
  static final String DETAIL = "healthDetail";

  private final HealthCheck check;
  private final int downAfter;
  private final int upAfter;
  private final ZkRegistration registration;
  private final ScheduledFuture<?> schedule;
  // Guarded by this.
  private ServiceInstance declared;
  private Health health;
  /** Checks in a row that disagree with {@code health}: a turn once there are enough of them. */
  private int against;
  private boolean closed;

  private HealthCheckedRegistration(HealthCheck check, int downAfter, int upAfter, ZkRegistration registration,
      ServiceInstance declared, Health health, ScheduledExecutorService checks, Duration interval) {
    this.check = check;
    this.downAfter = downAfter;
    this.upAfter = upAfter;
    this.registration = registration;
    this.declared = declared;
    this.health = health;
    long nanos = interval.toNanos();
    this.schedule = checks.scheduleWithFixedDelay(this::checkOnce, nanos, nanos, TimeUnit.NANOSECONDS);
  }

  /**
   * Checks once, registers (through {@code register}) as the check says, and goes on checking,
   * with {@code options}' check, interval and thresholds.
   */
  static HealthCheckedRegistration register(ServiceInstance instance, RegisterOptions options,
      ScheduledExecutorService checks, Function<ServiceInstance, ZkRegistration> register) {
    HealthCheck check = options.healthCheck().orElseThrow();
    Health first = run(check);
    ZkRegistration registration = register.apply(withHealth(instance, first));
    return new HealthCheckedRegistration(check, options.healthDownAfter(), options.healthUpAfter(), registration,
        instance, first, checks, options.healthInterval());
  }

  static Health run(HealthCheck check) {
    try {
      Health health = check.check();
      return health == null ? Health.down("the check returned null") : health;
    } catch (RuntimeException e) {
      return Health.down("the check threw " + e);
    }
  }

  /** {@code instance} as {@code health} shows it to readers. */
  static ServiceInstance withHealth(ServiceInstance instance, Health health) {
    Map<String, Object> payload = new LinkedHashMap<>(instance.payload());
    payload.put(HEALTH, health.isUp() ? "UP" : "DOWN");
    if (health.detail().isEmpty()) {
      payload.remove(DETAIL);
    } else {
      payload.put(DETAIL, health.detail());
    }
    return instance.toBuilder().payload(payload).enabled(health.isUp() && instance.isEnabled()).build();
  }

  private void checkOnce() {
    Health now = run(check);
    CompletableFuture<Void> written;
    synchronized (this) {
      if (closed) {
        return;
      }
      if (now.isUp() == health.isUp()) {
        against = 0;
        return;
      }
      // Thresholds, so that one slow or failed check does not turn the instance, nor one pass a flapping one.
      if (++against < (health.isUp() ? downAfter : upAfter)) {
        return;
      }
      against = 0;
      log.info("{} is now {}{}", registration.path(), now.isUp() ? "up" : "down",
          now.detail().isEmpty() ? "" : " (" + now.detail() + ")");
      health = now;
      try {
        written = registration.submit(withHealth(declared, now));
      } catch (IllegalStateException e) {
        return; // closed meanwhile
      }
    }
    written.whenComplete((ok, error) -> {
      if (error instanceof BatonException) {
        // The registration keeps the new data and writes it once the connection is back.
        log.warn("Marking {} {} is not written yet: {}", registration.path(), now.isUp() ? "up" : "down",
            error.getMessage());
      }
    });
  }

  @Override
  public ServiceInstance instance() {
    return registration.instance();
  }

  @Override
  public java.util.Optional<RuntimeException> failure() {
    return registration.failure();
  }

  @Override
  public void addFailureListener(dev.baton.FailureListener listener) {
    registration.addFailureListener(listener);
  }

  @Override
  public String path() {
    return registration.path();
  }

  @Override
  public boolean isRegistered() {
    return registration.isRegistered();
  }

  /** The last health the check gave. */
  synchronized Health health() {
    return health;
  }

  /** Updates the instance as the application declares it; the current health stays laid over it. */
  @Override
  public void update(ServiceInstance instance) {
    java.util.Objects.requireNonNull(instance, "instance must not be null");
    CompletableFuture<Void> written;
    synchronized (this) {
      written = registration.submit(withHealth(instance, health));
      declared = instance; // taken: written in the background even if the wait below fails
    }
    registration.awaitWritten(written);
  }

  @Override
  public void close() {
    synchronized (this) {
      closed = true;
    }
    schedule.cancel(false);
    registration.close();
  }

  @Override
  public String toString() {
    return "HealthCheckedRegistration[" + registration.path() + "]";
  }
}
