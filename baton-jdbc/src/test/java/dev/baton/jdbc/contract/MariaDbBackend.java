package dev.baton.jdbc.contract;

import dev.baton.jdbc.MariaDbServer;
import dev.baton.jdbc.SqlTestServer;
import dev.baton.testkit.contract.Promise;
import java.util.EnumSet;
import java.util.Set;

/**
 * The SQL backend on MySQL/MariaDB for the conformance suite ({@link SqlBackend}), on the JVM's one
 * MariaDB from the machine's packages ({@link MariaDbServer#shared()}, loopback, a free port,
 * restartable on the same data). Where {@code mariadbd} is not installed, every contract class is
 * skipped by a JUnit assumption that names what is missing.
 */
public final class MariaDbBackend extends SqlBackend {
  @Override
  public String name() {
    return "mysql";
  }

  /**
   * As on PostgreSQL, there is no queue in the table: waiters of different clients race for a
   * released row, and a client sees only its own waiters, with no token until they are granted.
   * MySQL has no notify either, which costs time (waiters re-check on a back-off) but no promise.
   */
  @Override
  public Set<Promise> notPromised() {
    return EnumSet.of(Promise.FIFO_AMONG_CLIENTS, Promise.WAITER_SHOWS_ITS_TOKEN,
        Promise.WAITERS_SEEN_BY_EVERY_CLIENT);
  }

  @Override
  protected SqlTestServer sharedServer() {
    return MariaDbServer.sharedOrSkip();
  }

  @Override
  protected String url(String hostAndPort, String database) {
    return "jdbc:mariadb://" + hostAndPort + "/" + database + "?user=root";
  }

  @Override
  protected String now() {
    return "UTC_TIMESTAMP(6)";
  }
}
