package dev.baton.bench.jmh;

import dev.baton.Baton;
import dev.baton.embedded.EmbeddedZooKeeper;
import dev.baton.lock.Lease;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
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
 * What asking a held lease about itself costs: {@link Lease#isValid()}, {@link
 * Lease#validUntil()} and {@link Lease#fencingToken()} on a lease held against an embedded server.
 * A worker that checks its lease before every write to the protected resource pays this each
 * time, so it must stay far below a network round trip (no request is sent).
 *
 * <pre>
 * ./mvnw -q -pl baton-bench -am package -DskipTests
 * java -cp baton-bench/target/baton-bench.jar org.openjdk.jmh.Main LeaseBookkeeping
 * </pre>
 *
 * Runs for about half a minute; not part of {@code ./mvnw verify}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
public class LeaseBookkeepingBenchmark {
  private EmbeddedZooKeeper server;
  private Baton baton;
  private Lease lease;

  @Setup(Level.Trial)
  public void holdLease() {
    server = EmbeddedZooKeeper.start();
    baton = Baton.connect(server.connectString());
    lease = baton.mutex("/jmh/lease").acquire();
  }

  @TearDown(Level.Trial)
  public void release() {
    lease.close();
    baton.close();
    server.close();
  }

  @Benchmark
  public boolean isValid() {
    return lease.isValid();
  }

  @Benchmark
  public Instant validUntil() {
    return lease.validUntil();
  }

  @Benchmark
  public long fencingToken() {
    return lease.fencingToken();
  }
}
