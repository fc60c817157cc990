package dev.baton.jdbc;

import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;

/**
 * What the SQL cases run on each database share: a fresh database of the server under test per
 * test, clients on it that are closed after the test, and a contention run.
 */
abstract class JdbcClientCases {
  private final List<AutoCloseable> toClose = new ArrayList<>();
  private JdbcBaton.Builder current;
  private String database;

  /** The server under test; MariaDB's skips the test (naming what is missing) where none is installed. */
  protected abstract SqlTestServer server();

  /** The lease TTL of {@link #client()}. */
  protected Duration leaseTtl() {
    return Duration.ofSeconds(30);
  }

  /** A builder on a fresh, empty database of the server under test, which {@link #database()} then names. */
  protected JdbcBaton.Builder freshBuilder() {
    database = server().newDatabase();
    return JdbcBaton.builder().url(server().url(database));
  }

  /** This test's database: the first call picks it, later ones share it. */
  protected String database() {
    if (current == null) {
      current = freshBuilder();
    }
    return database;
  }

  /** The builder of this test's clients, on its database; what is set on it holds for later clients. */
  protected JdbcBaton.Builder builder() {
    database();
    return current;
  }

  /** Runs {@code sql} on this test's database. */
  protected void run(String... sql) {
    server().run(database(), sql);
  }

  /** A client on this test's database, closed after the test. */
  protected JdbcBaton client() {
    return client(leaseTtl());
  }

  protected JdbcBaton client(Duration ttl) {
    return track(builder().leaseTtl(ttl).renewEvery(ttl.dividedBy(3)).createSchema(true).build());
  }

  protected <T extends AutoCloseable> T track(T closeable) {
    toClose.add(closeable);
    return closeable;
  }

  @AfterEach
  void closeClients() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  /**
   * Runs a thread per mutex of {@code perThread}, each acquiring and releasing it {@code rounds}
   * times; returns the tokens in the order the holders entered, and how often two were inside at once.
   */
  static Contention contend(List<Mutex> perThread, int rounds, Duration wait) throws Exception {
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger overlaps = new AtomicInteger();
    List<Long> tokens = new CopyOnWriteArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(perThread.size());
    try {
      List<Future<?>> runs = new ArrayList<>();
      for (Mutex mutex : perThread) {
        runs.add(pool.submit(() -> {
          for (int i = 0; i < rounds; i++) {
            try (Lease lease = mutex.acquire(wait)) {
              if (inside.incrementAndGet() != 1) {
                overlaps.incrementAndGet();
              }
              tokens.add(lease.fencingToken());
              inside.decrementAndGet();
            }
          }
          return null;
        }));
      }
      for (Future<?> f : runs) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    return new Contention(List.copyOf(tokens), overlaps.get());
  }

  record Contention(List<Long> tokens, int overlaps) {}
}
