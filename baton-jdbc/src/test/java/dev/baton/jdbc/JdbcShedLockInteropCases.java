package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.lock.Lease;
import dev.baton.lock.LockOwner;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
  private String url;

  /** A fresh, empty database: the JDBC URL Baton connects to. */
  protected abstract String freshDatabaseUrl();

  /** What ShedLock connects through: the database of the last {@link #freshDatabaseUrl()}. */
  protected abstract DataSource shedLockDataSource();

  @BeforeEach
  void setUp() {
    url = freshDatabaseUrl();
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

  /**
   * Two clients taking turns on one name while ShedLock tries it inside every turn: one holder at
   * a time, and tokens that grow from grant to grant (the fence is bumped with the grant, so a
   * later grant cannot draw a smaller token).
   */
  @Test
  void racingClientsHoldOneAtATimeWithGrowingTokensAndShedLockStaysOut() throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try (JdbcBaton second = JdbcBaton.builder().url(url).shedLockTable("shedlock").leaseTtl(Duration.ofSeconds(10))
        .build()) {
      AtomicInteger inside = new AtomicInteger();
      List<Long> tokens = new CopyOnWriteArrayList<>();
      List<String> problems = new CopyOnWriteArrayList<>();
      List<Future<?>> clients = new ArrayList<>();
      for (JdbcBaton client : List.of(baton, second)) {
        clients.add(threads.submit(() -> {
          for (int round = 0; round < 5; round++) {
            try (Lease lease = client.mutex("race").acquire(Duration.ofSeconds(30))) {
              if (inside.incrementAndGet() != 1) {
                problems.add("two Baton holders at once");
              }
              shedLock("race", Duration.ofSeconds(30)).ifPresent(lock -> {
                problems.add("ShedLock got in beside a Baton holder");
                lock.unlock();
              });
              tokens.add(lease.fencingToken());
              inside.decrementAndGet();
            }
          }
          return null;
        }));
      }
      for (Future<?> client : clients) {
        client.get(60, TimeUnit.SECONDS);
      }
      assertThat(problems).isEmpty();
      assertThat(tokens).hasSize(10).isSorted().doesNotHaveDuplicates();
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void namesLongerThanShedLocksColumnAreRefused() {
    assertThatThrownBy(() -> baton.mutex("x".repeat(65))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("64");
  }
}
