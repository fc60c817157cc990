package dev.baton.bench.jmh;

import dev.baton.Baton;
import dev.baton.embedded.EmbeddedZooKeeper;
import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import dev.baton.lock.MutexOptions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
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
 * The in-process parts of the lock modes, against an embedded server that they do not talk to:
 * an acquire+release of a cached lock (no request at all), and a lock handed back and forth
 * between two threads of one client (local hand-over with caching, so no request is sent either;
 * a node serves 4,096 holders and is then replaced, which costs one round trip in 4,096).
 *
 * <pre>
 * ./mvnw -q -pl baton-bench -am package -DskipTests
 * java -cp baton-bench/target/baton-bench.jar org.openjdk.jmh.Main LocalLock
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
public class LocalLockBenchmark {
  private EmbeddedZooKeeper server;
  private Baton baton;
  private Mutex cached;
  private Mutex handedOver;

  @Setup(Level.Trial)
  public void connect() {
    server = EmbeddedZooKeeper.start();
    baton = Baton.connect(server.connectString());
    cached = baton.mutex("/jmh/cached", MutexOptions.defaults().withCaching(Duration.ofMinutes(10)));
    cached.acquire().close(); // from here on the node is kept
    // Caching too: without it a release with the other thread not yet waiting gives the node up.
    handedOver = baton.mutex("/jmh/handed-over",
        MutexOptions.defaults().withLocalHandOver(4000).withCaching(Duration.ofMinutes(10)));
  }

  @TearDown(Level.Trial)
  public void close() {
    baton.close();
    server.close();
  }

  @Benchmark
  public long cachedAcquireRelease() {
    try (Lease lease = cached.acquire()) {
      return lease.fencingToken();
    }
  }

  @Benchmark
  @Group("handOver")
  @GroupThreads(2)
  public long localHandOverBetweenTwoThreads() {
    try (Lease lease = handedOver.acquire()) {
      return lease.fencingToken();
    }
  }
}
