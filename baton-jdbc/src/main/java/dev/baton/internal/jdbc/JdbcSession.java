package dev.baton.internal.jdbc;

import dev.baton.BatonException;
import dev.baton.ClientClosedException;
import dev.baton.ConnectionException;
import dev.baton.ConnectionState;
import dev.baton.ConnectionStateListener;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a SQL client's recipes share: the data source, the dialect, the threads (a few for
 * blocking statements, one timer, one for completing futures, one for notices), this client's
 * queues per lock name and held leases, the connection state and, on PostgreSQL, the listening
 * connection.
 */
public final class JdbcSession implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(JdbcSession.class);

  /** Work inside a transaction the caller opened. */
  @FunctionalInterface
  public interface SqlFn0<T> {
    T apply() throws SQLException;
  }

  /** Work on a connection. */
  @FunctionalInterface
  public interface SqlFn<T> {
    T apply(Connection c) throws SQLException;
  }

  private final DataSource dataSource;
  private final AutoCloseable ownPool;
  private final Dialect dialect;
  private final Settings settings;
  private final String clientId = UUID.randomUUID().toString();
  private final long pid = ProcessHandle.current().pid();
  private final AtomicLong owners = new AtomicLong();
  private final ThreadPoolExecutor io;
  private final ScheduledThreadPoolExecutor timer;
  private final ExecutorService events;
  private final ExecutorService notices;
  private final ConcurrentHashMap<String, LockQueue> queues = new ConcurrentHashMap<>();
  /** The queues of the semaphores and read-write locks, by {@link ShareRows#key}. */
  private final ConcurrentHashMap<String, ShareQueue> shareQueues = new ConcurrentHashMap<>();
  private final Set<JdbcHold> holds = ConcurrentHashMap.newKeySet();
  /** The cohorts of mutexes with local hand-over or caching, by lock name: told when another asker wants the row. */
  private final ConcurrentHashMap<String, Set<JdbcCohort>> cohorts = new ConcurrentHashMap<>();
  /** Names this client just released: since and until when (nanoTime) its waiters queued since let others try first. */
  private final ConcurrentHashMap<String, Yield> yielding = new ConcurrentHashMap<>();

  private record Yield(long since, long until) {}
  /**
   * Mutex names whose release by this client another client wanted: the token it freed, which this
   * client's next attempts yield to ({@link Dialect.Asker#yieldTo()}) until the row moves on.
   */
  private final ConcurrentHashMap<String, Long> yieldTo = new ConcurrentHashMap<>();
  /** Mutex names this client holds or awaits the release answer of: how many such holds. */
  private final ConcurrentHashMap<String, Integer> releasing = new ConcurrentHashMap<>();
  private final List<StateListener> stateListeners = new CopyOnWriteArrayList<>();
  private volatile PgListener listener;
  private volatile boolean closed;
  private ConnectionState state = ConnectionState.CONNECTED; // guarded by this
  private ScheduledFuture<?> lostCheck; // guarded by this

  private record StateListener(ConnectionStateListener listener, Executor executor) {}

  public JdbcSession(DataSource dataSource, AutoCloseable ownPool, Dialect dialect, Settings settings) {
    this.dataSource = dataSource;
    this.ownPool = ownPool;
    this.dialect = dialect;
    this.settings = settings;
    dialect.queryTimeout(settings.queryTimeoutSeconds());
    this.io = new ThreadPoolExecutor(settings.ioThreads(), settings.ioThreads(), 30, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), threads("baton-jdbc-io"));
    io.allowCoreThreadTimeOut(true);
    this.timer = new ScheduledThreadPoolExecutor(1, threads("baton-jdbc-timer"));
    timer.setRemoveOnCancelPolicy(true);
    this.events = Executors.newSingleThreadExecutor(threads("baton-jdbc-events"));
    this.notices = Executors.newSingleThreadExecutor(threads("baton-jdbc-notices"));
  }

  /** Starts listening for releases (PostgreSQL only). */
  public void startListening() {
    if (!"postgresql".equals(dialect.backend())) {
      return;
    }
    try {
      PgListener l = new PgListener(this);
      listener = l;
      l.start();
    } catch (LinkageError e) {
      log.warn("The PostgreSQL driver's LISTEN API is not visible to baton-jdbc ({}); waiters re-check on a back-off",
          e.toString());
    }
  }

  private static ThreadFactory threads(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  public Settings settings() {
    return settings;
  }

  public Dialect dialect() {
    return dialect;
  }

  public DataSource dataSource() {
    return dataSource;
  }

  long pid() {
    return pid;
  }

  String newOwnerId() {
    return clientId + "-" + owners.incrementAndGet();
  }

  /** An owner id that marks the row as cached ({@link Dialect#CACHING_MARK}): a refused asker then notifies this client. */
  String newCachingOwnerId() {
    return clientId + Dialect.CACHING_MARK + owners.incrementAndGet();
  }

  String clientId() {
    return clientId;
  }

  /** The channel releases are announced on: one per lock table. */
  String channel() {
    return dialect.table().replace('.', '_') + "_released";
  }

  String notifyPayload(String name) {
    return clientId + "|" + name;
  }

  /** How many statements this client has sent through the pool (the listening connection's aside). */
  public long statementsSent() {
    return dialect.statements();
  }

  /** Runs {@code fn} on a connection of the pool, returned at once after. */
  public <T> T run(SqlFn<T> fn) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      if (c.getAutoCommit()) {
        return fn.apply(c);
      }
      // A pool that hands out connections in a transaction: each statement here must commit by itself.
      c.setAutoCommit(true);
      try {
        return fn.apply(c);
      } finally {
        c.setAutoCommit(false);
      }
    }
  }

  void io(Runnable task) {
    io.execute(task);
  }

  ScheduledThreadPoolExecutor timer() {
    return timer;
  }

  Executor events() {
    return events;
  }

  public Executor notices() {
    return notices;
  }

  public void checkOpen() {
    if (closed) {
      throw new ClientClosedException(settings.describe(), "JdbcBaton.builder()");
    }
  }

  public boolean isClosed() {
    return closed;
  }

  LockQueue queue(String name) {
    return queues.computeIfAbsent(name, n -> new LockQueue(this, n));
  }

  /** Whether a waiter of this client is queued on the mutex {@code name}. */
  boolean waiting(String name) {
    LockQueue q = queues.get(name);
    return q != null && q.waiting();
  }

  LockQueue existingQueue(String name) {
    return queues.get(name);
  }

  /** Puts {@code waiter} in the queue of {@code key} (made by {@code make} if there is none) and starts it. */
  ShareQueue enqueue(String key, java.util.function.Supplier<ShareQueue> make, ShareQueue.Waiter waiter) {
    ShareQueue[] joined = new ShareQueue[1];
    shareQueues.compute(key, (k, q) -> {
      ShareQueue queue = q != null ? q : make.get();
      queue.enqueue(waiter);
      joined[0] = queue;
      return queue;
    });
    joined[0].start(waiter);
    return joined[0];
  }

  void forgetIfIdle(ShareQueue queue) {
    shareQueues.computeIfPresent(queue.key(), (n, q) -> q == queue && q.isIdle() ? null : q);
  }

  void forgetIfIdle(LockQueue queue) {
    queues.computeIfPresent(queue.name(), (n, q) -> q == queue && q.retireIfIdle() ? null : q);
  }

  /** A lease of this client on {@code name} ended: its next waiter may try. */
  void released(String name) {
    LockQueue q = queues.get(name);
    if (q != null) {
      q.released();
    }
    ShareQueue s = shareQueues.get(name);
    if (s != null) {
      s.released();
    }
  }

  /**
   * A release of this client on the mutex {@code name} was wanted and marked the row yielding: the
   * next waiter tries once another client's release is heard, or the yield is over (without
   * notifies: on the back-off), not at once, when the grant would only refuse it.
   */
  void releasedYielding(String name) {
    LockQueue q = queues.get(name);
    if (q != null) {
      q.releasedYielding(rowYieldNanos() + CheckQueue.GRACE_NANOS);
    }
  }

  /**
   * This client releases {@code name}: for a moment ({@link #yieldNanos()}) its waiters that queue
   * on it from now on do not try, so that a waiter of another client, woken by the release's notify
   * (or its back-off), gets the row first. The table keeps no queue, so this is how a client that
   * steps down (a leader latch joining again at once) lets the next one in rather than take the row
   * straight back. Waiters of this client that were queued before the release try at once. A mutex
   * yields only when the row says another asker was refused it ({@link Dialect.Released#wanted()})
   * or its holder was a leader; otherwise {@link #stopYielding} ends the moment once the release is
   * answered, so that a lock nobody else wants changes hands within this client at full speed.
   */
  void yieldAfterRelease(String name) {
    yieldFor(name, yieldNanos());
  }

  /**
   * As {@link #yieldAfterRelease}, for a leader stepping down: twice as long (a renewal period, at
   * most 500 ms), since the next candidate's attempt, woken by the notify, must land within it
   * however busy its machine, or this client takes the leadership straight back and keeps it.
   */
  void yieldAfterStepDown(String name) {
    yieldFor(name, 2 * yieldNanos());
  }

  private void yieldFor(String name, long grace) {
    long now = System.nanoTime();
    Yield y = yielding.compute(name, (n, old) -> new Yield(old != null ? old.since() : now, now + grace));
    try {
      timer.schedule(() -> yielding.remove(name, y), grace, TimeUnit.NANOSECONDS);
    } catch (java.util.concurrent.RejectedExecutionException ignored) {
      yielding.remove(name, y); // closing
    }
  }

  /**
   * A hold of this client on the mutex {@code name} starts: until it ends, released (with the
   * release answered, {@link #releaseAnswered}) or lost ({@link #holdEnded}), the client's queue on
   * the name makes no attempt. One would be refused, and would mark the row wanted as if another
   * client waited; and one sent just before a release, whose answer has not yet said whether to
   * yield, must not take the row back from the client that wanted it.
   */
  void holdStarted(String name) {
    releasing.merge(name, 1, Integer::sum);
  }

  /** A hold of this client on the mutex {@code name} ended (see {@link #holdStarted}). */
  void holdEnded(String name) {
    releasing.computeIfPresent(name, (n, count) -> count == 1 ? null : count - 1);
  }

  /**
   * The release of the mutex {@code name} at {@code token} was answered, and the hold is over: if another client wanted
   * the row ({@code wanted}), this client's attempts yield to it until another asker takes the row,
   * or nobody does for a moment ({@link #yieldMicros()}); the database judges both in the grant.
   */
  void releaseAnswered(String name, long token, boolean wanted) {
    if (wanted) {
      yieldTo.put(name, token);
      try {
        // Only to forget the name: once the moment is over, the grant no longer yields anyway.
        timer.schedule(() -> yieldTo.remove(name, token), rowYieldNanos(), TimeUnit.NANOSECONDS);
      } catch (java.util.concurrent.RejectedExecutionException ignored) {
        yieldTo.remove(name, token); // closing
      }
    }
    holdEnded(name);
  }

  /** Whether this client holds the mutex {@code name}, or awaits the answer to its release. */
  boolean releaseInFlight(String name) {
    return releasing.containsKey(name);
  }

  /** The token this client's attempts on the mutex {@code name} yield to, or -1 ({@link Dialect.Asker#yieldTo()}). */
  long yieldToken(String name) {
    Long token = yieldTo.get(name);
    return token == null ? -1 : token;
  }

  /** An attempt on {@code name} found the row past {@code token} (or was granted): nothing left to yield to. */
  void yielded(String name, long token) {
    if (token >= 0) {
      yieldTo.remove(name, token);
    }
  }

  /** An attempt on the mutex {@code name}, from {@code owner} on {@code thread}, yielding as this client must. */
  Dialect.Asker asker(String name, String owner, String thread) {
    return new Dialect.Asker(owner, settings.host(), pid, thread, yieldToken(name), yieldMicros());
  }

  /** How long after a wanted release of a mutex this client's attempts still yield ({@link #rowYieldNanos}). */
  long yieldMicros() {
    return TimeUnit.NANOSECONDS.toMicros(rowYieldNanos());
  }

  /**
   * How long after a wanted release of a mutex this client's attempts yield to the client that
   * wanted it, unless that client takes the row first ({@link #releaseAnswered}). Where releases
   * are not heard (MySQL has no notify), the waiting client tries again on its back-off, which grows
   * to {@link Settings#maxBackoff()} while a holder keeps refusing it: the moment covers that
   * back-off too, or the releasing client would take the row back whenever the other's back-off
   * had outgrown the moment. Never more than half a renewal period.
   */
  private long rowYieldNanos() {
    long yield = yieldNanos();
    if (listener != null) {
      return yield;
    }
    return Math.max(yield, Math.min(settings.renewEvery().toNanos() / 2, yield + settings.maxBackoff().toNanos()));
  }

  /** This client's release of {@code name} was wanted by no other client: its waiters try at once. */
  void stopYielding(String name) {
    yielding.remove(name);
  }

  /**
   * How long a waiter of this client on {@code name}, queued at {@code queuedNanos}, still lets other
   * clients go first: 0 unless it queued after this client's release of the name, a moment ago.
   */
  long yieldingNanos(String name, long queuedNanos) {
    Yield y = yielding.get(name);
    if (y == null || queuedNanos - y.since() < 0) {
      return 0;
    }
    return Math.max(0, y.until() - System.nanoTime());
  }

  /** Half a renewal period, at most 250 ms: long enough for a notified client's one statement. */
  private long yieldNanos() {
    return Math.min(settings.renewEvery().toNanos() / 2, TimeUnit.MILLISECONDS.toNanos(250));
  }

  /** Frees the row of {@code name} if it names {@code owner}, in the background, retried once; it expires with its TTL otherwise. */
  void abandon(String name, String owner) {
    Runnable attempt = () -> {
      for (int i = 0; i < 2; i++) {
        try {
          run(c -> dialect.abandon(c, name, owner, channel(), notifyPayload(name)));
          return;
        } catch (SQLException | RuntimeException e) {
          log.debug("Could not free {} for {}: {}", name, owner, e.toString());
        }
      }
    };
    try {
      io.execute(attempt);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      attempt.run(); // closing: try on this thread
    }
  }

  void addCohort(JdbcCohort cohort) {
    cohorts.compute(cohort.name(), (n, set) -> {
      Set<JdbcCohort> s = set != null ? set : ConcurrentHashMap.newKeySet();
      s.add(cohort);
      return s;
    });
  }

  void removeCohort(JdbcCohort cohort) {
    cohorts.computeIfPresent(cohort.name(), (n, set) -> {
      set.remove(cohort);
      return set.isEmpty() ? null : set;
    });
  }

  /** Another client (or mutex object) was refused {@code name}: a cohort that caches it gives it up. */
  void wanted(String name) {
    Set<JdbcCohort> set = cohorts.get(name);
    if (set != null) {
      set.forEach(JdbcCohort::wantedElsewhere);
    }
  }

  /** Another client released {@code name}, or was refused it while this client cached it (PostgreSQL's notify). */
  void heard(String payload) {
    if (payload.startsWith(Dialect.wantedPayload(""))) {
      wanted(payload.substring(Dialect.wantedPayload("").length()));
      return;
    }
    int bar = payload.indexOf('|');
    if (bar < 0 || payload.substring(0, bar).equals(clientId)) {
      return; // our own releases wake our waiters directly
    }
    LockQueue q = queues.get(payload.substring(bar + 1));
    if (q != null) {
      q.wake();
    }
    ShareQueue s = shareQueues.get(payload.substring(bar + 1));
    if (s != null) {
      s.wake();
    }
  }

  /** The listening connection is (back) up: releases may have been missed, so every queue checks. */
  void listeningResumed() {
    queues.values().forEach(LockQueue::wake);
    shareQueues.values().forEach(ShareQueue::wake);
  }

  boolean listening() {
    PgListener l = listener;
    return l != null && l.isListening();
  }

  void register(JdbcHold hold) {
    holds.add(hold);
    if (closed) {
      hold.releaseNow();
    }
  }

  void unregister(JdbcHold hold) {
    holds.remove(hold);
  }

  /** A statement succeeded: the database is reachable. */
  void succeeded() {
    synchronized (this) {
      if (state.isConnected()) {
        return;
      }
      if (lostCheck != null) {
        lostCheck.cancel(false);
      }
      state = ConnectionState.RECONNECTED;
    }
    tell(ConnectionState.RECONNECTED);
  }

  /** A statement failed: if for want of a connection, the client is SUSPENDED and every lease SUSPECT. */
  void failed(Throwable e) {
    if (isConnectionFailure(e)) {
      unreachable();
    }
  }

  /**
   * The database does not answer (a statement failed for want of a connection, a renewal hangs,
   * the listening connection dropped): the client is SUSPENDED, its listeners hear so, and only then
   * is every lease SUSPECT. Until a statement succeeds again, a probe tries the database every
   * renewal period, so that the client hears it is back even with nothing left to renew.
   */
  void unreachable() {
    synchronized (this) {
      if (!state.isConnected() || closed) {
        return;
      }
      state = ConnectionState.SUSPENDED;
      try {
        lostCheck = timer.schedule(this::presumeLost, settings.leaseTtl().toNanos(), TimeUnit.NANOSECONDS);
      } catch (java.util.concurrent.RejectedExecutionException ignored) {
        // closing
      }
    }
    tell(ConnectionState.SUSPENDED);
    holds.forEach(JdbcHold::suspect);
    scheduleProbe();
  }

  private void scheduleProbe() {
    try {
      timer.schedule(() -> {
        try {
          io.execute(this::probe);
        } catch (java.util.concurrent.RejectedExecutionException ignored) {
          // closing
        }
      }, settings.renewEvery().toNanos(), TimeUnit.NANOSECONDS);
    } catch (java.util.concurrent.RejectedExecutionException ignored) {
      // closing
    }
  }

  /** While not connected: is the database reachable again? */
  private void probe() {
    if (closed || connectionState().isConnected()) {
      return;
    }
    boolean valid;
    try {
      valid = run(c -> c.isValid(settings.queryTimeoutSeconds()));
    } catch (SQLException | RuntimeException e) {
      log.debug("The database {} is still unreachable: {}", settings.describe(), e.toString());
      valid = false;
    }
    if (valid) {
      succeeded();
    } else if (!closed && !connectionState().isConnected()) {
      scheduleProbe();
    }
  }

  private void presumeLost() {
    synchronized (this) {
      if (state != ConnectionState.SUSPENDED) {
        return;
      }
      state = ConnectionState.LOST;
    }
    tell(ConnectionState.LOST);
  }

  static boolean isConnectionFailure(Throwable e) {
    if (e instanceof SQLTransientConnectionException || e instanceof SQLNonTransientConnectionException
        || e instanceof SQLTimeoutException) {
      return true;
    }
    if (e instanceof SQLException s) {
      String st = s.getSQLState();
      // 08: connection exceptions; 57: operator intervention (a shutdown, a statement cancelled on its timeout)
      return st != null && (st.startsWith("08") || st.startsWith("57") || st.equals("HYT00"));
    }
    return false;
  }

  public synchronized ConnectionState connectionState() {
    return state;
  }

  public void addStateListener(ConnectionStateListener l, Executor executor) {
    stateListeners.add(new StateListener(l, executor == null ? notices : executor));
  }

  public void removeStateListener(ConnectionStateListener l) {
    stateListeners.removeIf(s -> s.listener() == l);
  }

  private void tell(ConnectionState next) {
    for (StateListener s : stateListeners) {
      try {
        s.executor().execute(() -> s.listener().stateChanged(next));
      } catch (java.util.concurrent.RejectedExecutionException e) {
        log.debug("A connection-state listener was not told of {}", next);
      }
    }
  }

  /** A failed statement, as the caller sees it: which database, doing what, and why. */
  public BatonException error(String doing, SQLException e) {
    if (isConnectionFailure(e)) {
      return new ConnectionException("Lost the connection to " + settings.describe() + " while " + doing
          + ": " + e.getMessage(), e);
    }
    return new BatonException("The database " + settings.describe() + " refused " + doing + ": " + e.getMessage()
        + " (SQLState " + e.getSQLState() + ")", e);
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (LockQueue q : queues.values()) {
      for (LockQueue.Waiter w : q.snapshot()) {
        w.future.completeExceptionally(new ClientClosedException(settings.describe(), "JdbcBaton.builder()"));
      }
    }
    for (ShareQueue q : shareQueues.values()) {
      for (ShareQueue.Waiter w : q.snapshot()) {
        w.future.completeExceptionally(new ClientClosedException(settings.describe(), "JdbcBaton.builder()"));
      }
    }
    for (JdbcHold h : holds) {
      h.releaseNow();
    }
    PgListener l = listener;
    if (l != null) {
      l.close();
    }
    timer.shutdownNow();
    io.shutdown();
    try {
      io.awaitTermination(settings.queryTimeoutSeconds() + 1L, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    io.shutdownNow();
    events.shutdown();
    notices.shutdown();
    if (ownPool != null) {
      try {
        ownPool.close();
      } catch (Exception e) {
        log.debug("Closing the pool of {} failed", settings.describe(), e);
      }
    }
  }
}
