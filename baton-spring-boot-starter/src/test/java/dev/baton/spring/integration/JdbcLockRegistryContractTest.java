package dev.baton.spring.integration;

import dev.baton.embedded.EmbeddedPostgreSql;
import dev.baton.jdbc.JdbcBaton;
import dev.baton.testkit.CloseAfterEach;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The registry contract on PostgreSQL: a row per key, in a database of this class's own. */
class JdbcLockRegistryContractTest extends LockRegistryContract {
  private static EmbeddedPostgreSql postgres;
  private static String database;
  @RegisterExtension
  final CloseAfterEach resources = new CloseAfterEach();

  @BeforeAll
  static void startServer() {
    postgres = EmbeddedPostgreSql.shared();
    database = postgres.newDatabase();
  }

  private JdbcBaton client() {
    return resources.closing(JdbcBaton.builder().dataSource(postgres.dataSource(database)).createSchema(true)
        .leaseTtl(Duration.ofSeconds(3)).renewEvery(Duration.ofMillis(300)).build());
  }

  @Override
  BatonLockRegistry newRegistry() {
    return new BatonLockRegistry(client()::mutex, LockKeyLayout.jdbc("registry:"));
  }
}
