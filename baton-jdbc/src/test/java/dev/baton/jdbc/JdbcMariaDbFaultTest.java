package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.lock.Lease;
import dev.baton.lock.LeaseLostException;
import dev.baton.lock.LeaseState;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Faults on a real MariaDB: the database stalls writes while a lease is held; connections are killed. */
class JdbcMariaDbFaultTest {
  private static MariaDbServer server;

  @BeforeAll
  static void startServer() {
    assumeTrue(MariaDbServer.missing().isEmpty(), () -> MariaDbServer.missing().orElse(""));
    server = MariaDbServer.shared();
  }

  @Test
  void aStallThatEndsInTimeMakesTheLeaseSuspectThenHeldAgain() throws Exception {
    String db = server.newDatabase();
    try (JdbcBaton a = JdbcBaton.builder().url(server.url(db)).createSchema(true)
        .leaseTtl(Duration.ofSeconds(8)).renewEvery(Duration.ofMillis(500)).build()) {
      List<LeaseState> states = new CopyOnWriteArrayList<>();
      Lease lease = a.mutex("stalled").acquire(Duration.ofSeconds(5));
      lease.addListener((l, s) -> states.add(s));
      try (Connection admin = DriverManager.getConnection(server.url(db)); Statement s = admin.createStatement()) {
        s.execute("FLUSH TABLES WITH READ LOCK"); // every write waits: renewals hang, then time out
        await().atMost(Duration.ofSeconds(10)).until(() -> states.contains(LeaseState.SUSPECT));
        assertThat(lease.isValid()).isFalse();
        s.execute("UNLOCK TABLES");
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> lease.state() == LeaseState.HELD);
      assertThat(states).containsSubsequence(LeaseState.SUSPECT, LeaseState.HELD).doesNotContain(LeaseState.LOST);
      lease.close();
    }
  }

  @Test
  void connectionsKilledWhileTheRowPassesToAnotherMakeTheLeaseLost() throws Exception {
    String db = server.newDatabase();
    try (JdbcBaton a = JdbcBaton.builder().url(server.url(db)).createSchema(true)
        .leaseTtl(Duration.ofSeconds(8)).renewEvery(Duration.ofMillis(500)).build()) {
      Lease lease = a.mutex("taken").acquire(Duration.ofSeconds(5));
      try (Connection admin = DriverManager.getConnection(server.url(db)); Statement s = admin.createStatement()) {
        s.execute("UPDATE baton_lock SET owner = 'intruder', token = token + 1 WHERE name = 'taken'");
        s.execute("SELECT 1");
        try (var rs = s.executeQuery("SELECT id FROM information_schema.processlist WHERE db = '" + db
            + "' AND id <> CONNECTION_ID()")) {
          List<Long> ids = new java.util.ArrayList<>();
          while (rs.next()) {
            ids.add(rs.getLong(1));
          }
          for (long id : ids) {
            s.execute("KILL CONNECTION " + id);
          }
        }
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> lease.state() == LeaseState.LOST);
      assertThatThrownBy(() -> a.guarded(lease, c -> 1)).isInstanceOf(LeaseLostException.class);
    }
  }

  @Test
  void holderPausedPastExpiryIsSupersededWithALargerTokenAndItsWritesAreRefused() throws Exception {
    String db = server.newDatabase();
    server.run(db, "CREATE TABLE stock (id INT PRIMARY KEY, qty INT NOT NULL, fence BIGINT NOT NULL DEFAULT 0)",
        "INSERT INTO stock VALUES (42, 100, 0)");
    GateDataSource gate = new GateDataSource(new org.mariadb.jdbc.MariaDbDataSource(server.url(db)));
    try (JdbcBaton paused = JdbcBaton.builder().dataSource(gate).createSchema(true)
            .leaseTtl(Duration.ofSeconds(2)).build();
        JdbcBaton next = JdbcBaton.builder().url(server.url(db)).leaseTtl(Duration.ofSeconds(2)).build()) {
      Lease old = paused.mutex("sku-42").acquire(Duration.ofSeconds(5));
      java.util.concurrent.atomic.AtomicLong lostAt = new java.util.concurrent.atomic.AtomicLong();
      old.addListener((l, st) -> {
        if (st == LeaseState.LOST) {
          lostAt.compareAndSet(0, System.nanoTime());
        }
      });
      assertThat(decrement(paused, old)).isEqualTo(1);

      gate.shut(); // the holder stalls: no renewal reaches the database
      Lease newer = next.mutex("sku-42").acquire(Duration.ofSeconds(10));
      long grantedAt = System.nanoTime();
      assertThat(newer.fencingToken()).isGreaterThan(old.fencingToken());
      await().atMost(Duration.ofSeconds(5)).until(() -> lostAt.get() != 0);
      assertThat(lostAt.get()).as("the stalled holder hears LOST before the next grant").isLessThan(grantedAt);
      assertThat(decrement(next, newer)).isEqualTo(1);

      gate.open();
      assertThatThrownBy(() -> decrement(paused, old)).isInstanceOf(LeaseLostException.class);
      try (Connection c = gate.getConnection(); java.sql.PreparedStatement ps = c.prepareStatement(
          "UPDATE stock SET qty = qty - 1, fence = ? WHERE id = 42 AND fence <= ?")) {
        ps.setLong(1, old.fencingToken());
        ps.setLong(2, old.fencingToken());
        assertThat(ps.executeUpdate()).as("the column fence refuses the stale token too").isZero();
      }
      newer.close();
    }
  }

  private static int decrement(JdbcBaton baton, Lease lease) {
    return baton.guarded(lease, c -> {
      try (java.sql.PreparedStatement ps = c.prepareStatement(
          "UPDATE stock SET qty = qty - 1, fence = ? WHERE id = 42 AND fence <= ?")) {
        ps.setLong(1, lease.fencingToken());
        ps.setLong(2, lease.fencingToken());
        return ps.executeUpdate();
      }
    });
  }
}
