package dev.baton.jdbc;

/**
 * The caching SQL mutex on a real MariaDB (no notify: a cached row is given up when it idles out);
 * skipped, naming the missing binary, where none is installed.
 */
class JdbcMariaDbCachingMutexTest extends JdbcCachingMutexCases {
  @Override
  protected SqlTestServer server() {
    return MariaDbServer.sharedOrSkip();
  }
}
