package dev.baton.jdbc;

/** The server a test class runs on, PostgreSQL or MariaDB: fresh databases, and statements on them. */
public interface SqlTestServer {
  int port();

  /** Stops the server and starts it again on the same data and port. */
  void restart();

  /** A new, empty database. */
  String newDatabase();

  /** A JDBC URL of {@code database} as the superuser. */
  String url(String database);

  void run(String database, String... sql);
}
