package dev.baton.bench;

import dev.baton.embedded.EmbeddedPostgreSql;
import dev.baton.embedded.EmbeddedRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

import dev.baton.bench.lock.RawLibrary;
import java.io.PrintStream;
import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * What scenarios share: the ZooKeeper server (and a Redis server once a Redis row asks), the options, an admin session for preparing paths and
 * watching queues, and a place to report progress.
 */
final class BenchContext implements AutoCloseable {
  private final BenchOptions options;
  private final String host;
  private final int port;
  private final ServerCounters counters;
  private final PrintStream progress;
  private ZooKeeper admin;
  private EmbeddedRedis redis;
  private RedisClient redisAdminClient;
  private StatefulRedisConnection<String, String> redisAdmin;
  private EmbeddedPostgreSql postgres;
  private String jdbcUrl;

  BenchContext(BenchOptions options, String host, int port, PrintStream progress) {
    this.options = options;
    this.host = host;
    this.port = port;
    this.counters = new ServerCounters(host, port);
    this.progress = progress;
  }

  BenchOptions options() {
    return options;
  }

  String connectString() {
    return host + ":" + port;
  }

  ServerCounters counters() {
    return counters;
  }

  /**
   * The Redis server of the Redis rows, started on first use: the redis-server binary on the PATH
   * or the one embedded-redis ships, a process of its own on loopback, persistence off.
   */
  synchronized String redisUri() {
    if (redis == null) {
      redis = EmbeddedRedis.start();
      redisAdminClient = RedisClient.create(redis.uri());
      redisAdmin = redisAdminClient.connect();
      progress("Redis server " + EmbeddedRedis.binary() + " at " + redis.uri());
    }
    return redis.uri();
  }

  /**
   * The JDBC URL of the SQL rows' database, started on first use: a real PostgreSQL ({@link
   * EmbeddedPostgreSql}) in a process of its own on loopback, one fresh database, server defaults.
   */
  synchronized String jdbcUrl() {
    if (postgres == null) {
      postgres = EmbeddedPostgreSql.start();
      jdbcUrl = postgres.url(postgres.newDatabase());
      progress("PostgreSQL server at " + jdbcUrl + " (" + postgresSettings() + ")");
    }
    return jdbcUrl;
  }

  /** The server settings a commit's cost depends on, as the server reports them. */
  private String postgresSettings() {
    StringBuilder settings = new StringBuilder();
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(jdbcUrl);
        java.sql.Statement s = c.createStatement()) {
      for (String name : List.of("server_version", "fsync", "synchronous_commit")) {
        try (java.sql.ResultSet r = s.executeQuery("SHOW " + name)) {
          r.next();
          settings.append(settings.length() == 0 ? "" : ", ").append(name).append(' ').append(r.getString(1));
        }
      }
    } catch (java.sql.SQLException e) {
      return "settings unread: " + e.getMessage();
    }
    return settings.toString();
  }

  /** Commands the Redis server has processed so far, not counting the INFO that asks. */
  synchronized long redisCommandsProcessed() {
    redisUri();
    String stats = redisAdmin.sync().info("stats");
    for (String line : stats.split("\r?\n")) {
      if (line.startsWith("total_commands_processed:")) {
        return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
      }
    }
    throw new IllegalStateException("INFO stats has no total_commands_processed: " + stats);
  }

  void progress(String line) {
    progress.println(line);
    progress.flush();
  }

  /**
   * A fresh lock path for one run, {@code /bench/<scenario>/<contender>-<run>}, created as a
   * persistent node. Every contender gets an existing persistent parent: no container node the
   * server might remove between two cycles, and no parent creation inside a timed window.
   */
  String freshPath(String scenario, String contender, String run) throws Exception {
    String path = "/bench/" + scenario + "/" + contender + "-" + run;
    ensurePersistent("/bench");
    ensurePersistent("/bench/" + scenario);
    ensurePersistent(path);
    return path;
  }

  /** Children of {@code path} now (0 if it does not exist). */
  int childCount(String path) throws Exception {
    try {
      List<String> children = admin().getChildren(path, false);
      return children.size();
    } catch (KeeperException.NoNodeException e) {
      return 0;
    }
  }

  /**
   * Closes the admin session, so a request count sees no traffic but the client under test (an
   * idle session pings every third of its timeout).
   */
  void closeAdmin() {
    if (admin != null) {
      try {
        admin.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      admin = null;
    }
  }

  private void ensurePersistent(String path) throws Exception {
    try {
      admin().create(path, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    } catch (KeeperException.NodeExistsException e) {
      // made by an earlier run
    }
  }

  private ZooKeeper admin() throws Exception {
    if (admin == null) {
      admin = RawLibrary.connectRaw(connectString());
    }
    return admin;
  }

  @Override
  public void close() {
    closeAdmin();
    if (redis != null) {
      redisAdmin.close();
      redisAdminClient.shutdown(0, 1, java.util.concurrent.TimeUnit.SECONDS);
      redis.close();
    }
    if (postgres != null) {
      postgres.close();
    }
  }
}
