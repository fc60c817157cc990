package dev.baton.internal.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.jdbc.JdbcBaton;
import dev.baton.jdbc.MariaDbServer;
import dev.baton.jdbc.PostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The statements themselves, on each database: the cases a client reaches only through faults
 * (a grant whose reply was lost, a row that expired under its holder).
 */
class JdbcDialectTest {
  static Stream<String> databases() {
    return Stream.of("postgresql", "mysql");
  }

  private static String url(String backend) {
    if (backend.equals("postgresql")) {
      PostgresServer pg = PostgresServer.shared();
      return pg.url(pg.newDatabase(), "");
    }
    assumeTrue(MariaDbServer.missing().isEmpty(), () -> MariaDbServer.missing().orElse(""));
    MariaDbServer maria = MariaDbServer.shared();
    return maria.url(maria.newDatabase());
  }

  private static Dialect dialect(Connection c, String url) throws SQLException {
    JdbcBaton.builder().url(url).createSchema(true).build().close();
    return Dialect.forProduct(c.getMetaData().getDatabaseProductName(), "baton_lock");
  }

  private static final Dialect.Asker A = new Dialect.Asker("owner-a", "host", 1, "t");
  private static final Dialect.Asker B = new Dialect.Asker("owner-b", "host", 1, "t");
  private static final long TTL = 30_000_000L;

  @ParameterizedTest
  @MethodSource("databases")
  void aRetryWhoseFirstReplyWasLostRetakesItsOwnRowWithALargerToken(String backend) throws SQLException {
    String url = url(backend);
    try (Connection c = DriverManager.getConnection(url)) {
      Dialect d = dialect(c, url);
      Dialect.Attempt first = d.tryGrant(c, "lost-reply", A, TTL);
      assertThat(first.granted()).isTrue();
      assertThat(d.tryGrant(c, "lost-reply", B, TTL).granted()).isFalse();
      Dialect.Attempt retry = d.tryGrant(c, "lost-reply", A, TTL); // as if the first reply never arrived
      assertThat(retry.granted()).isTrue();
      assertThat(retry.token()).isGreaterThan(first.token());
      assertThat(d.renew(c, "lost-reply", "owner-a", first.token(), TTL)).as("the unseen grant's token").isFalse();
      assertThat(d.abandon(c, "lost-reply", "owner-a", "ch", "x")).isTrue();
      assertThat(d.tryGrant(c, "lost-reply", B, TTL).granted()).isTrue();
    }
  }

  @ParameterizedTest
  @MethodSource("databases")
  void aRowThatExpiredIsNeitherRenewedNorGuardedButGrantedToTheNext(String backend) throws SQLException {
    String url = url(backend);
    try (Connection c = DriverManager.getConnection(url)) {
      Dialect d = dialect(c, url);
      Dialect.Attempt a = d.tryGrant(c, "expired", A, TTL);
      Dialect.Attempt busy = d.tryGrant(c, "expired", B, TTL);
      assertThat(busy.granted()).isFalse();
      assertThat(busy.remainingMicros()).isPositive().isLessThanOrEqualTo(TTL);
      try (Statement s = c.createStatement()) {
        s.executeUpdate("UPDATE baton_lock SET expires_at = expires_at - INTERVAL '1' HOUR".replace("'1' HOUR",
            backend.equals("mysql") ? "1 HOUR" : "'1 hour'"));
      }
      assertThat(d.renew(c, "expired", "owner-a", a.token(), TTL)).isFalse();
      c.setAutoCommit(false);
      assertThat(d.lockIfHeld(c, "expired", "owner-a", a.token())).isFalse();
      c.rollback();
      c.setAutoCommit(true);
      Dialect.Attempt b = d.tryGrant(c, "expired", B, TTL);
      assertThat(b.granted()).isTrue();
      assertThat(b.token()).isGreaterThan(a.token());
      assertThat(d.release(c, "expired", "owner-a", a.token(), "ch", "x").freed()).as("not A's row any more").isFalse();
      assertThat(d.release(c, "expired", "owner-b", b.token(), "ch", "x").freed()).isTrue();
    }
  }

  /** What decides whether the releasing client holds its own next attempt back: only a refused asker. */
  @ParameterizedTest
  @MethodSource("databases")
  void aReleaseSaysWhetherAnotherAskerWasRefusedSinceTheGrant(String backend) throws SQLException {
    String url = url(backend);
    try (Connection c = DriverManager.getConnection(url)) {
      Dialect d = dialect(c, url);
      Dialect.Attempt alone = d.tryGrant(c, "wanted", A, TTL);
      assertThat(d.release(c, "wanted", "owner-a", alone.token(), "ch", "x"))
          .isEqualTo(new Dialect.Released(true, false));

      Dialect.Attempt held = d.tryGrant(c, "wanted", A, TTL);
      assertThat(d.tryGrant(c, "wanted", B, TTL).granted()).isFalse();
      assertThat(d.release(c, "wanted", "owner-a", held.token(), "ch", "x"))
          .isEqualTo(new Dialect.Released(true, true));

      Dialect.Attempt next = d.tryGrant(c, "wanted", B, TTL);
      assertThat(next.granted()).isTrue();
      assertThat(d.release(c, "wanted", "owner-b", next.token(), "ch", "x"))
          .as("the grant cleared the want it answered").isEqualTo(new Dialect.Released(true, false));
      assertThat(d.release(c, "wanted", "owner-b", next.token(), "ch", "x"))
          .isEqualTo(new Dialect.Released(false, false));
    }
  }
}
