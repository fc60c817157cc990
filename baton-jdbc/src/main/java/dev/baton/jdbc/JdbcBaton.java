package dev.baton.jdbc;

import dev.baton.BatonException;
import dev.baton.ClientClosedException;
import dev.baton.ConnectionException;
import dev.baton.ConnectionState;
import dev.baton.ConnectionStateListener;
import dev.baton.Coordinator;
import dev.baton.atomic.Counter;
import dev.baton.internal.jdbc.Dialect;
import dev.baton.internal.jdbc.JdbcHold;
import dev.baton.internal.leadership.MutexLeaderLatch;
import dev.baton.internal.leadership.MutexLeaderSelector;
import dev.baton.internal.multilock.MutexMultiLock;
import dev.baton.internal.jdbc.JdbcLease;
import dev.baton.internal.jdbc.JdbcMutex;
import dev.baton.internal.jdbc.JdbcCounter;
import dev.baton.internal.jdbc.JdbcReadWriteLock;
import dev.baton.internal.jdbc.JdbcSemaphore;
import dev.baton.internal.jdbc.JdbcSession;
import dev.baton.internal.jdbc.Settings;
import dev.baton.leader.LeaderLatch;
import dev.baton.leader.LeaderSelector;
import dev.baton.leader.LeaderTask;
import dev.baton.lock.MultiLock;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseLostException;
import dev.baton.lock.LeaseState;
import dev.baton.lock.LockOwner;
import dev.baton.lock.Mutex;
import dev.baton.lock.MutexOptions;
import dev.baton.lock.ReadWriteLock;
import dev.baton.lock.Semaphore;
import java.net.InetAddress;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * A client of the PostgreSQL or MySQL/MariaDB database a team already runs, handing out the same
 * {@link Mutex} and {@link Lease} as the ZooKeeper and Redis clients. Thread-safe; one per process
 * and database is plenty.
 *
 * <pre>{@code
 * try (JdbcBaton baton = JdbcBaton.builder().url("jdbc:postgresql://db/app").user("app").password(pw).build()) {
 *   try (Lease lease = baton.mutex("/locks/sku-42").acquire(Duration.ofSeconds(5))) {
 *     baton.guarded(lease, c -> c.prepareStatement("UPDATE stock SET qty = qty - 1 WHERE id = 42").executeUpdate());
 *   }
 * }
 * }</pre>
 *
 * <p><b>Leases</b> are rows of one table ({@code baton_lock}; the DDL is in the jar as {@code
 * dev/baton/jdbc/postgresql.sql} and {@code mysql.sql}) whose expiry the database judges by its own
 * clock. The client renews a held lease every {@link Builder#renewEvery renewal period}; a renewal
 * that fails (no connection, a statement timeout) turns the lease {@code SUSPECT}, one that finds the
 * row expired, freed or another owner's turns it {@code LOST}, and so does reaching {@code
 * validUntil()} without a renewal (on the client's own timer, before the row can expire). The
 * fencing token is the row's counter, bumped by each grant in the grant's own statement: it strictly
 * grows from holder to holder, across clients and database restarts, as long as the row is not
 * deleted. {@link #guarded} runs a write in one transaction with the lease's row locked, so a
 * holder that lost its lease cannot write.
 *
 * <p><b>Connection loss</b>: every statement takes a connection from the pool and gives it back, so
 * there is no connection to lose for long: a failed statement turns the client {@link
 * ConnectionState#SUSPENDED} (its leases {@code SUSPECT}) until one succeeds ({@code RECONNECTED},
 * leases whose row still names them {@code HELD} again), or {@code LOST} after the lease TTL.
 * Waiters keep their place and try again. On PostgreSQL one connection more is kept open to
 * {@code LISTEN} for releases; while it is down, waiters re-check on a back-off.
 *
 * <p><b>Timeouts</b>: {@link Builder#build()} waits at most {@link Builder#connectTimeout} for a
 * first connection (when it makes its own pool) and then fails naming the URL; each statement may
 * run at most the renewal period (at least a second) before it is abandoned as a failure. Acquire
 * timeouts are the caller's and leave nothing behind.
 */
public final class JdbcBaton implements Coordinator {
  private final JdbcSession session;
  /** Recipe tables found usable by this client: checked once, on first use. */
  private final java.util.Set<String> checkedTables = java.util.concurrent.ConcurrentHashMap.newKeySet();

  private JdbcBaton(JdbcSession session) {
    this.session = session;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** {@code postgresql} or {@code mysql} (MariaDB included), as read from the connection's metadata. */
  @Override
  public String backend() {
    return session.dialect().backend();
  }

  /**
   * A reentrant mutex on the row {@code name} of the lock table. Cheap: nothing is sent until it
   * is used.
   *
   * @throws IllegalArgumentException if {@code name} is empty, longer than 255 characters (64 in
   *     ShedLock's layout) or holds a control character
   * @throws ClientClosedException if this client is closed
   */
  @Override
  public Mutex mutex(String name) {
    checkName(name, "lock");
    session.checkOpen();
    return new JdbcMutex(session, name);
  }

  /**
   * A mutex on the row {@code name} with {@code options} ({@link MutexOptions}), which trade strict
   * first-come order across clients for throughput; neither gives up mutual exclusion, growing
   * fencing tokens or the loss notice of a lease.
   *
   * <ul>
   *   <li><b>Local hand-over</b> ({@link MutexOptions#withLocalHandOver}): threads of this mutex
   *       object that wait while one of them holds the lock queue inside the client, which asks
   *       the database once for all of them; on release the row passes to the next local waiter
   *       with no statement, up to {@code localHandOvers} times in a row, then it is freed even if
   *       local waiters remain.
   *   <li><b>Caching</b> ({@link MutexOptions#withCaching}): after a release with no local waiter,
   *       the row stays this client's for up to {@code idle} (renewed as if held), so the next
   *       acquisition costs no statement. {@link Mutex#holder()} on this object shows the cached
   *       row with {@link LockOwner#cached()} set; while a thread holds it, it shows that tenure's
   *       token, and other clients see the row's, the last of the block the grant reserved. Another client that asks for the row is refused
   *       and marks it wanted; on PostgreSQL its refusal notifies this client, which gives the row
   *       up at once (or at the release, if a thread holds it). <b>On MySQL there is no notify</b>:
   *       the other client waits until the cache has been idle for {@code idle}, or until the
   *       tokens the grant reserved (4,096 tenures) run out; keep {@code idle} short there.
   * </ul>
   *
   * <p>Each grant reserves {@link dev.baton.FencingTokens#PER_NODE} tokens in the row's counter
   * and every tenure (cached or handed over) takes the next one, so fencing tokens grow with every
   * holder, and the row's token, which the next grant counts on from, is the last reserved one:
   * the SQL fence of the README and {@link #guarded} refuse an older holder
   * as before. A lease of an ended tenure reads RELEASED, even while the row stays cached.
   *
   * <p>Connection loss: a cached row turns SUSPECT with its lease and is then given up, not used
   * (a waiter asks the database again); a held one turns SUSPECT and LOST as without options.
   * Timeouts of {@code acquire} withdraw the waiter; the row the client asked for on its behalf is
   * cached or freed if it comes after. {@link #close()} frees a cached row.
   *
   * @throws UnsupportedOperationException for local hand-over or caching in ShedLock's layout (it
   *     has no row token to reserve a block of), and for lock-delay, which the SQL mutex lacks
   * @throws IllegalArgumentException as {@link #mutex(String)}
   * @throws NullPointerException if {@code options} is null
   */
  @Override
  public Mutex mutex(String name, MutexOptions options) {
    Objects.requireNonNull(options, "options");
    checkName(name, "lock");
    session.checkOpen();
    if (!options.lockDelay().isZero()) {
      throw new UnsupportedOperationException("The " + backend() + " backend has no lock-delay"
          + " (MutexOptions.withLockDelay): it needs a record of a lost holder that the lock table does not keep");
    }
    if (options.sharesNode() && !session.dialect().reservesTokens()) {
      throw new UnsupportedOperationException("The " + backend() + " backend has no "
          + (options.localHandOvers() > 0 ? "local hand-over (MutexOptions.withLocalHandOver)"
              : "lock caching (MutexOptions.withCaching)")
          + " in ShedLock's table layout, which has no per-row token to reserve a block of;"
          + " build a JdbcBaton without shedLockTable for it");
    }
    return new JdbcMutex(session, name, options);
  }

  /**
   * A counting semaphore of {@code permits} permits on {@code name}, in the table {@code
   * <prefix>semaphore}: each lease is a row holding its permits, with a fencing token drawn from the
   * name's counter (it grows with every grant), renewed while held and expiring by the database's
   * clock, as a mutex lease does. A multi-permit acquire is one transaction: all or nothing. Waiters
   * of one client are served in order; across clients, whoever tries first after a release (woken by
   * PostgreSQL's notify, or a back-off on MySQL). Clients must agree on {@code permits}.
   *
   * <p>Connection loss while waiting: the waiter keeps its place and tries again (an attempt whose
   * reply was lost finds its own grant, or has its row deleted if the waiter gives up). While
   * holding: the lease turns SUSPECT, then LOST when its time is up without a renewal, before
   * another client can take its permits. Timeouts give back whatever the waiter was granted.
   *
   * @throws IllegalArgumentException for a name {@link #mutex} refuses, or {@code permits < 1}
   * @throws JdbcSchemaException if the semaphore table is missing (with its DDL) or unusable
   * @throws UnsupportedOperationException in ShedLock's layout, which has no such table
   */
  @Override
  public Semaphore semaphore(String name, int permits) {
    checkName(name, "semaphore");
    if (permits < 1) {
      throw new IllegalArgumentException("A semaphore needs at least one permit: " + permits + " for " + name);
    }
    session.checkOpen();
    return new JdbcSemaphore(session, recipeTable("semaphore", "semaphore"), name, permits);
  }

  /**
   * A read-write lock on {@code name}, in the table {@code <prefix>rwlock}: many readers or one
   * writer, each lease a row with a fencing token drawn from the name's counter at its grant (a
   * downgraded read lease carries its write lease's token), renewed while held and expiring by the
   * database's clock. The waiter each client is trying for (the head of its line) is a row too,
   * renewed while it waits, so a waiting writer of any client keeps later readers out, and {@code
   * waiters()} of any client lists it (not the waiters queued behind it in its own client).
   * Reentrant per thread and object through the blocking methods; a thread holding the write lock
   * gets the read lock at once (downgrade); a thread holding only the read lock that asks for the
   * write lock gets an {@link IllegalStateException}.
   *
   * <p>Connection loss and timeouts behave as for {@link #mutex}: a waiter keeps its place and
   * tries again; a held lease turns SUSPECT, then LOST before its row can expire; a waiter that
   * gives up has its row deleted (or left to expire if the database cannot be reached).
   *
   * @throws IllegalArgumentException for a name {@link #mutex} refuses
   * @throws JdbcSchemaException if the read-write lock table is missing (with its DDL) or unusable
   * @throws UnsupportedOperationException in ShedLock's layout, which has no such table
   */
  @Override
  public ReadWriteLock readWriteLock(String name) {
    checkName(name, "read-write lock");
    session.checkOpen();
    return new JdbcReadWriteLock(session, recipeTable("rwlock", "read-write lock"), name);
  }

  /**
   * A counter on {@code name}, one row of the table {@code <prefix>counter} (a missing row is 0):
   * {@code addAndGet} is one upsert, {@code compareAndExchange} one conditional update, both
   * applied atomically by the database, so no update of any thread or client is lost. Reads see
   * every committed update.
   *
   * <p>Connection loss: an update is never sent twice. If no connection could be had, nothing was
   * sent ({@link ConnectionException}); if the connection failed after the statement was sent, the
   * update may have been applied ({@link dev.baton.OutcomeUnknownException}, a ConnectionException):
   * read the counter to decide. {@code set} is safe to repeat and is tried once more. A statement
   * that runs longer than the statement timeout is abandoned as a connection failure.
   *
   * @throws IllegalArgumentException for a name {@link #mutex} refuses
   * @throws JdbcSchemaException if the counter table is missing (with its DDL) or unusable
   * @throws UnsupportedOperationException in ShedLock's layout, which has no such table
   */
  @Override
  public Counter counter(String name) {
    checkName(name, "counter");
    session.checkOpen();
    return new JdbcCounter(session, recipeTable("counter", "counter"), name);
  }

  /** The table of a recipe, checked once per client: it must exist with the columns the recipe uses. */
  private String recipeTable(String suffix, String words) {
    if (session.dialect().family() == null) {
      throw new UnsupportedOperationException("The " + words + " is not available on the " + backend()
          + " backend in ShedLock's table layout; build a JdbcBaton without shedLockTable for it");
    }
    String table = session.dialect().recipeTable(suffix);
    if (checkedTables.contains(table)) {
      return table;
    }
    String columns = suffix.equals("counter") ? "name, value"
        : "name, owner, kind, permits, granted, token, expires_at, acquired_at, host, pid, thread";
    Dialect dialect = session.dialect();
    try (Connection c = session.dataSource().getConnection(); Statement s = c.createStatement()) {
      s.executeQuery("SELECT " + columns + " FROM " + table + " WHERE 1 = 0").close();
    } catch (SQLException e) {
      if (dialect.isMissingTable(e)) {
        throw new JdbcSchemaException(JdbcSchemaException.Problem.MISSING_TABLE, table, dialect.ddl(),
            "The " + words + " table " + table + " does not exist in " + session.settings().describe()
                + ". Run this DDL (also in the baton-jdbc jar as dev/baton/jdbc/" + dialect.backend()
                + ".sql; its statements are CREATE TABLE IF NOT EXISTS), or build with createSchema(true):\n"
                + dialect.ddl(), e);
      }
      if (dialect.isMissingColumn(e)) {
        throw new JdbcSchemaException(JdbcSchemaException.Problem.WRONG_SHAPE, table, dialect.ddl(),
            "The table " + table + " in " + session.settings().describe() + " has another shape than Baton's "
                + words + " table (" + e.getMessage() + "). Use another tablePrefix, or a table made by this DDL:\n"
                + dialect.ddl(), e);
      }
      if (dialect.isDenied(e)) {
        throw new JdbcSchemaException(JdbcSchemaException.Problem.NO_RIGHTS, table, dialect.ddl(),
            "The user may not read the " + words + " table " + table + " in " + session.settings().describe()
                + " (" + e.getMessage() + "); grant it SELECT, INSERT, UPDATE and DELETE on " + table, e);
      }
      throw session.error("checking the " + words + " table " + table, e);
    }
    checkedTables.add(table);
    return table;
  }

  /** Refuses a name no row could carry, naming the recipe ({@code what}) the name was for. */
  private void checkName(String name, String what) {
    Objects.requireNonNull(name, () -> "a " + what + " name must not be null");
    int max = session.dialect().maxNameLength();
    if (name.isBlank() || name.length() > max || name.chars().anyMatch(Character::isISOControl)) {
      throw new IllegalArgumentException("A " + what + " name must be 1 to " + max
          + " printable characters, not all blank: '" + shown(name, max) + "'"
          + (name.length() > max ? " has " + name.length() : ""));
    }
  }

  /** {@code name} as an error message shows it: control characters as '?', cut after {@code max}. */
  private static String shown(String name, int max) {
    String head = name.length() > max ? name.substring(0, max) : name;
    return head.replaceAll("\\p{Cntrl}", "?") + (name.length() > max ? "..." : "");
  }

  /**
   * A participant {@code participantId} in the election of {@code name}, not yet started: the
   * leader is the holder of the {@linkplain #mutex(String) mutex} on {@code name} (the participant
   * id is recorded in the row's {@code thread} column), and leadership is that mutex's lease, with
   * its fencing token. Connection loss: leadership is not trusted while the lease is SUSPECT
   * (listeners hear "lost", then "gained" with the same lease if a renewal succeeds in time); once
   * the lease is LOST the latch queues again. {@code participants()} lists the leader and this
   * client's participants only: the database keeps no queue. The algorithm is baton-api's, shared
   * with the Redis backend.
   *
   * @throws IllegalArgumentException for a name {@link #mutex} refuses
   */
  @Override
  public LeaderLatch leaderLatch(String name, String participantId) {
    Objects.requireNonNull(participantId, "participantId");
    return new MutexLeaderLatch(mutex(name), participantId, session.notices(), session::checkOpen);
  }

  /**
   * A participant that runs {@code task} each time it leads the election of {@code name} (held as
   * in {@link #leaderLatch}), and gives up the lead when the task returns; not yet started.
   */
  @Override
  public LeaderSelector leaderSelector(String name, String participantId, LeaderTask task) {
    Objects.requireNonNull(participantId, "participantId");
    Objects.requireNonNull(task, "task");
    return new MutexLeaderSelector(mutex(name), participantId, task, session.notices(), session::checkOpen);
  }

  /**
   * The locks taken as one, all or nothing, in a global order (baton-api's algorithm over these
   * mutexes: each part is a row with its own lease and token).
   *
   * @throws IllegalArgumentException if no lock is given, or one name is given twice
   * @throws ClientClosedException if this client is closed
   */
  @Override
  public MultiLock multiLock(Mutex... locks) {
    Objects.requireNonNull(locks, "locks");
    session.checkOpen();
    return new MutexMultiLock(java.util.Arrays.asList(locks));
  }

  /**
   * Runs {@code work} in one transaction with the lease's row locked in share mode, after checking
   * that the row still names this lease and has not expired: no other client can be granted the
   * lock until the transaction ends, so a write made here cannot land after a newer holder's, however
   * long this holder stalled before calling. Use it for data in the same database as the lock table;
   * for data elsewhere pass {@link Lease#fencingToken()} (see {@link dev.baton.lock.FencedResource}).
   *
   * <p>Connection loss or a statement timeout inside: the transaction is rolled back (by the
   * database, if the connection is gone) and a {@link ConnectionException} is thrown; nothing of
   * {@code work} is applied.
   *
   * @throws LeaseLostException if the lease is released or lost, or its row no longer names it;
   *     {@code work} is not run
   * @throws IllegalArgumentException if {@code lease} was not handed out by this client
   */
  public <T> T guarded(Lease lease, GuardedWork<T> work) {
    Objects.requireNonNull(work, "work");
    if (!(lease instanceof JdbcLease jdbc) || jdbc.hold().session() != session) {
      throw new IllegalArgumentException("Not a lease of this client: " + lease);
    }
    session.checkOpen();
    JdbcHold hold = jdbc.hold();
    String row = session.dialect().table() + "/" + hold.name();
    LeaseState state = lease.state();
    if (state == LeaseState.RELEASED || state == LeaseState.LOST) {
      throw lost(hold, row, "it is " + state);
    }
    try (Connection c = session.dataSource().getConnection()) {
      boolean autoCommit = c.getAutoCommit();
      c.setAutoCommit(false);
      try {
        if (!hold.lockIfHeld(c)) {
          c.rollback();
          throw lost(hold, row, "its row has expired or names another owner");
        }
        T result = work.run(c);
        c.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        try {
          c.rollback();
        } catch (SQLException ignored) {
          // the connection is gone: the database rolls back
        }
        throw e;
      } finally {
        try {
          c.setAutoCommit(autoCommit);
        } catch (SQLException ignored) {
          // broken connection: the pool drops it
        }
      }
    } catch (SQLException e) {
      throw session.error("the guarded transaction of " + hold.name(), e);
    }
  }

  private static LeaseLostException lost(JdbcHold hold, String row, String why) {
    return new LeaseLostException(hold.name(), row, "The lease on " + hold.name() + " (token " + hold.token()
        + ") is lost: " + why + ", so the guarded transaction was not applied; another client may hold the lock"
        + " now. Acquire it again and re-read before writing.");
  }

  /** The DDL this client's lock table needs, for this database (what the jar's SQL file holds, with this table name). */
  public String ddl() {
    return session.dialect().ddl();
  }

  /** The lock table's name, prefix included. */
  public String table() {
    return session.dialect().table();
  }

  /** Statements this client has sent (grants, renewals, releases, reads), for tests and metrics. */
  public long statementsSent() {
    return session.statementsSent();
  }

  @Override
  public ConnectionState connectionState() {
    return session.connectionState();
  }

  @Override
  public void addConnectionStateListener(ConnectionStateListener listener) {
    session.addStateListener(Objects.requireNonNull(listener, "listener"), null);
  }

  @Override
  public void addConnectionStateListener(ConnectionStateListener listener, Executor executor) {
    session.addStateListener(Objects.requireNonNull(listener, "listener"), Objects.requireNonNull(executor));
  }

  @Override
  public void removeConnectionStateListener(ConnectionStateListener listener) {
    session.removeStateListener(listener);
  }

  /**
   * Fails this client's waiters with {@link ClientClosedException}, frees the rows of the leases
   * it holds (on this thread, each statement bounded by the statement timeout; a row that cannot
   * be freed expires with its TTL), stops listening and closes the pool it made (never one it was
   * given). Idempotent.
   */
  @Override
  public void close() {
    session.close();
  }

  static String human(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }

  @Override
  public String toString() {
    return "JdbcBaton[" + backend() + " " + session.settings().describe() + "]";
  }

  /**
   * Settings of a {@link JdbcBaton}. Give either a {@link #dataSource(DataSource)} (the client
   * borrows connections from it and never closes it) or a {@link #url JDBC URL} (the client makes a
   * HikariCP pool of its own, which must then be on the class path, and closes it with itself).
   */
  public static final class Builder {
    private static final Pattern PREFIX = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*\\.)?[A-Za-z_][A-Za-z0-9_]*");
    private static final Duration MIN_TTL = Duration.ofMillis(200);
    private DataSource dataSource;
    private String url;
    private String user;
    private String password;
    private Duration leaseTtl = Duration.ofSeconds(30);
    private Duration renewEvery;
    private Duration connectTimeout = Duration.ofSeconds(10);
    private boolean createSchema;
    private String tablePrefix = "baton_";
    private String owner;
    private String shedLockTable;
    private int threads = 4;

    private Builder() {}

    /**
     * Borrow connections from {@code dataSource} (each statement takes one and gives it back at
     * once; connections not in auto-commit are switched to it for the statement and back). The pool
     * must allow {@link #threads} connections plus one, and on PostgreSQL one more, which the client
     * keeps to {@code LISTEN}: with fewer, statements wait for a connection, renewals are late, and
     * leases turn SUSPECT.
     */
    public Builder dataSource(DataSource dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
      return this;
    }

    /** Make a HikariCP pool of this URL ({@code jdbc:postgresql://...}, {@code jdbc:mariadb://...}, {@code jdbc:mysql://...}). */
    public Builder url(String url) {
      this.url = Objects.requireNonNull(url, "url");
      return this;
    }

    public Builder user(String user) {
      this.user = user;
      return this;
    }

    public Builder password(String password) {
      this.password = password;
      return this;
    }

    /** How long a lease's row lives without renewal, by the database's clock: 30 s by default, at least 200 ms. */
    public Builder leaseTtl(Duration leaseTtl) {
      this.leaseTtl = Objects.requireNonNull(leaseTtl, "leaseTtl");
      return this;
    }

    /** How often a held lease is renewed: a third of the TTL by default, at most half of it. */
    public Builder renewEvery(Duration renewEvery) {
      this.renewEvery = Objects.requireNonNull(renewEvery, "renewEvery");
      return this;
    }

    /** How long {@link #build()} waits for a first connection of its own pool: 10 s by default. */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = Objects.requireNonNull(connectTimeout, "connectTimeout");
      return this;
    }

    /** Create the lock table ({@code CREATE TABLE IF NOT EXISTS}) when building; off by default. */
    public Builder createSchema(boolean createSchema) {
      this.createSchema = createSchema;
      return this;
    }

    /** The lock table is {@code <prefix>lock}: {@code baton_} by default; {@code schema.prefix_} names a schema. */
    public Builder tablePrefix(String tablePrefix) {
      Objects.requireNonNull(tablePrefix, "tablePrefix");
      if (!PREFIX.matcher(tablePrefix + "lock").matches()) {
        throw new IllegalArgumentException("The table prefix '" + tablePrefix
            + "' must make a plain SQL name with 'lock' (letters, digits, '_', one optional 'schema.')");
      }
      this.tablePrefix = tablePrefix;
      return this;
    }

    /**
     * Keep locks in ShedLock's table {@code table} ({@code name, lock_until, locked_at, locked_by}),
     * so that this client's mutexes and ShedLock's {@code JdbcTemplateLockProvider} on the same
     * names exclude each other; configure ShedLock with {@code usingDbTime()}, so both judge {@code
     * lock_until} by the database's clock in UTC. Fencing tokens are kept in {@code <prefix>fence}.
     * ShedLock does not announce its releases, so waiters re-check on a back-off (at most a second).
     * On PostgreSQL and MySQL/MariaDB. Lock names are at most 64 characters there (ShedLock's
     * column); on MySQL they compare by the table's collation, as ShedLock's do (case-insensitive by
     * default), so names that differ only in case are one lock there.
     */
    public Builder shedLockTable(String table) {
      Objects.requireNonNull(table, "table");
      if (!PREFIX.matcher(table).matches()) {
        throw new IllegalArgumentException("The ShedLock table '" + table + "' must be a plain SQL name");
      }
      this.shedLockTable = table;
      return this;
    }

    /** What lock rows name as the holder's host: the host name by default. */
    public Builder owner(String owner) {
      this.owner = Objects.requireNonNull(owner, "owner");
      return this;
    }

    /** Threads for blocking statements (grants, renewals, releases): 4 by default. */
    public Builder threads(int threads) {
      if (threads < 1) {
        throw new IllegalArgumentException("threads must be at least 1: " + threads);
      }
      this.threads = threads;
      return this;
    }

    /**
     * Connects, detects the database, and checks (or creates) the lock table.
     *
     * @throws ConnectionException if no connection could be made within the connect timeout,
     *     naming the URL (without its parameters)
     * @throws JdbcSchemaException if the table is missing, of another shape, or not usable by the user
     * @throws IllegalArgumentException for a database other than PostgreSQL, MySQL or MariaDB, or bad settings
     */
    public JdbcBaton build() {
      if ((dataSource == null) == (url == null)) {
        throw new IllegalArgumentException("Give either a DataSource or a JDBC URL (not both, not neither)");
      }
      if (leaseTtl.compareTo(MIN_TTL) < 0) {
        throw new IllegalArgumentException("The lease TTL must be at least " + human(MIN_TTL)
            + " (a renewal must fit in it): " + human(leaseTtl));
      }
      Duration renew = renewEvery == null ? leaseTtl.dividedBy(3) : renewEvery;
      if (renew.isNegative() || renew.isZero() || renew.compareTo(leaseTtl.dividedBy(2)) > 0) {
        throw new IllegalArgumentException("The renewal period must be positive and at most half the lease TTL ("
            + human(leaseTtl) + "): " + human(renew));
      }
      if (connectTimeout.isNegative() || connectTimeout.isZero()) {
        throw new IllegalArgumentException("The connect timeout must be positive: " + connectTimeout);
      }
      String describe = url != null ? redact(url) : "the DataSource " + dataSource.getClass().getName();
      AutoCloseable pool = null;
      DataSource ds = dataSource;
      if (url != null) {
        HikariPools.Made made = HikariPools.make(url, user, password, connectTimeout, renew, threads + 2, describe);
        pool = made.pool();
        ds = made.dataSource();
      }
      try {
        Duration drift = Duration.ofNanos(Math.max(Duration.ofMillis(5).toNanos(), leaseTtl.toNanos() / 50));
        String host = owner != null ? owner : hostName();
        String product;
        try (Connection c = ds.getConnection()) {
          product = c.getMetaData().getDatabaseProductName();
        } catch (SQLException e) {
          throw new ConnectionException("Could not connect to " + describe + ": " + e.getMessage()
              + "; is the database running and reachable?", e);
        }
        Dialect dialect = shedLockTable == null ? Dialect.forProduct(product, tablePrefix + "lock")
            : Dialect.shedLock(product, shedLockTable, tablePrefix + "fence");
        if (dialect == null && shedLockTable != null) {
          throw new IllegalArgumentException("The ShedLock layout is implemented on PostgreSQL and MySQL/MariaDB; "
              + describe + " is " + product);
        }
        if (dialect == null) {
          throw new IllegalArgumentException("baton-jdbc runs on PostgreSQL and MySQL/MariaDB; " + describe
              + " is " + product);
        }
        Settings settings = new Settings(describe, leaseTtl, renew, drift, Duration.ofSeconds(1),
            dialect.table(), host, threads);
        Schemas.ensure(ds, dialect, createSchema, describe);
        JdbcSession session = new JdbcSession(ds, pool, dialect, settings);
        session.startListening();
        return new JdbcBaton(session);
      } catch (RuntimeException e) {
        closeQuietly(pool);
        throw e;
      }
    }

    private static void closeQuietly(AutoCloseable pool) {
      if (pool != null) {
        try {
          pool.close();
        } catch (Exception ignored) {
          // already failing
        }
      }
    }

    private static String hostName() {
      try {
        return InetAddress.getLocalHost().getHostName();
      } catch (java.io.IOException e) {
        return "unknown";
      }
    }

    /** The URL without its parameters (which may hold a password). */
    static String redact(String url) {
      int q = url.indexOf('?');
      String base = q < 0 ? url : url.substring(0, q);
      return base.replaceAll("//[^/@]*@", "//");
    }
  }

  /** The checks of the lock table at build time. */
  static final class Schemas {
    private Schemas() {}

    static void ensure(DataSource ds, Dialect dialect, boolean create, String describe) {
      String table = dialect.table();
      try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
        if (create) {
          try {
            for (String ddl : dialect.createStatements()) {
              s.execute(ddl);
            }
          } catch (SQLException e) {
            if (dialect.isDenied(e)) {
              throw new JdbcSchemaException(JdbcSchemaException.Problem.NO_RIGHTS, table, dialect.ddl(),
                  "The user may not create the lock table " + table + " in " + describe + " (" + e.getMessage()
                      + "); have an administrator run this DDL:\n" + dialect.ddl(), e);
            }
            throw new BatonException("Could not create the lock table " + table + " in " + describe + ": "
                + e.getMessage(), e);
          }
        }
        try (ResultSet rs = s.executeQuery(dialect.probe())) {
          String problem = dialect.shapeProblem(rs.getMetaData());
          if (problem != null) {
            throw new JdbcSchemaException(JdbcSchemaException.Problem.WRONG_SHAPE, table, dialect.ddl(),
                "The table " + table + " in " + describe + " has another shape than Baton's lock table: " + problem
                    + ". Use another tablePrefix, or a table made by this DDL:\n" + dialect.ddl(), null);
          }
        } catch (SQLException e) {
          throw schemaError(e, dialect, describe, "read");
        }
        try {
          s.executeUpdate(dialect.writeProbe());
        } catch (SQLException e) {
          throw schemaError(e, dialect, describe, "update");
        }
      } catch (SQLException e) {
        throw new ConnectionException("Could not connect to " + describe + ": " + e.getMessage(), e);
      }
    }

    private static RuntimeException schemaError(SQLException e, Dialect dialect, String describe, String doing) {
      String table = dialect.table();
      if (dialect.isMissingTable(e)) {
        return new JdbcSchemaException(JdbcSchemaException.Problem.MISSING_TABLE, table, dialect.ddl(),
            "The lock table " + table + " does not exist in " + describe + ". Run this DDL (also in the baton-jdbc"
                + " jar as dev/baton/jdbc/" + dialect.backend() + ".sql), or build with createSchema(true):\n"
                + dialect.ddl(), e);
      }
      if (dialect.isMissingColumn(e)) {
        return new JdbcSchemaException(JdbcSchemaException.Problem.WRONG_SHAPE, table, dialect.ddl(),
            "The table " + table + " in " + describe + " has another shape than Baton's lock table ("
                + e.getMessage() + "). Use another tablePrefix, or a table made by this DDL:\n" + dialect.ddl(), e);
      }
      if (dialect.isDenied(e)) {
        return new JdbcSchemaException(JdbcSchemaException.Problem.NO_RIGHTS, table, dialect.ddl(),
            "The user may not " + doing + " the lock table " + table + " in " + describe + " (" + e.getMessage()
                + "); grant it SELECT, INSERT and UPDATE on " + table, e);
      }
      return new BatonException("Could not check the lock table " + table + " in " + describe + ": "
          + e.getMessage(), e);
    }
  }
}
