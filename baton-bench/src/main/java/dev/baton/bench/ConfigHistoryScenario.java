package dev.baton.bench;

import dev.baton.Baton;
import dev.baton.bench.lock.Role;
import dev.baton.config.ConfigCenter;
import dev.baton.config.ConfigOptions;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * {@code config-history-write}: what a config key's history costs per write. One session writes
 * one key in a loop, each write waiting for its reply; the figure is the p50 latency of a write.
 * Baton's config center keeping history ({@code withHistory(10)}: the write and its revision in
 * one transaction, then a trim of the old revisions, pipelined) beside Curator's plain {@code
 * setData} (the peer, which keeps no history) and Baton without history (reference). Lower is
 * better, so the ratio is Curator / Baton.
 */
final class ConfigHistoryScenario implements Scenario {
  static final String NAME = "config-history-write";
  private static final String KEY = "feature/flag";

  private enum Kind { BATON_HISTORY, CURATOR, BATON_PLAIN }

  private record Side(String id, String label, Role role, Kind kind) {}

  private static final List<Side> SIDES = List.of(
      new Side("baton-history", "Baton ConfigCenter.set with history (last 10 kept)", Role.BATON, Kind.BATON_HISTORY),
      new Side("curator", "Curator setData (no history)", Role.CURATOR, Kind.CURATOR),
      new Side("baton-plain", "reference: Baton ConfigCenter.set without history", Role.REFERENCE, Kind.BATON_PLAIN));

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public ScenarioResult run(BenchContext context) throws Exception {
    BenchOptions options = context.options();
    ScenarioResult result = new ScenarioResult(NAME, "us", false,
        "1 session writes one config key in a loop; p50 latency of a write (Baton: with its history revision)");
    List<Series> series = new ArrayList<>();
    for (Side side : SIDES) {
      series.add(result.add(new Series(side.label(), side.role(), options.rounds())));
    }
    if (!options.warmup().isZero()) {
      for (Side side : SIDES) {
        writes(side, context, context.freshPath(NAME, side.id(), "warmup"), options.warmup());
      }
    }
    RotatingRounds.run(context, NAME, SIDES, SIDES.stream().map(Side::id).toList(), series, "us (p50)",
        (side, round) -> writes(side, context, context.freshPath(NAME, side.id(), "r" + round), options.window()));
    return result;
  }

  /** Writes for {@code window}; returns the p50 latency in microseconds. */
  private static double writes(Side side, BenchContext context, String path, Duration window) throws Exception {
    LongSamples samples = new LongSamples();
    long end = System.nanoTime() + window.toNanos();
    if (side.kind() == Kind.CURATOR) {
      try (CuratorFramework curator = CuratorFrameworkFactory.newClient(context.connectString(), 30_000, 15_000,
          new ExponentialBackoffRetry(100, 3))) {
        curator.start();
        curator.blockUntilConnected(15, TimeUnit.SECONDS);
        String keyPath = path + "/" + KEY;
        curator.create().creatingParentsIfNeeded().forPath(keyPath, "0".getBytes(StandardCharsets.UTF_8));
        for (long i = 1; samples.size() < 20 || System.nanoTime() - end < 0; i++) {
          long start = System.nanoTime();
          curator.setData().forPath(keyPath, Long.toString(i).getBytes(StandardCharsets.UTF_8));
          samples.add(System.nanoTime() - start);
        }
      }
    } else {
      try (Baton baton = Baton.builder().connectString(context.connectString()).sessionTimeout(Duration.ofSeconds(30))
          .connectionTimeout(Duration.ofSeconds(15)).build();
          ConfigCenter config = ConfigCenter.open(baton, path, side.kind() == Kind.BATON_HISTORY
              ? ConfigOptions.defaults().withHistory(10) : ConfigOptions.defaults())) {
        config.set(KEY, "0");
        for (long i = 1; samples.size() < 20 || System.nanoTime() - end < 0; i++) {
          long start = System.nanoTime();
          config.set(KEY, Long.toString(i));
          samples.add(System.nanoTime() - start);
        }
      }
    }
    long[] sorted = LongSamples.sortedUnion(List.of(samples));
    return LongSamples.nearestRank(sorted, 0.50) / 1e3;
  }
}
