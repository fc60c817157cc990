package dev.baton.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Work done in the transaction of {@link JdbcBaton#guarded}: run on {@code connection}, whose
 * transaction already holds the lease's lock row in share mode. Do not commit, roll back or close
 * the connection: the guard does.
 */
@FunctionalInterface
public interface GuardedWork<T> {
  T run(Connection connection) throws SQLException;
}
