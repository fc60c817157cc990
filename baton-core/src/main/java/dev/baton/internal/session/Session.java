package dev.baton.internal.session;

import dev.baton.BatonInterruptedException;
import dev.baton.ClientClosedException;
import dev.baton.ConnectStrings;
import dev.baton.ConnectionException;
import dev.baton.ConnectionState;
import dev.baton.ConnectionStateListener;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client's ZooKeeper session: the handle, the connection state machine, and a new handle
 * after expiry. Every recipe stands on it.
 *
 * <p>Why a lease can be trusted until {@link #validUntilNanos()}: the ZooKeeper client drops a
 * connection on which it has heard nothing for two thirds of the negotiated session timeout (its
 * read timeout), while the ensemble ends a session only after the whole timeout without hearing
 * from the client. So while connected, the last contact is at most a read timeout ago, and once
 * disconnected it is at most a read timeout before the disconnect was noticed. Adding the session
 * timeout, less a margin for clock-rate drift and event delivery, gives an instant before which
 * the session, and every ephemeral node of it, is certainly alive. Suspect and lost leases are
 * therefore reported before the ensemble can hand their lock to anyone else.
 *
 * <p>State changes are processed on the ZooKeeper event thread of the current handle (internal
 * observers are called there and must not block). Two executors run user code: the notice
 * executor ({@link #noticeExecutor()}) tells connection-state, lease and leadership listeners, and
 * nothing else runs on it; the event executor ({@link #eventExecutor()}) completes async results
 * and runs data listeners. A loss must be heard before another client can be granted, and user
 * code chained on an async result ({@code thenAccept}) runs on the thread that completed it: were
 * it the notice thread, one slow job would hold every loss notice behind it.
 */
public final class Session implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Session.class);
  private static final AtomicInteger CLIENT_IDS = new AtomicInteger();

  private final ClientSettings settings;
  private final int clientId = CLIENT_IDS.incrementAndGet();
  private final ScheduledThreadPoolExecutor scheduler;
  private final ExecutorService ownEventExecutor;
  private final Executor eventExecutor;
  private final ExecutorService noticeExecutor;
  private final Object lock = new Object();
  private final Set<SessionObserver> observers = ConcurrentHashMap.newKeySet();
  private final Map<ConnectionStateListener, Executor> listeners = new ConcurrentHashMap<>();
  private final CountDownLatch firstConnection = new CountDownLatch(1);

  // Guarded by lock; volatile for lock-free reads.
  private volatile Handle handle;
  private volatile ConnectionState state;
  private volatile boolean closed;
  private volatile long suspendedAtNanos;
  private volatile long negotiatedTimeoutNanos;
  private ScheduledFuture<?> presumedLoss;
  private int generations;

  private Session(ClientSettings settings, Executor eventExecutor) {
    this.settings = settings;
    this.negotiatedTimeoutNanos = settings.sessionTimeout().toNanos();
    this.scheduler = new ScheduledThreadPoolExecutor(1, threads("baton-" + clientId + "-timer"));
    this.scheduler.setRemoveOnCancelPolicy(true);
    this.noticeExecutor = Executors.newSingleThreadExecutor(threads("baton-" + clientId + "-notices"));
    if (eventExecutor == null) {
      this.ownEventExecutor = Executors.newSingleThreadExecutor(threads("baton-" + clientId + "-events"));
      this.eventExecutor = ownEventExecutor;
    } else {
      this.ownEventExecutor = null;
      this.eventExecutor = eventExecutor;
    }
  }

  /**
   * Opens the session and waits for the first connection.
   *
   * @throws ConnectionException naming the connect string when no server answers in time
   */
  public static Session open(ClientSettings settings, Executor eventExecutor) {
    Session session = new Session(settings, eventExecutor);
    try {
      synchronized (session.lock) {
        session.handle = session.newHandle();
      }
      long waitNanos = Durations.timeoutNanos(settings.connectionTimeout());
      if (waitNanos < 0) {
        session.firstConnection.await();
      } else if (!session.firstConnection.await(waitNanos, TimeUnit.NANOSECONDS)) {
        throw new ConnectionException(settings.connectString(), settings.connectionTimeout(),
                unresolvableHosts(settings.connectString())
                + (settings.usesTls() ? " With TLS, check that these are the servers' secure client ports"
                    + " (secureClientPort), that the trust store holds their certificate or its CA's, that the"
                    + " certificate names the host as written here, and that the server accepts the client"
                    + " certificate if it requires one" : ""));
      }
      try {
        session.ensureNamespace();
      } catch (java.util.concurrent.CompletionException e) {
        throw Errors.translate(e, "namespace " + settings.namespace());
      }
      return session;
    } catch (InterruptedException e) {
      session.close();
      Thread.currentThread().interrupt();
      throw new BatonInterruptedException("Interrupted while connecting to " + settings.connectString(), e);
    } catch (RuntimeException e) {
      session.close();
      throw e;
    }
  }

  /**
   * Opens the session without waiting: ZooKeeper's client connects in the background, retrying
   * for as long as it takes, and {@link #state()} is {@link ConnectionState#SUSPENDED} until the
   * first connection, which observers and listeners hear as {@link ConnectionState#CONNECTED}.
   * The namespace is not created up front: every recipe creates its missing parents, namespace
   * included, when it first writes.
   *
   * @throws ConnectionException if ZooKeeper's client refuses the settings (e.g. no host resolves)
   */
  public static Session openInBackground(ClientSettings settings, Executor eventExecutor) {
    Session session = new Session(settings, eventExecutor);
    try {
      synchronized (session.lock) {
        session.handle = session.newHandle();
      }
      return session;
    } catch (RuntimeException e) {
      session.close();
      throw e;
    }
  }

  private Handle newHandle() {
    int generation = ++generations;
    Handle created = new Handle(generation);
    try {
      ZKClientConfig config = settings.zkClientConfig();
      ZooKeeper zk = new ZooKeeper(
          settings.connectString(), (int) settings.sessionTimeout().toMillis(),
          event -> onEvent(created, event), config);
      if (settings.authUser() != null) {
        zk.addAuthInfo("digest",
            (settings.authUser() + ":" + settings.authPassword()).getBytes(StandardCharsets.UTF_8));
      }
      created.zk = zk;
      return created;
    } catch (IOException | IllegalArgumentException e) {
      throw new ConnectionException(
          "Cannot connect to ZooKeeper at " + settings.connectString() + ": " + e.getMessage(), e);
    }
  }

  /** Names the hosts that do not resolve, as the likely reason a connect timed out. */
  private static String unresolvableHosts(String connectString) {
    StringBuilder unresolved = new StringBuilder();
    for (String entry : connectString.split(",")) {
      String host = ConnectStrings.host(entry.trim());
      try {
        java.net.InetAddress.getByName(host);
      } catch (java.net.UnknownHostException e) {
        unresolved.append(unresolved.length() == 0 ? "" : ", ").append(host);
      }
    }
    return unresolved.length() == 0 ? "" : " (cannot resolve host name " + unresolved + ")";
  }

  private void ensureNamespace() {
    if (!settings.namespace().isEmpty()) {
      Nodes.createParents(this, settings.namespace() + "/x").join();
    }
  }

  private void onEvent(Handle source, WatchedEvent event) {
    if (event.getType() != Watcher.Event.EventType.None) {
      return;
    }
    ConnectionState next = null;
    Handle expired = null;
    synchronized (lock) {
      if (source != handle || closed) {
        return;
      }
      switch (event.getState()) {
        case SyncConnected, ConnectedReadOnly -> {
          source.sessionId = source.zk.getSessionId();
          negotiatedTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(source.zk.getSessionTimeout());
          cancelPresumedLoss();
          if (state == null) {
            next = ConnectionState.CONNECTED;
          } else if (!state.isConnected()) {
            next = ConnectionState.RECONNECTED;
          }
        }
        case Disconnected -> {
          if (state != null && state.isConnected()) {
            suspendedAtNanos = System.nanoTime();
            long untilLost = validUntilNanos() - suspendedAtNanos;
            presumedLoss = scheduler.schedule(
                () -> presumeLost(source), Math.max(untilLost, 0), TimeUnit.NANOSECONDS);
            next = ConnectionState.SUSPENDED;
          }
        }
        case Expired -> {
          source.expired = true;
          cancelPresumedLoss();
          expired = source;
          if (state != ConnectionState.LOST) {
            next = ConnectionState.LOST;
          }
          log.warn("ZooKeeper session 0x{} at {} expired; opening a new one",
              Long.toHexString(source.sessionId), settings.connectString());
          try {
            handle = newHandle();
          } catch (RuntimeException e) {
            log.error("Cannot open a new session at {}; trying again", settings.connectString(), e);
            scheduleReopen(source, 1);
          }
        }
        case AuthFailed -> log.error(
            "Authentication failed for the session at {}; check the digest credentials or the TLS client certificate",
            settings.connectString());
        default -> { }
      }
      if (next != null) {
        state = next;
      }
    }
    if (expired != null) {
      closeQuietly(expired);
      if (next == null) {
        // Already presumed lost: users heard LOST, but recipes must still learn of the expiry
        // itself (a waiter queues again only once its session is certainly gone).
        notifyObservers(ConnectionState.LOST, source);
      }
    }
    if (next != null) {
      publish(next, source);
    }
  }

  /**
   * Opening the handle that replaces an expired one failed (no host resolves for a while, say):
   * tries again after the retry policy's pause, for as long as the client is open. Without it the
   * client would stay on the expired handle, which never hears of the ensemble again.
   */
  private void scheduleReopen(Handle expired, int attempt) {
    long delay = Math.max(settings.retryPolicy().delayBefore(Math.min(attempt, 10)).toNanos(), 1_000_000);
    try {
      scheduler.schedule(() -> reopen(expired, attempt), delay, TimeUnit.NANOSECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      log.debug("Not opening a new session: the client is closing");
    }
  }

  private void reopen(Handle expired, int attempt) {
    synchronized (lock) {
      if (closed || handle != expired) {
        return;
      }
      try {
        handle = newHandle();
      } catch (RuntimeException e) {
        log.warn("Cannot open a new session at {} (attempt {}): {}; trying again", settings.connectString(),
            attempt + 1, e.getMessage());
        scheduleReopen(expired, attempt + 1);
        return;
      }
    }
    // The recipes heard LOST while there was no new handle to queue on: there is one now.
    notifyObservers(ConnectionState.LOST, expired);
  }

  /** Silence past the validity bound: ephemeral nodes of the session can no longer be trusted. */
  private void presumeLost(Handle source) {
    synchronized (lock) {
      if (source != handle || closed || state != ConnectionState.SUSPENDED) {
        return;
      }
      state = ConnectionState.LOST;
    }
    log.warn("No contact with {} for longer than the session allows; presuming session 0x{} lost",
        settings.connectString(), Long.toHexString(source.sessionId));
    publish(ConnectionState.LOST, source);
  }

  /**
   * Tells the connection-state listeners, then the recipes. The listeners' calls are handed to
   * their executors first, so that on one executor (the notice executor by default, a single
   * thread) a listener hears SUSPENDED, RECONNECTED or LOST before any recipe listener hears
   * what the recipe made of it ("leader again" comes after RECONNECTED, as in Curator). The
   * recipes' own state (a lease's, a latch's) changes at once all the same.
   */
  private void publish(ConnectionState next, Handle source) {
    listeners.forEach((listener, executor) -> executeQuietly(executor, () -> listener.stateChanged(next)));
    notifyObservers(next, source);
    if (next == ConnectionState.CONNECTED) {
      firstConnection.countDown();
    }
  }

  private void notifyObservers(ConnectionState next, Handle source) {
    for (SessionObserver observer : observers) {
      try {
        observer.connectionStateChanged(next, source);
      } catch (RuntimeException e) {
        log.error("Internal observer failed on {}", next, e);
      }
    }
  }

  private void cancelPresumedLoss() {
    if (presumedLoss != null) {
      presumedLoss.cancel(false);
      presumedLoss = null;
    }
  }

  /**
   * The instant (in {@link System#nanoTime()} terms) before which the session's ephemeral nodes
   * are certainly alive; in the past once the session is lost or the client closed.
   */
  public long validUntilNanos() {
    ConnectionState current = state;
    long now = System.nanoTime();
    if (closed || current == null || current == ConnectionState.LOST) {
      return now - 1;
    }
    long timeout = negotiatedTimeoutNanos;
    long readTimeout = timeout * 2 / 3;
    long margin = Math.max(timeout / 10, TimeUnit.MILLISECONDS.toNanos(20));
    long lastContactAtLeast = (current.isConnected() ? now : suspendedAtNanos) - readTimeout;
    return lastContactAtLeast + timeout - margin;
  }

  public ClientSettings settings() {
    return settings;
  }

  public ConnectionState state() {
    ConnectionState current = state;
    return current == null ? ConnectionState.SUSPENDED : current;
  }

  /** The current handle; it changes after session expiry. */
  public Handle handle() {
    return handle;
  }

  public long sessionId() {
    return handle.sessionId;
  }

  public Duration negotiatedSessionTimeout() {
    return Duration.ofNanos(negotiatedTimeoutNanos);
  }

  /** Where async results complete and data listeners (caches, config, registry) run by default. */
  public Executor eventExecutor() {
    return eventExecutor;
  }

  /**
   * The client's own single thread for connection-state, lease and leadership notices: no async
   * result completes on it, so user code chained on one cannot delay a loss notice.
   */
  public Executor noticeExecutor() {
    return noticeExecutor;
  }

  public ScheduledThreadPoolExecutor scheduler() {
    return scheduler;
  }

  public boolean isClosed() {
    return closed;
  }

  public void checkOpen() {
    if (closed) {
      throw new ClientClosedException(settings.connectString());
    }
  }

  /** How many internal observers are registered: a leak shows here (diagnostics and tests). */
  public int observerCount() {
    return observers.size();
  }

  public void addObserver(SessionObserver observer) {
    observers.add(observer);
  }

  public void removeObserver(SessionObserver observer) {
    observers.remove(observer);
  }

  public void addStateListener(ConnectionStateListener listener, Executor executor) {
    listeners.put(listener, executor);
  }

  public void removeStateListener(ConnectionStateListener listener) {
    listeners.remove(listener);
  }

  /** Runs {@code task} on the scheduler after {@code delayNanos}, or at once if closing. */
  public void schedule(Runnable task, long delayNanos) {
    try {
      scheduler.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      task.run();
    }
  }

  /** Runs a user callback on {@code executor}; a failing callback is logged, never propagated. */
  public static void executeQuietly(Executor executor, Runnable callback) {
    try {
      executor.execute(() -> {
        try {
          callback.run();
        } catch (RuntimeException e) {
          log.error("A Baton listener threw", e);
        }
      });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      log.debug("Listener not run: its executor is shut down");
    }
  }

  /**
   * Closes the session: observers are told first (waiters fail, leases end), then the handle is
   * closed, which ends the session on the ensemble and removes its ephemeral nodes at once.
   */
  @Override
  public void close() {
    Handle last;
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      cancelPresumedLoss();
      last = handle;
    }
    for (SessionObserver observer : observers) {
      try {
        observer.sessionClosed();
      } catch (RuntimeException e) {
        log.error("Internal observer failed on close", e);
      }
    }
    observers.clear();
    if (last != null) {
      closeQuietly(last);
    }
    firstConnection.countDown();
    scheduler.shutdownNow();
    drain(noticeExecutor, "-notices");
    if (ownEventExecutor != null) {
      drain(ownEventExecutor, "-events");
    }
  }

  /** Lets the notices and results already handed over run, unless called from that very thread. */
  private void drain(ExecutorService executor, String threadSuffix) {
    executor.shutdown();
    if (!Thread.currentThread().getName().equals("baton-" + clientId + threadSuffix)) {
      try {
        executor.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static void closeQuietly(Handle h) {
    if (h.zk == null) {
      return;
    }
    try {
      h.zk.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      log.debug("Closing a ZooKeeper handle failed", e);
    }
  }

  private static ThreadFactory threads(String name) {
    return runnable -> {
      Thread thread = new Thread(runnable, name);
      thread.setDaemon(true);
      return thread;
    };
  }

  /** One ZooKeeper handle, i.e. one session; replaced after expiry. */
  public static final class Handle {
    final int generation;
    volatile ZooKeeper zk;
    volatile long sessionId;
    volatile boolean expired;

    public Handle(int generation) {
      this.generation = generation;
    }

    public ZooKeeper zk() {
      return zk;
    }

    public long sessionId() {
      return sessionId;
    }

    public boolean isExpired() {
      return expired;
    }

    @Override
    public String toString() {
      return "session 0x" + Long.toHexString(sessionId);
    }
  }
}
