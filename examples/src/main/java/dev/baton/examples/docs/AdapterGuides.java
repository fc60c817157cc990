package dev.baton.examples.docs;

import dev.baton.Baton;
import dev.baton.config.ConfigCenter;
import dev.baton.discovery.InstanceLayout;
import dev.baton.discovery.HealthCheck;
import dev.baton.discovery.PickOptions;
import dev.baton.discovery.PickStrategy;
import dev.baton.discovery.RegisterOptions;
import dev.baton.discovery.Registration;
import dev.baton.discovery.ServiceInstance;
import dev.baton.discovery.ServiceRegistry;
import dev.baton.discovery.ServiceView;
import dev.baton.examples.docs.Placeholders.Worker;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.Semaphore;
import dev.baton.micrometer.ConfigMetrics;
import dev.baton.micrometer.MicrometerObserver;
import dev.baton.micrometer.PathTags;
import dev.baton.micrometer.RegistryMetrics;
import dev.baton.opentelemetry.ConfigTracing;
import dev.baton.opentelemetry.TracingObserver;
import dev.baton.reactor.ReactiveConfig;
import dev.baton.reactor.ReactiveLeases;
import dev.baton.redis.RedisBaton;
import dev.baton.spring.integration.BatonLockRegistry;
import dev.baton.spring.integration.LockKeyLayout;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.slf4j.Logger;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.LockRegistry;
import reactor.core.publisher.Mono;

/** docs/reactor.md, registry.md, spring.md and tracing.md: the adapters' guides. */
abstract class AdapterGuides {
  Baton baton;
  ConfigCenter config;
  MeterRegistry meterRegistry;
  OpenTelemetry openTelemetry;
  Logger log;
  Worker worker;

  record Receipt(long fencingToken) {}

  interface ReactiveStock {
    Mono<Receipt> decrement(long fencingToken);
  }

  interface Connections {
    void reconfigure(String key, String value);
  }

  ReactiveStock stock;
  Connections connections;
  Object order;

  abstract void ship(Object order);

  abstract void export();

  Lease lease;

  void reactor(Semaphore pool) {
    // [reactor]
    Mono<Receipt> sale = ReactiveLeases.withLease(
        ReactiveLeases.acquire(baton.mutex("/locks/sku-42"), Duration.ofSeconds(5)),
        lease -> stock.decrement(lease.fencingToken()));     // released when the Mono ends, fails or is cancelled

    Mono<Lease> permits = ReactiveLeases.acquire(() -> pool.acquireAsync(Duration.ofSeconds(5)));  // any acquisition

    ReactiveLeases.states(lease)                               // HELD, then SUSPECT/HELD..., ends with RELEASED or LOST
        .filter(state -> state != LeaseState.HELD)
        .subscribe(state -> worker.stop());

    ReactiveConfig.changes(config, "db")                      // ConfigChange(key, oldValue, newValue), in order
        .subscribe(change -> connections.reconfigure(change.key(), change.newValue()));
    // [/reactor]
  }

  void registry() {
    // [registry]
    ServiceRegistry registry = ServiceRegistry.open(baton, "/services");
    Registration me = registry.register(ServiceInstance.builder("orders")
        .address("10.0.0.5").port(8080).payload(Map.of("zone", "a")).build());   // ephemeral node

    ServiceView orders = registry.watch("orders");          // local cache, one watch
    ServiceInstance target = orders.pick(PickStrategy.ROUND_ROBIN)   // or RANDOM, STICKY
        .orElseThrow(() -> new IllegalStateException("no live orders instance"));
    orders.addListener(instances -> log.info("orders now: {}", instances));
    // [/registry]
  }

  void health(ServiceRegistry registry, ServiceInstance instance, ServiceView orders) {
    // [health]
    Registration me = registry.register(instance, RegisterOptions.defaults()
        .withHealthCheck(HealthCheck.http(URI.create("http://127.0.0.1:8080/health"), Duration.ofSeconds(2)),
            Duration.ofSeconds(5)));          // or HealthCheck.tcp(host, port, timeout), HealthCheck.of(supplier)
    ServiceInstance target = orders.pickWith(PickOptions.of(PickStrategy.WEIGHTED_RANDOM)  // payload "weight"
        .preferringZone("eu-1")                // payload "zone"; other zones when it has none left
        .withProtectionThreshold(0.5))         // under half up: pick among all, as Nacos does
        .orElseThrow();
    registry.register(instance, RegisterOptions.defaults().withLayout(InstanceLayout.NAMING)); // /<base>/<svc>/<ip:port>
    // [/health]
  }

  void lockRegistry() throws Throwable {  // what executeLocked declares for any task
    // [lock-registry]
    LockRegistry locks = new BatonLockRegistry(baton::mutex, LockKeyLayout.zookeeper("/locks"));
    locks.executeLocked("order-42", Duration.ofSeconds(5), () -> ship(order));
    // [/lock-registry]
  }

  void distributedLock(BatonLockRegistry registry) {
    // [distributed-lock]
    DistributedLock lock = registry.obtain("nightly-export");
    lock.lock(Duration.ofMinutes(10));              // released by the registry after 10 minutes at most
    try { export(); registry.renewLock("nightly-export", Duration.ofMinutes(10)); export(); }
    finally { lock.unlock(); }                      // LockExpiredException if the 10 minutes ran out
    // [/distributed-lock]
  }

  void metrics(ServiceRegistry registry) {
    // [metrics]
    Baton baton = Baton.builder().connectString("zk1:2181")
        .observer(new MicrometerObserver(meterRegistry, PathTags.defaults()))   // any BatonObserver
        .build();
    ConfigMetrics.bind(config, "/config", meterRegistry);           // config updates
    RegistryMetrics.bindServices(registry, meterRegistry);          // registry changes
    // [/metrics]
  }

  void tracing() {
    // [tracing]
    Baton baton = Baton.builder().connectString("zk1:2181")
        .observer(new TracingObserver(openTelemetry))          // any BatonObserver
        .build();
    RedisBaton redis = RedisBaton.builder().uri("redis://cache:6379")
        .observer(new TracingObserver(openTelemetry)).build();
    ConfigTracing.bind(config, "/config", openTelemetry);      // a span per config change
    // [/tracing]
  }
}
