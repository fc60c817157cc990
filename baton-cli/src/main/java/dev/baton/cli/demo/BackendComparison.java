package dev.baton.cli.demo;

import dev.baton.Baton;
import dev.baton.cli.BatonCommand;
import dev.baton.cli.command.DurationConverter;
import dev.baton.embedded.EmbeddedPostgreSql;
import dev.baton.embedded.EmbeddedRedis;
import dev.baton.embedded.EmbeddedZooKeeper;
import dev.baton.jdbc.JdbcBaton;
import dev.baton.redis.RedisBaton;
import dev.baton.redis.RedisMutexOptions;
import dev.baton.testkit.FaultProxy;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code baton demo --compare}: the same flash sale on ZooKeeper, Redis and PostgreSQL, then the
 * stalled holder on all three ({@link StalledHolderCase}) and the failed server on ZooKeeper and
 * Redis ({@link FailoverCase}; a single PostgreSQL has no failover to show), ending with one table.
 * It reports what it saw and asserts nothing: the point is to see the difference, not to pass.
 * Every server is embedded and on loopback, started and stopped here.
 */
public final class BackendComparison {
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(15);
  // Short leases, so the stalled holder's case takes seconds; the same on both backends.
  private static final Duration SHORT_LEASE = Duration.ofMillis(1500);

  private final FlashSale.Settings settings;
  private final PrintWriter out;

  BackendComparison(FlashSale.Settings settings, PrintWriter out) {
    this.settings = settings;
    this.out = out;
  }

  int run() {
    List<ComparisonRow> rows = new ArrayList<>();
    out.printf("Comparing ZooKeeper, Redis and PostgreSQL: the flash sale (%s items, %d nodes x %d buyers), then two failure cases%n",
        DemoReport.number(settings.items()), settings.nodes(), settings.buyersPerNode());
    out.flush();
    try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.builder().tickTime(Duration.ofMillis(100)).start();
         EmbeddedRedis redis = EmbeddedRedis.start();
         EmbeddedPostgreSql pg = EmbeddedPostgreSql.start()) {
      step("flash sale on ZooKeeper");
      rows.add(ComparisonRow.sale("ZooKeeper", new FlashSale(settings,
          new DemoBackend.ZooKeeper(zk.connectString(), CONNECT_TIMEOUT)).run()));
      step("flash sale on Redis");
      rows.add(ComparisonRow.sale("Redis", new FlashSale(settings,
          new DemoBackend.Redis(redis.uri(), CONNECT_TIMEOUT, RedisMutexOptions.defaults())).run()));
      step("flash sale on PostgreSQL");
      rows.add(ComparisonRow.sale("PostgreSQL", new FlashSale(settings,
          new DemoBackend.Postgres(pg.url("postgres"), null, null, CONNECT_TIMEOUT)).run()));
      step("a holder stalls past its lease, on ZooKeeper");
      rows.add(stalledOnZooKeeper(zk));
      step("a holder stalls past its lease, on Redis");
      rows.add(stalledOnRedis(redis));
      step("a holder stalls past its lease, on PostgreSQL");
      rows.add(stalledOnPostgres(pg));
    }
    step("the ensemble's leader fails while A holds the lock, on ZooKeeper");
    rows.add(FailoverCase.zooKeeper());
    step("the Redis master fails before its replica got A's lock");
    rows.add(FailoverCase.redis(0));
    step("the same, with WAIT 1 after each grant");
    rows.add(FailoverCase.redis(1));
    out.println();
    print(rows);
    out.flush();
    return BatonCommand.OK;
  }

  private void step(String what) {
    out.println("- " + what + " ...");
    out.flush();
  }

  private static ComparisonRow stalledOnZooKeeper(EmbeddedZooKeeper zk) {
    try (FaultProxy proxy = FaultProxy.start(new InetSocketAddress("127.0.0.1", zk.port()));
         Baton stalled = Baton.builder().connectString(proxy.connectString()).sessionTimeout(SHORT_LEASE).build();
         Baton other = Baton.builder().connectString(zk.connectString()).build();
         StockClient stock = StockClient.connect(zk.connectString(), CONNECT_TIMEOUT)) {
      String lock = "/baton-compare/stall/lock";
      return StalledHolderCase.run("ZooKeeper (session " + DurationConverter.seconds(SHORT_LEASE) + ")",
          stalled.mutex(lock), other.mutex(lock), proxy, stock, "/baton-compare/stall/stock");
    }
  }

  private static ComparisonRow stalledOnRedis(EmbeddedRedis redis) {
    try (FaultProxy proxy = FaultProxy.start(new InetSocketAddress(redis.host(), redis.port()));
         RedisBaton stalled = RedisBaton.builder().uri("redis://" + proxy.connectString()).leaseTtl(SHORT_LEASE)
             .renewEvery(SHORT_LEASE.dividedBy(3)).commandTimeout(Duration.ofMillis(400)).build();
         RedisBaton other = RedisBaton.connect(redis.uri());
         StockStore stock = RedisStock.connect(redis.uri(), CONNECT_TIMEOUT)) {
      String lock = "baton-compare:stall:lock";
      return StalledHolderCase.run("Redis (TTL " + DurationConverter.seconds(SHORT_LEASE) + ")",
          stalled.mutex(lock), other.mutex(lock), proxy, stock, "baton-compare:stall:stock");
    }
  }

  /**
   * A's client reaches the database through the proxy, with the short lease; B and the stock
   * directly. A's lease is a row whose expiry the database judges; the stock's UPDATE checks the
   * token, in the same database.
   */
  static ComparisonRow stalledOnPostgres(EmbeddedPostgreSql pg) {
    try (FaultProxy proxy = FaultProxy.start(new InetSocketAddress(pg.host(), pg.port()));
         // socketTimeout: a statement A sent into the silence gives up, as a real pause's would on waking.
         JdbcBaton stalled = JdbcBaton.builder()
             .url("jdbc:postgresql://" + proxy.connectString() + "/postgres?user=postgres&socketTimeout=5")
             .leaseTtl(SHORT_LEASE).createSchema(true).build();
         JdbcBaton other = JdbcBaton.builder().url(pg.url("postgres")).createSchema(true).build();
         StockStore stock = PostgresStock.connect(pg.url("postgres"), null, null, CONNECT_TIMEOUT, 2)) {
      String lock = "baton-compare/stall/lock";
      return StalledHolderCase.run("PostgreSQL (TTL " + DurationConverter.seconds(SHORT_LEASE) + ")",
          stalled.mutex(lock), other.mutex(lock), proxy, stock, "baton-compare/stall/stock");
    }
  }

  /** The table, then each row's note under its number. */
  private void print(List<ComparisonRow> rows) {
    String format = "%-3s %-34s %-34s %9s %8s %8s %8s %13s%n";
    out.printf(format, "#", "scenario", "backend", "sales/s", "p50 ms", "p99 ms", "overlaps", "stale refused");
    for (int i = 0; i < rows.size(); i++) {
      ComparisonRow row = rows.get(i);
      out.printf(format, i + 1, row.scenario(), row.backend(), figure(row.salesPerSecond(), "%.0f"),
          figure(row.p50Millis(), "%.1f"), figure(row.p99Millis(), "%.1f"), row.overlaps(), row.staleRefused());
    }
    out.println();
    for (int i = 0; i < rows.size(); i++) {
      out.printf("%d. %s%n", i + 1, rows.get(i).note());
    }
    out.println();
    out.println("overlaps: a second holder was granted the lock while the first had neither released it nor"
        + " run out of its lease (its validUntil).");
    out.println("stale refused: writes with an older fencing token that the stock refused.");
  }

  private static String figure(double value, String format) {
    return value < 0 ? "-" : String.format(Locale.US, format, value);
  }
}
