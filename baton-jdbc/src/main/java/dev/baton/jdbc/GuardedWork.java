package dev.baton.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Work done in the transaction of {@link JdbcBaton#guarded}: run on {@code connection}, whose
 * transaction already holds the lease's lock row in share mode. Do not commit, roll back or close
 * the connection: the guard does.
 *
 * <p>If the connection is lost, or a statement times out, while this runs, the transaction is rolled
 * back (by the database if the connection is gone) and nothing of it is applied; the guard then throws
 * a {@link dev.baton.ConnectionException}. Keep the work short: while it runs, the lock row is held in
 * share mode, so a renewal of this lease or a grant to the next holder waits for it.
 */
@FunctionalInterface
public interface GuardedWork<T> {
  T run(Connection connection) throws SQLException;
}
