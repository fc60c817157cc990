package dev.baton.examples;

import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import dev.baton.redis.RedisBaton;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Scenario 9, the Redis lock: two processes (a client each) take turns on one Redis lock. While
 * one holds it the other cannot take it, and every holder's fencing token is larger than the one
 * before, which is what the Redis recipe they compare against lacks.
 *
 * <p>Run: {@code java dev.baton.examples.RedisLockExample [redis://host:port]}.
 */
public final class RedisLockExample {
  /** The tokens of successive holders, and whether the other client was kept out each time. */
  public record Result(List<Long> tokens, boolean othersKeptOut) {}

  public static void main(String[] args) {
    DevServers.withRedis(args, uri -> System.out.println(run(uri, 6)));
  }

  public static Result run(String uri, int turns) {
    try (RedisBaton first = RedisBaton.connect(uri); RedisBaton second = RedisBaton.connect(uri)) {
      List<Mutex> sides = List.of(first.mutex("orders:lock"), second.mutex("orders:lock"));
      List<Long> tokens = new ArrayList<>();
      boolean keptOut = true;
      for (int turn = 0; turn < turns; turn++) {
        Mutex mine = sides.get(turn % 2);
        Mutex theirs = sides.get((turn + 1) % 2);
        try (Lease lease = mine.acquire(Duration.ofSeconds(10))) {
          tokens.add(lease.fencingToken());
          // Another thread: the mutex is reentrant per thread, and the other client is another process.
          Optional<Lease> intruder = java.util.concurrent.CompletableFuture
              .supplyAsync(() -> theirs.tryAcquire(Duration.ZERO)).join();
          keptOut &= intruder.isEmpty();
          intruder.ifPresent(Lease::close);
        }
      }
      return new Result(tokens, keptOut);
    }
  }

  private RedisLockExample() {}
}
