package dev.baton.jdbc;

/**
 * The semaphore, read-write lock and counter on a real MariaDB from the machine's packages;
 * skipped, naming the missing binary, where none is installed.
 */
class JdbcMariaDbRecipeTest extends JdbcRecipeCases {
  @Override
  protected SqlTestServer server() {
    return MariaDbServer.sharedOrSkip();
  }
}
