package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.ConnectionException;
import dev.baton.ConnectionState;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseLostException;
import dev.baton.lock.LeaseState;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Faults on a real PostgreSQL: unreachable, connections killed, a holder paused past its expiry, a restart, no rights. */
class JdbcPostgresFaultTest {
  private static final PostgresServer server = PostgresServer.shared();
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  private JdbcBaton track(JdbcBaton b) {
    toClose.add(b);
    return b;
  }

  @Test
  void unreachableDatabaseAtStartIsNamedWithinTheTimeout() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    String url = "jdbc:postgresql://127.0.0.1:" + port + "/app";
    assertThatThrownBy(() -> JdbcBaton.builder().url(url + "?user=app&password=secret")
        .connectTimeout(Duration.ofSeconds(1)).build())
        .isInstanceOf(ConnectionException.class)
        .hasMessageContaining(url)
        .hasMessageContaining("within 1 s")
        .hasMessageNotContaining("secret");
  }

  @Test
  void connectionsKilledWhileHeldMakeTheLeaseSuspectThenHeldAgain() {
    String db = server.newDatabase();
    JdbcBaton a = track(JdbcBaton.builder().url(holderUrl(db)).user("holder").password("holder")
        .leaseTtl(Duration.ofSeconds(8)).renewEvery(Duration.ofMillis(500)).build());
    List<LeaseState> states = new CopyOnWriteArrayList<>();
    List<ConnectionState> connection = new CopyOnWriteArrayList<>();
    a.addConnectionStateListener(connection::add);
    Lease lease = a.mutex("killed").acquire(Duration.ofSeconds(5));
    lease.addListener((l, s) -> states.add(s));

    cutOff("holder");
    // Wait for a failure the client saw (not just a renewal slowed by a busy machine): SUSPENDED.
    await().atMost(Duration.ofSeconds(10)).until(() -> connection.contains(ConnectionState.SUSPENDED)
        && states.contains(LeaseState.SUSPECT));
    assertThat(lease.isValid()).isFalse();
    server.admin("ALTER ROLE holder LOGIN");

    await().atMost(Duration.ofSeconds(10)).until(() -> lease.state() == LeaseState.HELD);
    assertThat(states).containsSubsequence(LeaseState.SUSPECT, LeaseState.HELD).doesNotContain(LeaseState.LOST);
    await().atMost(Duration.ofSeconds(10)).until(() -> connection.contains(ConnectionState.RECONNECTED));
    assertThat(connection).containsSubsequence(ConnectionState.SUSPENDED, ConnectionState.RECONNECTED);
    lease.close();
  }

  @Test
  void connectionsKilledWhileTheRowPassesToAnotherMakeTheLeaseLost() {
    String db = server.newDatabase();
    JdbcBaton a = track(JdbcBaton.builder().url(holderUrl(db)).user("holder").password("holder")
        .leaseTtl(Duration.ofSeconds(8)).renewEvery(Duration.ofMillis(500)).build());
    List<LeaseState> states = new CopyOnWriteArrayList<>();
    Lease lease = a.mutex("taken").acquire(Duration.ofSeconds(5));
    lease.addListener((l, s) -> states.add(s));

    cutOff("holder");
    await().atMost(Duration.ofSeconds(10)).until(() -> states.contains(LeaseState.SUSPECT));
    // Meanwhile an operator hands the row to someone else (as an expiry and a new grant would).
    server.run(db, "UPDATE baton_lock SET owner = 'intruder', token = token + 1 WHERE name = 'taken'");
    server.admin("ALTER ROLE holder LOGIN");

    await().atMost(Duration.ofSeconds(10)).until(() -> lease.state() == LeaseState.LOST);
    assertThat(states).containsSubsequence(LeaseState.SUSPECT, LeaseState.LOST).doesNotContain(LeaseState.HELD);
    assertThatThrownBy(() -> a.guarded(lease, c -> 1)).isInstanceOf(LeaseLostException.class);
  }

  /** No new connection for {@code role}, and every open one killed (pg_terminate_backend). */
  private static void cutOff(String role) {
    server.admin("ALTER ROLE " + role + " NOLOGIN",
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '" + role + "'");
  }

  /** A URL of {@code db} for the role {@code holder}, which may use a lock table made there by the superuser. */
  private static String holderUrl(String db) {
    JdbcBaton.builder().url(server.url(db, "")).createSchema(true).build().close();
    server.admin("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'holder') THEN"
        + " CREATE ROLE holder LOGIN PASSWORD 'holder'; END IF; END $$", "ALTER ROLE holder LOGIN");
    server.run(db, "GRANT SELECT, INSERT, UPDATE ON baton_lock TO holder");
    return "jdbc:postgresql://127.0.0.1:" + server.port() + "/" + db;
  }

  @Test
  void holderPausedPastExpiryIsSupersededWithALargerTokenAndItsWritesAreRefused() throws Exception {
    String db = server.newDatabase();
    server.run(db, "CREATE TABLE stock (id INT PRIMARY KEY, qty INT NOT NULL, fence BIGINT NOT NULL DEFAULT 0)",
        "INSERT INTO stock VALUES (42, 100, 0)");
    GateDataSource gate = new GateDataSource(server.dataSource(db));
    JdbcBaton paused = track(JdbcBaton.builder().dataSource(gate).createSchema(true)
        .leaseTtl(Duration.ofSeconds(2)).build());
    JdbcBaton next = track(JdbcBaton.builder().url(server.url(db, "")).leaseTtl(Duration.ofSeconds(2)).build());

    Lease old = paused.mutex("sku-42").acquire(Duration.ofSeconds(5));
    AtomicLong lostAt = new AtomicLong();
    old.addListener((l, s) -> {
      if (s == LeaseState.LOST) {
        lostAt.compareAndSet(0, System.nanoTime());
      }
    });
    assertThat(fencedDecrement(paused, old)).isEqualTo(1);

    gate.shut(); // the holder stalls: no renewal reaches the database
    Lease newer = next.mutex("sku-42").acquire(Duration.ofSeconds(10));
    long grantedAt = System.nanoTime();
    assertThat(newer.fencingToken()).isGreaterThan(old.fencingToken());
    await().atMost(Duration.ofSeconds(5)).until(() -> lostAt.get() != 0);
    assertThat(lostAt.get()).as("the stalled holder hears LOST before the next grant").isLessThan(grantedAt);
    assertThat(old.state()).isEqualTo(LeaseState.LOST);
    assertThat(fencedDecrement(next, newer)).isEqualTo(1);

    gate.open(); // the holder wakes up and tries to write
    assertThatThrownBy(() -> fencedDecrement(paused, old)).isInstanceOf(LeaseLostException.class);
    try (Connection c = gate.getConnection();
        PreparedStatement ps = c.prepareStatement("UPDATE stock SET qty = qty - 1, fence = ? WHERE id = 42 AND fence <= ?")) {
      ps.setLong(1, old.fencingToken());
      ps.setLong(2, old.fencingToken());
      assertThat(ps.executeUpdate()).as("the column fence refuses the stale token too").isZero();
    }
    newer.close();
  }

  private static int fencedDecrement(JdbcBaton baton, Lease lease) {
    return baton.guarded(lease, c -> {
      try (PreparedStatement ps = c.prepareStatement(
          "UPDATE stock SET qty = qty - 1, fence = ? WHERE id = 42 AND fence <= ?")) {
        ps.setLong(1, lease.fencingToken());
        ps.setLong(2, lease.fencingToken());
        return ps.executeUpdate();
      }
    });
  }

  @Test
  void tokensKeepGrowingAcrossADatabaseRestartAndAHeldLeaseComesBack() {
    String db = server.newDatabase();
    JdbcBaton a = track(JdbcBaton.builder().url(server.url(db, "")).createSchema(true)
        .leaseTtl(Duration.ofSeconds(20)).renewEvery(Duration.ofSeconds(1)).build());
    long before;
    try (Lease lease = a.mutex("restarted").acquire(Duration.ofSeconds(5))) {
      before = lease.fencingToken();
    }
    Lease held = a.mutex("held-through").acquire(Duration.ofSeconds(5));
    List<LeaseState> states = new CopyOnWriteArrayList<>();
    held.addListener((l, s) -> states.add(s));

    server.restart();

    await().atMost(Duration.ofSeconds(20)).until(() -> states.contains(LeaseState.SUSPECT)
        || a.connectionState() == ConnectionState.SUSPENDED || held.state() == LeaseState.HELD);
    try (Lease after = a.mutex("restarted").acquire(Duration.ofSeconds(15))) {
      assertThat(after.fencingToken()).isGreaterThan(before);
    }
    await().atMost(Duration.ofSeconds(15)).until(() -> held.state() == LeaseState.HELD);
    JdbcBaton b = track(JdbcBaton.builder().url(server.url(db, "")).build());
    assertThat(b.mutex("held-through").tryAcquire(Duration.ZERO)).isEmpty();
    held.close();
    try (Lease next = b.mutex("held-through").acquire(Duration.ofSeconds(10))) {
      assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
    }
  }

  @Test
  void aUserWithoutRightsIsToldWhichTable() {
    String db = server.newDatabase();
    JdbcBaton owner = JdbcBaton.builder().url(server.url(db, "")).createSchema(true).build();
    owner.close();
    server.admin("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'weak') THEN"
        + " CREATE ROLE weak LOGIN PASSWORD 'weak'; END IF; END $$");
    String url = "jdbc:postgresql://127.0.0.1:" + server.port() + "/" + db;
    assertThatThrownBy(() -> JdbcBaton.builder().url(url).user("weak").password("weak").build())
        .isInstanceOfSatisfying(JdbcSchemaException.class, e -> {
          assertThat(e.problem()).isEqualTo(JdbcSchemaException.Problem.NO_RIGHTS);
          assertThat(e.getMessage()).contains("baton_lock").contains("grant");
        });
  }
}
