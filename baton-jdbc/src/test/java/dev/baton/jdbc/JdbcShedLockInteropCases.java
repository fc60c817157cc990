package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.lock.Lease;
import dev.baton.lock.LockOwner;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A Baton mutex in ShedLock's table layout and ShedLock's own {@code JdbcTemplateLockProvider}
 * ({@code usingDbTime()}) on the same rows of a real database: each excludes the other, both ways.
 * A subclass per database supplies a fresh database.
 */
abstract class JdbcShedLockInteropCases {
  private JdbcBaton baton;
  private JdbcTemplateLockProvider shedLock;

  /** A fresh, empty database: the JDBC URL Baton connects to. */
  protected abstract String freshDatabaseUrl();

  /** What ShedLock connects through: the database of the last {@link #freshDatabaseUrl()}. */
  protected abstract DataSource shedLockDataSource();

  @BeforeEach
  void setUp() {
    String url = freshDatabaseUrl();
    baton = JdbcBaton.builder().url(url).shedLockTable("shedlock").createSchema(true)
        .leaseTtl(Duration.ofSeconds(10)).build();
    shedLock = new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
        .withJdbcTemplate(new JdbcTemplate(shedLockDataSource())).usingDbTime().build());
  }

  @AfterEach
  void tearDown() {
    baton.close();
  }

  private Optional<SimpleLock> shedLock(String name, Duration atMost) {
    return shedLock.lock(new LockConfiguration(Instant.now(), name, atMost, Duration.ZERO));
  }

  @Test
  void aBatonHolderKeepsShedLockOutUntilItReleases() {
    Lease lease = baton.mutex("nightly-report").acquire(Duration.ofSeconds(5));
    assertThat(shedLock("nightly-report", Duration.ofSeconds(30))).isEmpty();
    LockOwner holder = baton.mutex("nightly-report").holder().orElseThrow();
    assertThat(holder.fencingToken()).isEqualTo(lease.fencingToken());
    lease.close();
    await().atMost(Duration.ofSeconds(10)).until(() -> baton.mutex("nightly-report").holder().isEmpty());
    Optional<SimpleLock> lock = shedLock("nightly-report", Duration.ofSeconds(30));
    assertThat(lock).isPresent();
    lock.get().unlock();
  }

  @Test
  void aShedLockHolderKeepsBatonOutAndItsUnlockLetsTheWaiterIn() throws Exception {
    SimpleLock lock = shedLock("sync", Duration.ofSeconds(60)).orElseThrow();
    assertThat(baton.mutex("sync").tryAcquire(Duration.ZERO)).isEmpty();
    assertThat(baton.mutex("sync").holder()).get().extracting(LockOwner::host).asString().isNotEmpty();
    CompletableFuture<Lease> waiting = baton.mutex("sync").acquireAsync();
    assertThat(baton.mutex("sync").tryAcquire(Duration.ofMillis(300))).isEmpty();
    lock.unlock();
    Lease first = waiting.get(10, TimeUnit.SECONDS);
    assertThat(shedLock("sync", Duration.ofSeconds(60))).isEmpty();
    first.close();
    try (Lease second = baton.mutex("sync").acquire(Duration.ofSeconds(10))) {
      assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
    }
  }

  @Test
  void aShedLockHolderThatNeverUnlocksIsOvertakenAtItsLockUntil() {
    assertThat(shedLock("crashed", Duration.ofSeconds(1))).isPresent(); // and its node dies
    try (Lease lease = baton.mutex("crashed").acquire(Duration.ofSeconds(15))) {
      assertThat(lease.isValid()).isTrue();
      assertThat(shedLock("crashed", Duration.ofSeconds(30))).isEmpty();
    }
  }

  @Test
  void namesLongerThanShedLocksColumnAreRefused() {
    assertThatThrownBy(() -> baton.mutex("x".repeat(65))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("64");
  }
}
