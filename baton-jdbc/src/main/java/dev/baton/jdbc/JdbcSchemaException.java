package dev.baton.jdbc;

import dev.baton.BatonException;

/**
 * The lock table cannot be used: it is missing (and {@code createSchema(true)} was not asked for),
 * it has another shape than Baton's (a column missing or of another type), or the database user
 * lacks the rights to read, write or create it. Thrown by {@link JdbcBaton.Builder#build()}, before
 * any lock is used; the message names the table and, where it helps, carries the DDL to run.
 * Nothing was changed in the database.
 *
 * <p>Connection loss or a timeout during these checks is not reported as this exception but as a
 * {@link dev.baton.ConnectionException} naming the database: the table may well be fine.
 */
public class JdbcSchemaException extends BatonException {
  private static final long serialVersionUID = 1L;

  /** What is wrong with the table. */
  public enum Problem {
    /** The table does not exist. */
    MISSING_TABLE,
    /** The table exists with another shape. */
    WRONG_SHAPE,
    /** The user may not read, write or create the table. */
    NO_RIGHTS
  }

  private final Problem problem;
  private final String table;
  private final String ddl;

  public JdbcSchemaException(Problem problem, String table, String ddl, String message, Throwable cause) {
    super(message, cause);
    this.problem = problem;
    this.table = table;
    this.ddl = ddl;
  }

  public Problem problem() {
    return problem;
  }

  /** The lock table's name, as this client uses it. */
  public String table() {
    return table;
  }

  /** The DDL that creates the table this client expects (also in the jar, per database). */
  public String ddl() {
    return ddl;
  }
}
