package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.Coordinator;
import dev.baton.embedded.EmbeddedPostgreSql;
import dev.baton.embedded.EmbeddedZooKeeper;
import dev.baton.jdbc.JdbcBaton;
import dev.baton.jdbc.JdbcSchemaException;
import dev.baton.lock.Lease;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.Lock;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * {@code baton.backend=jdbc}: the application's one {@link Coordinator} is the SQL client, on the
 * application's DataSource or a pool of {@code baton.jdbc.url}, and the lock registry and ShedLock
 * stand on it, excluding any other client of the same rows.
 */
class BatonJdbcAutoConfigurationTest {
  private static EmbeddedPostgreSql postgres;
  private static EmbeddedZooKeeper zk;

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(BatonBackendAutoConfiguration.class, BatonAutoConfiguration.class,
          BatonRedisAutoConfiguration.class, BatonJdbcAutoConfiguration.class, BatonLockRegistryAutoConfiguration.class,
          BatonShedLockAutoConfiguration.class));

  @BeforeAll
  static void startServers() {
    postgres = EmbeddedPostgreSql.shared();
    zk = EmbeddedZooKeeper.start();
  }

  @AfterAll
  static void stopServers() {
    zk.close();
  }

  @Test
  void backendJdbc_onTheApplicationsDataSource_isTheOneCoordinatorAndExcludesOtherClients() throws Exception {
    String database = postgres.newDatabase();
    DataSource dataSource = postgres.dataSource(database);
    runner.withBean(DataSource.class, () -> dataSource)
        .withPropertyValues("baton.backend=jdbc", "baton.jdbc.create-schema=true",
            "baton.connect-string=" + zk.connectString())
        .run(context -> {
          assertThat(context).hasNotFailed().hasSingleBean(Coordinator.class).doesNotHaveBean(Baton.class);
          Coordinator coordinator = context.getBean(Coordinator.class);
          assertThat(coordinator).isInstanceOf(JdbcBaton.class);
          assertThat(coordinator.backend()).isEqualTo("postgresql");
          try (JdbcBaton other = JdbcBaton.builder().dataSource(dataSource).build();
               Lease lease = coordinator.mutex("stock-42").acquire(Duration.ofSeconds(10))) {
            assertThat(other.mutex("stock-42").tryAcquire(Duration.ZERO))
                .as("a client outside the application waits for the application's lease").isEmpty();
            assertThat(lease.fencingToken()).isPositive();
          }
        });
    assertThat(heldRows(dataSource)).as("the lease's close freed its row").isEmpty();
  }

  @Test
  void backendJdbc_lockRegistryAndShedLock_takeRowsOfTheSqlClient() throws Exception {
    String database = postgres.newDatabase();
    DataSource dataSource = postgres.dataSource(database);
    runner.withBean(DataSource.class, () -> dataSource)
        .withPropertyValues("baton.backend=jdbc", "baton.jdbc.create-schema=true")
        .run(context -> {
          assertThat(context).hasNotFailed();
          Lock order = context.getBean(LockRegistry.class).obtain("order-7");
          assertThat(order.tryLock()).isTrue();
          Optional<SimpleLock> job = context.getBean(LockProvider.class)
              .lock(new LockConfiguration(Instant.now(), "nightly", Duration.ofMinutes(5), Duration.ZERO));
          assertThat(job).isPresent();
          assertThat(heldRows(dataSource)).containsExactlyInAnyOrder("locks:order-7", "shedlock:nightly");
          try (JdbcBaton other = JdbcBaton.builder().dataSource(dataSource).build()) {
            assertThat(other.mutex("locks:order-7").tryAcquire(Duration.ZERO))
                .as("the registry's lock is the row another client of the table sees").isEmpty();
          }
          job.get().unlock(); // ShedLock's unlock frees the row on the provider's timer thread
          await().atMost(Duration.ofSeconds(10))
              .untilAsserted(() -> assertThat(heldRows(dataSource)).containsExactly("locks:order-7"));
        });
    assertThat(heldRows(dataSource)).as("the client, closed with the context, freed the row it held").isEmpty();
  }

  @Test
  void backendJdbc_withItsOwnUrl_makesAndClosesAPoolOfItsOwn() {
    String database = postgres.newDatabase();
    runner.withPropertyValues("baton.backend=jdbc", "baton.jdbc.url=" + postgres.url(database),
        "baton.jdbc.create-schema=true", "baton.jdbc.lease-ttl=6s", "baton.jdbc.table-prefix=app_")
        .run(context -> {
          assertThat(context).hasNotFailed();
          JdbcBaton jdbc = context.getBean(JdbcBaton.class);
          assertThat(jdbc.table()).isEqualTo("app_lock");
          try (Lease lease = jdbc.mutex("report").acquire(Duration.ofSeconds(10))) {
            assertThat(lease.isValid()).isTrue();
          }
        });
  }

  @Test
  void backendJdbc_neitherUrlNorDataSource_startFailsNamingBothWays() {
    runner.withPropertyValues("baton.backend=jdbc").run(context -> assertThat(context).hasFailed()
        .getFailure().rootCause().hasMessageContaining("baton.jdbc.url").hasMessageContaining("DataSource"));
  }

  @Test
  void backendJdbc_tableMissing_startFailsNamingTheTableAndTheSwitch() {
    String database = postgres.newDatabase();
    runner.withBean(DataSource.class, () -> postgres.dataSource(database))
        .withPropertyValues("baton.backend=jdbc")
        .run(context -> {
          assertThat(context).hasFailed();
          Throwable cause = context.getStartupFailure();
          while (cause != null && !(cause instanceof JdbcSchemaException)) {
            cause = cause.getCause();
          }
          assertThat(cause).as("the start-up failure names the schema problem").isNotNull()
              .hasMessageContaining("baton_lock").hasMessageContaining("CREATE TABLE");
        });
  }

  @Test
  void aDataSourceAlone_buildsNoSqlClient() {
    String database = postgres.newDatabase();
    runner.withBean(DataSource.class, () -> postgres.dataSource(database))
        .withPropertyValues("baton.connect-string=" + zk.connectString())
        .run(context -> {
          assertThat(context).hasNotFailed().doesNotHaveBean(JdbcBaton.class);
          assertThat(context.getBean(Coordinator.class).backend()).isEqualTo("zookeeper");
        });
  }

  private static List<String> heldRows(DataSource dataSource) throws Exception {
    List<String> names = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
         PreparedStatement select = c.prepareStatement("SELECT name FROM baton_lock WHERE owner IS NOT NULL");
         ResultSet rows = select.executeQuery()) {
      while (rows.next()) {
        names.add(rows.getString(1));
      }
    }
    return names;
  }
}
