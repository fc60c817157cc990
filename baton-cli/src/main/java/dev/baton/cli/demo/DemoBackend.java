package dev.baton.cli.demo;

import dev.baton.Baton;
import dev.baton.atomic.Counter;
import dev.baton.cli.command.CliException;
import dev.baton.jdbc.JdbcBaton;
import dev.baton.lock.Mutex;
import dev.baton.redis.RedisBaton;
import dev.baton.redis.RedisMutexOptions;
import java.time.Duration;

/**
 * Where the flash sale runs: the lock service the buyers lock with, and the store beside it that
 * keeps the stock. The sale's code is the same on every backend; only the names differ (ZooKeeper
 * paths, Redis keys, PostgreSQL rows).
 */
public interface DemoBackend {

  /** {@code ZooKeeper}, {@code Redis} or {@code PostgreSQL}, for reports. */
  String label();

  /** The server's address, as the user would pass it back to {@code baton}. */
  String address();

  /** The folder (or key prefix) of one run. */
  String runRoot(String runId);

  /** A name under a run's root. */
  String child(String root, String name);

  /** A plain client of the store, for setting up, checking and cleaning up the stock. */
  StockStore openStock();

  /** One application node: a lock client of its own and a stock client of its own. */
  DemoNode openNode(String lockNameOrNull);

  /** The command that shows the lock's queue while the sale runs. */
  String waitersCommand(String lockName);

  /** The header's line that tells how to watch the lock while the sale runs. */
  default String watchHint(String lockName) {
    return "Watch the queue meanwhile: " + waitersCommand(lockName);
  }

  /** One application node's clients; closing closes both. */
  record DemoNode(AutoCloseable client, Mutex mutex, StockStore stock) {
    /** The node of an open {@code client}: its mutex and a stock client; the client is closed if either fails. */
    static DemoNode open(AutoCloseable client, java.util.function.Supplier<Mutex> mutex, DemoBackend backend) {
      try {
        return new DemoNode(client, mutex.get(), backend.openStock());
      } catch (RuntimeException e) {
        new DemoNode(client, null, null).close();
        throw e;
      }
    }

    /** The compare-and-set counter on {@code path}; ZooKeeper only. */
    Counter counter(String path) {
      if (client instanceof Baton baton) {
        return baton.counter(path);
      }
      throw new CliException("--mode cas runs on ZooKeeper only: Baton's counter is a ZooKeeper recipe");
    }

    void close() {
      try {
        client.close();
      } catch (Exception e) {
        // Closing a client does not fail the run; its sessions end with the process anyway.
      } finally {
        if (stock != null) {
          stock.close();
        }
      }
    }
  }

  /** The sale on a ZooKeeper ensemble: locks are Baton mutexes, the stock a ZooKeeper node. */
  record ZooKeeper(String connectString, Duration connectTimeout) implements DemoBackend {
    static final String ROOT = "/baton-demo";

    @Override
    public String label() {
      return "ZooKeeper";
    }

    @Override
    public String address() {
      return connectString;
    }

    @Override
    public String runRoot(String runId) {
      return ROOT + "/" + runId;
    }

    @Override
    public String child(String root, String name) {
      return root + "/" + name;
    }

    @Override
    public StockStore openStock() {
      return StockClient.connect(connectString, connectTimeout);
    }

    @Override
    public DemoNode openNode(String lockNameOrNull) {
      Baton baton = Baton.builder().connectString(connectString).connectionTimeout(connectTimeout).build();
      return DemoNode.open(baton, () -> lockNameOrNull == null ? null : baton.mutex(lockNameOrNull), this);
    }

    @Override
    public String waitersCommand(String lockName) {
      return "baton lock waiters " + lockName + " --connect " + connectString;
    }
  }

  /** The sale on Redis: locks are Baton's Redis mutexes, the stock a Redis key. */
  record Redis(String uri, Duration connectTimeout, RedisMutexOptions options) implements DemoBackend {
    @Override
    public String label() {
      return "Redis";
    }

    @Override
    public String address() {
      return uri;
    }

    @Override
    public String runRoot(String runId) {
      return "baton-demo:" + runId;
    }

    @Override
    public String child(String root, String name) {
      return root + ":" + name;
    }

    @Override
    public StockStore openStock() {
      return RedisStock.connect(uri, connectTimeout);
    }

    @Override
    public DemoNode openNode(String lockNameOrNull) {
      RedisBaton baton = RedisBaton.builder().uri(uri).connectTimeout(connectTimeout).build();
      return DemoNode.open(baton, () -> lockNameOrNull == null ? null : baton.mutex(lockNameOrNull, options), this);
    }

    @Override
    public String waitersCommand(String lockName) {
      return "baton lock waiters " + lockName + " --redis " + uri;
    }
  }

  /**
   * The sale on PostgreSQL: locks are Baton's lock rows ({@code baton_lock}, made if missing), the
   * stock a row of {@link PostgresStock#TABLE} in the same database. {@code user} and {@code
   * password} may be null (the URL's own).
   */
  record Postgres(String url, String user, String password, Duration connectTimeout) implements DemoBackend {
    /** Connections of one node's stock pool: the buyers of a node mostly wait for the lock, not for a connection. */
    static final int STOCK_POOL = 4;

    @Override
    public String label() {
      return "PostgreSQL";
    }

    @Override
    public String address() {
      return redact(url);
    }

    @Override
    public String runRoot(String runId) {
      return "baton-demo/" + runId;
    }

    @Override
    public String child(String root, String name) {
      return root + "/" + name;
    }

    @Override
    public StockStore openStock() {
      return PostgresStock.connect(url, user, password, connectTimeout, STOCK_POOL);
    }

    @Override
    public DemoNode openNode(String lockNameOrNull) {
      JdbcBaton baton = client().build();
      return DemoNode.open(baton, () -> lockNameOrNull == null ? null : baton.mutex(lockNameOrNull), this);
    }

    /** A client of this database that makes Baton's lock table if it is missing. */
    JdbcBaton.Builder client() {
      JdbcBaton.Builder builder = JdbcBaton.builder().url(url).connectTimeout(connectTimeout).createSchema(true);
      if (user != null) {
        builder.user(user);
      }
      if (password != null) {
        builder.password(password);
      }
      return builder;
    }

    @Override
    public String waitersCommand(String lockName) {
      return "SELECT owner, token, expires_at FROM baton_lock WHERE name = '" + lockName + "'";
    }

    @Override
    public String watchHint(String lockName) {
      return "Watch the lock row meanwhile (the database keeps no queue), in psql: " + waitersCommand(lockName);
    }

    @Override
    public String toString() {
      return "Postgres[" + address() + "]"; // never the password
    }

    /** The URL without its parameters (which may hold a password) nor credentials. */
    static String redact(String url) {
      int q = url.indexOf('?');
      String base = q < 0 ? url : url.substring(0, q);
      return base.replaceAll("//[^/@]*@", "//");
    }
  }
}
