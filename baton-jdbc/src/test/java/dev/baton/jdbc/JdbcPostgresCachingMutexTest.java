package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.ConnectionState;
import dev.baton.FencingTokens;
import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import dev.baton.lock.MutexOptions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The caching SQL mutex on a real PostgreSQL, where a refused asker's notify makes the cache give the row up. */
class JdbcPostgresCachingMutexTest extends JdbcCachingMutexCases {
  @Override
  protected PostgresServer server() {
    return PostgresServer.shared();
  }

  @Test
  void anotherClientWaitingOnACachedRowIsGrantedPromptly() throws Exception {
    JdbcBaton a = client();
    JdbcBaton b = client();
    Mutex cached = a.mutex("notify", CACHE_LONG);
    long token;
    try (Lease lease = cached.acquire(WAIT)) {
      token = lease.fencingToken();
    }
    // Cached for an hour: only the refused attempt's notify can free it within the wait.
    try (Lease other = b.mutex("notify").acquire(WAIT)) {
      assertThat(other.fencingToken()).isGreaterThan(token);
    }
    // Held, then released with the other client waiting: given up at the release, not cached.
    Lease held = cached.acquire(WAIT);
    CompletableFuture<Long> waiting = b.mutex("notify").acquireAsync().thenApply(l -> {
      l.close();
      return l.fencingToken();
    });
    await().atMost(WAIT).until(() -> wantedMarked("notify")); // b's attempt was refused
    held.close();
    assertThat(waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isGreaterThan(held.fencingToken());
  }

  private boolean wantedMarked(String name) {
    try (var c = server().dataSource(database()).getConnection();
        var rs = c.createStatement().executeQuery("SELECT wanted FROM baton_lock WHERE name = '" + name + "'")) {
      return rs.next() && rs.getBoolean(1);
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void aSuspectLeaseIsNotServedFromTheCache() throws Exception {
    client();
    GateDataSource gate = new GateDataSource(server().dataSource(database()));
    JdbcBaton a = track(JdbcBaton.builder().dataSource(gate).leaseTtl(Duration.ofSeconds(3))
        .renewEvery(Duration.ofMillis(300)).build());
    List<ConnectionState> states = new CopyOnWriteArrayList<>();
    a.addConnectionStateListener(states::add);
    Mutex cached = a.mutex("suspect", CACHE_LONG);
    long token;
    try (Lease lease = cached.acquire(WAIT)) {
      token = lease.fencingToken();
    }
    gate.shut(); // renewals hang: the client turns SUSPENDED and the cached row SUSPECT
    await().atMost(WAIT).until(() -> states.contains(ConnectionState.SUSPENDED));
    CompletableFuture<Lease> next = cached.acquireAsync();
    gate.open();
    try (Lease lease = next.get(WAIT.toSeconds(), TimeUnit.SECONDS)) {
      assertThat(lease.fencingToken()).as("a new grant's block, not the cached row's next token")
          .isGreaterThanOrEqualTo(token + FencingTokens.PER_NODE);
    }
  }

  @Test
  void optionsAreRefusedInShedLocksLayoutAndLockDelayEverywhere() {
    JdbcBaton plain = client();
    JdbcBaton shed = track(JdbcBaton.builder().url(server().url(database())).shedLockTable("shedlock")
        .createSchema(true).build());
    assertThatThrownBy(() -> shed.mutex("x", CACHE_LONG)).isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("postgresql").hasMessageContaining("withCaching").hasMessageContaining("ShedLock");
    assertThatThrownBy(() -> shed.mutex("x", MutexOptions.defaults().withLocalHandOver(2)))
        .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("withLocalHandOver");
    assertThatThrownBy(() -> plain.mutex("x", MutexOptions.defaults().withLockDelay(Duration.ofSeconds(1))))
        .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("lock-delay");
  }
}
