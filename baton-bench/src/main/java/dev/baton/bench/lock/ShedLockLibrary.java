package dev.baton.bench.lock;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * ShedLock's JDBC provider ({@code JdbcTemplateLockProvider} on the {@code shedlock} table, the
 * database's clock as ShedLock's documentation advises: {@code usingDbTime()}), one provider and
 * pool per client. ShedLock never waits: {@code lock()} answers at once with a lock or nothing. So
 * a contender that wants the lock calls it again at once until it gets one, each attempt waited
 * for, no sleep between attempts (the quickest a ShedLock user can hand over; it costs the
 * database one statement per attempt). {@code lockAtMostFor} 30 s (as the others' TTLs),
 * {@code lockAtLeastFor} 0.
 */
public final class ShedLockLibrary implements LockLibrary {
  /** ShedLock's documented PostgreSQL table. */
  static final String DDL = "CREATE TABLE IF NOT EXISTS shedlock(name VARCHAR(64) NOT NULL, "
      + "lock_until TIMESTAMP NOT NULL, locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, "
      + "PRIMARY KEY (name))";

  private static final Duration AT_MOST = Duration.ofSeconds(30);

  @Override
  public boolean onJdbc() {
    return true;
  }

  @Override
  public LockClient connect(String url) throws Exception {
    HikariDataSource pool = JdbcPools.pool(url, "shedlock");
    try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
      s.execute(DDL);
    }
    JdbcTemplateLockProvider provider = new JdbcTemplateLockProvider(
        JdbcTemplateLockProvider.Configuration.builder()
            .withJdbcTemplate(new JdbcTemplate(pool))
            .usingDbTime()
            .build());
    return new LockClient() {
      @Override
      public BenchLock lock(String path) {
        return () -> {
          while (true) {
            Optional<SimpleLock> lock = provider.lock(new LockConfiguration(Instant.now(), path, AT_MOST, Duration.ZERO));
            if (lock.isPresent()) {
              SimpleLock held = lock.get();
              return held::unlock;
            }
            if (Thread.interrupted()) {
              throw new InterruptedException();
            }
          }
        };
      }

      @Override
      public void roundTrip(String path) {
        new JdbcTemplate(pool).queryForObject("SELECT count(*) FROM shedlock WHERE name = ?", Long.class, path);
      }

      @Override
      public void close() {
        pool.close();
      }
    };
  }
}
