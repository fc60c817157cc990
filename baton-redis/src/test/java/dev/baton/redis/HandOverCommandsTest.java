package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * How many Redis commands one hand-over of a contended mutex costs, with 2, 10, 100 and 1000 waiters
 * queued across several clients: a release must wake the next in line only (its client is named in
 * the notice), not every waiter, so the cost per hand-over does not grow with the queue.
 *
 * <p>Counted on the server ({@code INFO commandstats} deltas, every client's commands and the
 * commands scripts call inside), from the first release to the last waiter's release; the test's own
 * {@code INFO} and its polls are taken out. Leases and waiter leases are long (60 s, 120 s), so no
 * renewal or periodic re-check falls in the window: what is counted is the hand-over itself.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class HandOverCommandsTest extends RedisTestSupport {
  private static final int CLIENTS = 4;
  private static final int[] WAITERS = {2, 10, 100, 1000};
  /**
   * Measured: 17 server commands a hand-over at 100 and 1000 waiters (2 scripts sent by the clients,
   * an acquire and a release, and 15 commands they call inside), up to 20 at 2 or 10 waiters where the
   * first holder's release, or one waiter's early retry, weighs on few hand-overs.
   */
  private static final double BOUND_PER_HAND_OVER = 25;
  /**
   * The scripts the clients may send for n hand-overs: each waiter's acquire and release, the first
   * holder's release, and three to spare for a waiter that tried once early (no herd: a herd costs
   * one script per waiter woken, per hand-over).
   */
  private static long scriptsBound(int waiters) {
    return 2L * waiters + 1 + 3;
  }
  private static final Pattern STAT = Pattern.compile("cmdstat_([^:]+):calls=(\\d+)");

  @Test
  void commandsPerHandOver_stayBounded_fromTwoToAThousandWaiters() throws Exception {
    List<RedisBaton> clients = new ArrayList<>();
    for (int c = 0; c < CLIENTS; c++) {
      clients.add(client(RedisBaton.builder().uri(redis.uri()).leaseTtl(Duration.ofSeconds(60))
          .waiterLease(Duration.ofSeconds(120))));
    }
    ExecutorService releasers = Executors.newFixedThreadPool(2);
    Map<Integer, Double> perHandOver = new LinkedHashMap<>();
    Map<Integer, Long> scripts = new LinkedHashMap<>();
    try {
      // Unmeasured: loads the scripts (a first EVALSHA gets NOSCRIPT and sends EVAL) and warms the clients.
      measure(clients, "handover-warm-up", 2, releasers);
      for (int waiters : WAITERS) {
        Measured m = measure(clients, "handover-" + waiters, waiters, releasers);
        perHandOver.put(waiters, m.perHandOver());
        scripts.put(waiters, m.scripts());
        System.out.printf("hand-over commands: %4d waiters on %d clients: %.2f commands per hand-over"
            + " (%.2f sent by clients as scripts), by command %s%n",
            waiters, CLIENTS, m.perHandOver(), m.scriptsPerHandOver(), m.byCommand());
      }
    } finally {
      releasers.shutdownNow();
    }
    assertThat(perHandOver.values()).as("commands per hand-over, by waiter count %s", perHandOver)
        .allSatisfy(n -> assertThat(n).isLessThan(BOUND_PER_HAND_OVER));
    scripts.forEach((waiters, sent) -> assertThat(sent).as("scripts sent for %d hand-overs", waiters)
        .isLessThanOrEqualTo(scriptsBound(waiters)));
    double fewest = perHandOver.values().stream().mapToDouble(Double::doubleValue).min().orElseThrow();
    assertThat(perHandOver.get(1000)).as("no herd: 1000 waiters cost per hand-over what 2 do, %s", perHandOver)
        .isLessThan(fewest * 1.5 + 1);
  }

  private record Measured(long handOvers, Map<String, Long> byCommand) {
    double perHandOver() {
      return byCommand.values().stream().mapToLong(Long::longValue).sum() / (double) handOvers;
    }

    long scripts() {
      return byCommand.getOrDefault("evalsha", 0L) + byCommand.getOrDefault("eval", 0L);
    }

    double scriptsPerHandOver() {
      return scripts() / (double) handOvers;
    }
  }

  private Measured measure(List<RedisBaton> clients, String name, int waiters, ExecutorService releasers)
      throws Exception {
    Lease held = clients.get(0).mutex(name).acquire(Duration.ofSeconds(10));
    List<CompletableFuture<Void>> served = new ArrayList<>();
    for (int w = 0; w < waiters; w++) {
      // A mutex object per waiter: with none of them sharing a local queue, every one queues in Redis.
      Mutex mutex = clients.get(w % CLIENTS).mutex(name);
      served.add(mutex.acquireAsync().thenAcceptAsync(Lease::close, releasers));
    }
    Mutex view = clients.get(0).mutex(name);
    await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(100))
        .until(() -> view.waiters().size() == waiters);
    Map<String, Long> before = stats();
    held.close();
    CompletableFuture.allOf(served.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
    long polls = 0;
    while (true) { // the last release is sent in the background: wait for the key to go
      polls++;
      if (raw().exists(name) == 0) {
        break;
      }
      Thread.onSpinWait();
    }
    Map<String, Long> after = stats();
    Map<String, Long> delta = new TreeMap<>();
    after.forEach((command, calls) -> {
      long d = calls - before.getOrDefault(command, 0L);
      if (d > 0 && !command.equals("info")) {
        delta.put(command, d);
      }
    });
    long ownPolls = polls;
    delta.computeIfPresent("exists", (k, v) -> v - ownPolls > 0 ? v - ownPolls : null);
    return new Measured(waiters, delta);
  }

  private static Map<String, Long> stats() {
    Map<String, Long> calls = new TreeMap<>();
    Matcher m = STAT.matcher(raw().info("commandstats"));
    while (m.find()) {
      calls.put(m.group(1), Long.parseLong(m.group(2)));
    }
    return calls;
  }
}
