package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.testkit.FaultProxy;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The row locks of a grant on a real MariaDB: a grant of the read-write lock or semaphore is a
 * transaction over the name's rows, and in InnoDB's default REPEATABLE READ its range statements
 * lock every row of the name they scan, live leases' rows too, until it commits. A client on a slow
 * link then holds every holder's renewal back for the whole of its attempt, and the holders' leases
 * turn SUSPECT (or LOST) for want of a renewal. Skipped, naming the missing binary, where MariaDB is
 * not installed.
 */
class JdbcMariaDbGrantLocksTest {
  private static MariaDbServer server;

  @BeforeAll
  static void startServer() {
    assumeTrue(MariaDbServer.missing().isEmpty(), () -> MariaDbServer.missing().orElse(""));
    server = MariaDbServer.shared();
  }

  @Test
  void aSlowClientsGrantAttempts_doNotHoldBackTheHoldersRenewals() throws Exception {
    String db = server.newDatabase();
    try (FaultProxy slowLink = FaultProxy.start(new InetSocketAddress("127.0.0.1", server.port()));
        JdbcBaton holder = JdbcBaton.builder().url(server.url(db)).createSchema(true)
            .leaseTtl(Duration.ofMillis(1500)).renewEvery(Duration.ofMillis(300)).build();
        JdbcBaton slow = JdbcBaton.builder().url("jdbc:mariadb://" + slowLink.connectString() + "/" + db + "?user=root")
            .leaseTtl(Duration.ofSeconds(20)).build()) {
      Lease read = holder.readWriteLock("report").readLock().acquire(Duration.ofSeconds(10));
      List<LeaseState> heard = new CopyOnWriteArrayList<>();
      read.addListener((l, state) -> heard.add(state));
      slowLink.delay(Duration.ofMillis(100));
      CompletableFuture<Optional<Lease>> writer = CompletableFuture.supplyAsync(
          () -> slow.readWriteLock("report").writeLock().tryAcquire(Duration.ofSeconds(60)));
      long before = slow.statementsSent();
      // Enough of the slow writer's attempts to span several of the holder's renewal periods.
      await().atMost(Duration.ofSeconds(60)).until(() -> slow.statementsSent() >= before + 20);

      assertThat(heard).as("what the reader's lease heard while the slow writer tried").isEmpty();
      assertThat(read.state()).isEqualTo(LeaseState.HELD);
      read.close();
      slowLink.restore();
      writer.get(60, TimeUnit.SECONDS).orElseThrow().close();
    }
  }
}
