package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.FencingTokens;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseLostException;
import dev.baton.lock.LeaseState;
import dev.baton.lock.Mutex;
import dev.baton.lock.MutexOptions;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The SQL mutex with caching and local hand-over ({@link MutexOptions}), run on each database by a
 * subclass that says how to reach a fresh one.
 */
abstract class JdbcCachingMutexCases extends JdbcClientCases {
  static final Duration WAIT = Duration.ofSeconds(20);
  /** Longer than any test: a row given up within a test was given up on notice, not by idling out. */
  static final MutexOptions CACHE_LONG = MutexOptions.defaults().withCaching(Duration.ofHours(1));

  @Test
  void cachedReacquireIssuesNoStatementAndTokensGrowWithEveryTenure() {
    JdbcBaton a = client();
    Mutex mutex = a.mutex("cached", CACHE_LONG);
    long last;
    try (Lease first = mutex.acquire(WAIT)) {
      last = first.fencingToken();
    }
    assertThat(mutex.holder()).hasValueSatisfying(o -> assertThat(o.cached()).isTrue());
    long before = a.statementsSent();
    for (int i = 0; i < 20; i++) {
      try (Lease lease = i % 2 == 0 ? mutex.acquire(WAIT) : mutex.tryAcquire(Duration.ZERO).orElseThrow()) {
        assertThat(lease.state()).isEqualTo(LeaseState.HELD);
        assertThat(mutex.isHeldByCurrentThread()).isTrue();
        assertThat(lease.fencingToken()).isGreaterThan(last);
        last = lease.fencingToken();
      }
      assertThat(mutex.isHeldByCurrentThread()).isFalse();
    }
    assertThat(a.statementsSent() - before).as("statements for 20 cached acquisitions").isZero();
  }

  @Test
  void tokensGrowAcrossCachedAndLocalTenuresAndAcrossClients() throws Exception {
    JdbcBaton a = client();
    JdbcBaton b = client();
    Mutex cachingA = a.mutex("shared", MutexOptions.defaults().withCaching(Duration.ofMillis(200)).withLocalHandOver(3));
    Mutex cachingB = b.mutex("shared", MutexOptions.defaults().withCaching(Duration.ofMillis(200)).withLocalHandOver(3));
    Mutex plainB = b.mutex("shared");
    List<Mutex> perThread = new ArrayList<>();
    for (int t = 0; t < 6; t++) {
      perThread.add(t < 3 ? cachingA : t < 5 ? cachingB : plainB);
    }
    Contention run = contend(perThread, 10, WAIT);
    assertThat(run.overlaps()).isZero();
    assertThat(run.tokens()).hasSize(60).isSorted().doesNotHaveDuplicates();
  }

  @Test
  void aTenuresListenerHearsReleasedOnceWhenItsEndFreesTheRow() {
    Mutex mutex = client().mutex("told-once", MutexOptions.defaults().withLocalHandOver(2));
    List<LeaseState> heard = new CopyOnWriteArrayList<>();
    Lease lease = mutex.acquire(WAIT);
    lease.addListener((l, state) -> heard.add(state), Runnable::run);
    lease.close(); // no other thread waits and nothing is cached: the tenure's end frees the row too
    assertThat(heard).containsExactly(LeaseState.RELEASED);
  }

  @Test
  void anotherClientIsGrantedOnceTheCacheIdlesOut() {
    JdbcBaton a = client();
    JdbcBaton b = client();
    Mutex cached = a.mutex("idle", MutexOptions.defaults().withCaching(Duration.ofMillis(300)));
    long token;
    try (Lease lease = cached.acquire(WAIT)) {
      token = lease.fencingToken();
    }
    try (Lease other = b.mutex("idle").acquire(WAIT)) {
      assertThat(other.fencingToken()).isGreaterThan(token);
    }
  }

  @Test
  void aStaleFencedWriteAfterTheRowWasGivenUpIsRefused() {
    run("CREATE TABLE stock (id INT PRIMARY KEY, qty INT NOT NULL, fence BIGINT NOT NULL)",
        "INSERT INTO stock VALUES (42, 100, 0)");
    JdbcBaton a = client();
    JdbcBaton b = client();
    Mutex cached = a.mutex("sku-42", MutexOptions.defaults().withCaching(Duration.ofMillis(300)));
    Lease old = cached.acquire(WAIT);
    assertThat(fencedDecrement(a, old)).isEqualTo(1);
    old.close();
    assertThatThrownBy(() -> fencedDecrement(a, old)).as("an ended tenure, though its row is still cached")
        .isInstanceOf(LeaseLostException.class);
    try (Lease newer = b.mutex("sku-42").acquire(WAIT)) {
      assertThat(newer.fencingToken()).isGreaterThan(old.fencingToken());
      assertThat(fencedDecrement(b, newer)).isEqualTo(1);
      int stale = b.guarded(newer, c -> {
        try (PreparedStatement ps = c.prepareStatement("UPDATE stock SET qty = qty - 1, fence = ? WHERE id = 42 AND fence <= ?")) {
          ps.setLong(1, old.fencingToken());
          ps.setLong(2, old.fencingToken());
          return ps.executeUpdate();
        }
      });
      assertThat(stale).as("the column fence refuses the cached holder's older token").isZero();
    }
  }

  @Test
  void closeReleasesTheCachedRow() {
    JdbcBaton a = client();
    JdbcBaton b = client();
    try (Lease lease = a.mutex("closing", CACHE_LONG).acquire(WAIT)) {
      assertThat(lease.isValid()).isTrue();
    }
    assertThat(b.mutex("closing").holder()).as("cached by a").isPresent();
    a.close();
    assertThat(b.mutex("closing").tryAcquire(Duration.ZERO)).isPresent().get().satisfies(Lease::close);
  }

  @Test
  void localHandOverServesEveryThreadAndFreesTheRowAfterTheLimit() throws Exception {
    JdbcBaton a = client();
    JdbcBaton b = client();
    Mutex local = a.mutex("local", MutexOptions.defaults().withLocalHandOver(2));
    Lease first = local.acquire(WAIT);
    List<Long> tokens = new CopyOnWriteArrayList<>(List.of(first.fencingToken()));
    List<java.util.concurrent.CompletableFuture<Void>> done = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      done.add(local.acquireAsync().thenAccept(l -> {
        tokens.add(l.fencingToken());
        l.close();
      }));
    }
    var other = b.mutex("local").acquireAsync().thenAccept(l -> {
      tokens.add(l.fencingToken());
      l.close();
    });
    first.close();
    java.util.concurrent.CompletableFuture.allOf(done.toArray(java.util.concurrent.CompletableFuture[]::new))
        .get(WAIT.toSeconds(), TimeUnit.SECONDS);
    other.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(tokens).hasSize(6).isSorted().doesNotHaveDuplicates();
    // Within one grant's block the tokens are consecutive; a new grant starts a new block.
    assertThat(tokens.get(1)).isEqualTo(tokens.get(0) + 1);
    assertThat(tokens.get(tokens.size() - 1) - tokens.get(0)).isGreaterThanOrEqualTo(FencingTokens.PER_NODE);
  }

  static int fencedDecrement(JdbcBaton baton, Lease lease) {
    return baton.guarded(lease, c -> {
      try (PreparedStatement ps = c.prepareStatement(
          "UPDATE stock SET qty = qty - 1, fence = ? WHERE id = 42 AND fence <= ?")) {
        ps.setLong(1, lease.fencingToken());
        ps.setLong(2, lease.fencingToken());
        return ps.executeUpdate();
      }
    });
  }
}
