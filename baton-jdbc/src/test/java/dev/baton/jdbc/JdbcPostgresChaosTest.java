package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.ConnectionException;
import dev.baton.lock.AcquireTimeoutException;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseLostException;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Three clients, two threads each, contend for one lock while every connection of theirs is killed
 * (pg_terminate_backend) every 150 ms. Each holder makes a guarded write that also checks, in the
 * database, that no write with a larger token came before it: a guarded write that lands after a
 * newer holder's would be a broken lock. Writes may be refused (LeaseLostException) or fail with the
 * connection, never land out of order; and the lock keeps being handed over.
 */
class JdbcPostgresChaosTest {
  private static final PostgresServer server = PostgresServer.shared();

  @Test
  void guardedWritesNeverLandOutOfTokenOrderWhileConnectionsAreKilled() throws Exception {
    String db = server.newDatabase();
    JdbcBaton.builder().url(server.url(db, "")).createSchema(true).build().close();
    server.admin("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'chaos') THEN"
        + " CREATE ROLE chaos LOGIN PASSWORD 'chaos'; END IF; END $$");
    server.run(db, "CREATE TABLE ledger (id INT PRIMARY KEY, writes INT NOT NULL, last_token BIGINT NOT NULL)",
        "INSERT INTO ledger VALUES (1, 0, 0)", "GRANT SELECT, INSERT, UPDATE ON baton_lock, ledger TO chaos");
    String url = "jdbc:postgresql://127.0.0.1:" + server.port() + "/" + db;
    List<JdbcBaton> clients = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      clients.add(JdbcBaton.builder().url(url).user("chaos").password("chaos")
          .leaseTtl(Duration.ofSeconds(2)).build());
    }
    AtomicInteger outOfOrder = new AtomicInteger();
    AtomicInteger landed = new AtomicInteger();
    AtomicInteger refused = new AtomicInteger();
    ScheduledExecutorService killer = Executors.newSingleThreadScheduledExecutor();
    ExecutorService workers = Executors.newFixedThreadPool(6);
    try {
      killer.scheduleAtFixedRate(() -> {
        try {
          server.admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'chaos'");
        } catch (RuntimeException ignored) {
          // the next round kills them
        }
      }, 150, 150, TimeUnit.MILLISECONDS);
      List<Future<?>> runs = new ArrayList<>();
      for (int t = 0; t < 6; t++) {
        JdbcBaton c = clients.get(t % 3);
        runs.add(workers.submit(() -> {
          for (int i = 0; i < 8; i++) {
            Lease lease;
            try {
              lease = c.mutex("ledger").acquire(Duration.ofSeconds(20));
            } catch (AcquireTimeoutException | ConnectionException e) {
              continue;
            }
            try (lease) {
              int ok = c.guarded(lease, conn -> {
                try (PreparedStatement ps = conn.prepareStatement(
                    "UPDATE ledger SET writes = writes + 1, last_token = ? WHERE id = 1 AND last_token < ?")) {
                  ps.setLong(1, lease.fencingToken());
                  ps.setLong(2, lease.fencingToken());
                  return ps.executeUpdate();
                }
              });
              if (ok == 1) {
                landed.incrementAndGet();
              } else {
                outOfOrder.incrementAndGet();
              }
            } catch (LeaseLostException | ConnectionException e) {
              refused.incrementAndGet();
            }
          }
          return null;
        }));
      }
      for (Future<?> f : runs) {
        f.get(180, TimeUnit.SECONDS);
      }
    } finally {
      killer.shutdownNow();
      workers.shutdownNow();
      clients.forEach(JdbcBaton::close);
    }
    System.out.printf("chaos: %d guarded writes landed, %d refused or cut, %d out of order%n", landed.get(),
        refused.get(), outOfOrder.get());
    assertThat(outOfOrder).hasValue(0);
    assertThat(landed.get()).isPositive();
  }
}
