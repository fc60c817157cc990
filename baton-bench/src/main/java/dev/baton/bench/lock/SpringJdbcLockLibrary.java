package dev.baton.bench.lock;

import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.locks.Lock;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * Spring Integration's {@code JdbcLockRegistry} over a {@code DefaultLockRepository} (its {@code
 * INT_LOCK} table, DDL as the jar's {@code schema-postgresql.sql} gives it), one registry,
 * repository and pool per client, wired by hand as a Spring context would (a {@code
 * DataSourceTransactionManager} on the pool). Every setting its default: a waiting {@code lock()}
 * tries again every 100 ms ({@code idleBetweenTries}), the row lives 10 s. {@code lock()}, then
 * {@code unlock()} on the same thread.
 */
public final class SpringJdbcLockLibrary implements LockLibrary {
  private static final String SCHEMA = "/org/springframework/integration/jdbc/schema-postgresql.sql";

  @Override
  public boolean onJdbc() {
    return true;
  }

  @Override
  public LockClient connect(String url) throws Exception {
    HikariDataSource pool = JdbcPools.pool(url, "spring-jdbc-lock");
    try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
      s.execute(intLockDdl());
    }
    DefaultLockRepository repository = new DefaultLockRepository(pool);
    repository.setTransactionManager(new DataSourceTransactionManager(pool));
    repository.afterPropertiesSet();
    repository.afterSingletonsInstantiated();
    repository.start();
    JdbcLockRegistry registry = new JdbcLockRegistry(repository);
    return new LockClient() {
      @Override
      public BenchLock lock(String path) {
        Lock lock = registry.obtain(path);
        return () -> {
          lock.lock();
          return lock::unlock;
        };
      }

      @Override
      public void roundTrip(String path) {
        repository.isAcquired(path);
      }

      @Override
      public void close() {
        try {
          repository.stop();
          repository.close();
        } finally {
          pool.close();
        }
      }
    };
  }

  /** The jar's {@code CREATE TABLE INT_LOCK} statement, made idempotent. */
  static String intLockDdl() {
    try (InputStream in = JdbcLockRegistry.class.getResourceAsStream(SCHEMA)) {
      if (in == null) {
        throw new IllegalStateException(SCHEMA + " is not in spring-integration-jdbc's jar");
      }
      String script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      for (String statement : script.split(";")) {
        String trimmed = statement.strip();
        if (trimmed.startsWith("CREATE TABLE INT_LOCK")) {
          return trimmed.replaceFirst("CREATE TABLE INT_LOCK", "CREATE TABLE IF NOT EXISTS INT_LOCK");
        }
      }
      throw new IllegalStateException(SCHEMA + " has no CREATE TABLE INT_LOCK");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
