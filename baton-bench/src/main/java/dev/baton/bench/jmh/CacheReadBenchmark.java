package dev.baton.bench.jmh;

import dev.baton.Baton;
import dev.baton.config.ConfigCenter;
import dev.baton.discovery.PickStrategy;
import dev.baton.discovery.ServiceInstance;
import dev.baton.discovery.ServiceRegistry;
import dev.baton.discovery.ServiceView;
import dev.baton.embedded.EmbeddedZooKeeper;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Reads served from a client's cache, with no request: a config value from a {@link
 * ConfigCenter} (as a string and as a number) and an instance picked from a {@link ServiceView}
 * of three, beside Curator's {@code CuratorCache.get} of the same config node, its bytes made a
 * string as Baton's {@code get} returns one. Code on a request path reads config this way on
 * every request, so a read must cost a map lookup, not a round trip.
 *
 * <pre>
 * ./mvnw -q -pl baton-bench -am package -DskipTests
 * java -cp baton-bench/target/baton-bench.jar org.openjdk.jmh.Main CacheRead
 * </pre>
 *
 * Runs for about a minute; not part of {@code ./mvnw verify}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
public class CacheReadBenchmark {
  private static final String PREFIX = "/jmh/config";
  private static final Duration SETUP_LIMIT = Duration.ofSeconds(30);

  private EmbeddedZooKeeper server;
  private Baton writer;
  private Baton reader;
  private ConfigCenter config;
  private ServiceRegistry registry;
  private ServiceView view;
  private CuratorFramework curator;
  private CuratorCache curatorCache;

  @Setup(Level.Trial)
  public void load() throws Exception {
    server = EmbeddedZooKeeper.start();
    writer = Baton.connect(server.connectString());
    ConfigCenter written = ConfigCenter.open(writer, PREFIX);
    written.set("feature", "on");
    written.set("limit", "100");
    ServiceRegistry services = ServiceRegistry.open(writer, "/jmh/services");
    for (int i = 0; i < 3; i++) {
      services.register(ServiceInstance.builder("api").id("api-" + i).address("10.0.0." + i).port(8080).build());
    }

    // The reads come from another client, whose caches learned the values from the server.
    reader = Baton.connect(server.connectString());
    config = ConfigCenter.open(reader, PREFIX);
    registry = ServiceRegistry.open(reader, "/jmh/services");
    view = registry.watch("api");
    curator = CuratorFrameworkFactory.newClient(server.connectString(), new ExponentialBackoffRetry(100, 3));
    curator.start();
    curatorCache = CuratorCache.build(curator, PREFIX);
    curatorCache.start();
    awaitLoaded(() -> config.get("limit").isPresent()
        && view.instances().size() == 3
        && curatorCache.get(PREFIX + "/feature").isPresent(), "the caches to load");
  }

  private static void awaitLoaded(BooleanSupplier loaded, String what) throws InterruptedException {
    long deadline = System.nanoTime() + SETUP_LIMIT.toNanos();
    while (!loaded.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("gave up waiting " + SETUP_LIMIT.toSeconds() + " s for " + what);
      }
      Thread.sleep(10);
    }
  }

  @TearDown(Level.Trial)
  public void close() {
    curatorCache.close();
    curator.close();
    reader.close();
    writer.close();
    server.close();
  }

  @Benchmark
  public Optional<String> batonConfigGet() {
    return config.get("feature");
  }

  @Benchmark
  public int batonConfigGetInt() {
    return config.getInt("limit", 0);
  }

  @Benchmark
  public Optional<ServiceInstance> batonServicePick() {
    return view.pick(PickStrategy.ROUND_ROBIN);
  }

  @Benchmark
  public Optional<String> curatorCacheGet() {
    Optional<ChildData> node = curatorCache.get(PREFIX + "/feature");
    return node.map(data -> new String(data.getData(), StandardCharsets.UTF_8));
  }
}
