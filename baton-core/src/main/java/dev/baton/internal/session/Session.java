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
 * <p>Why a lease can be trusted until {@link #validUntilNanos()}: the ensemble ends a session only
 * after the whole negotiated timeout T without hearing from the client, so the session, and every
 * ephemeral node of it, lives until T after the client last reached the server. The validity is
 * that instant, less a margin for clock-rate drift and delivery, for the latest of these lower
 * bounds of the last contact that holds:
 * <ul>
 *   <li>The read timeout: ZooKeeper's client drops a connection on which it has heard nothing for
 *       R = 2/3 T, so while connected it heard something at most R ago, and once disconnected at
 *       most R before the disconnect was noticed. That something is an answer to a request (a
 *       ping at least) that the server heard just before answering.</li>
 *   <li>The last event: the client sends something (a ping at least) whenever it has said nothing
 *       for R/2, so a link that carried a watch event carried the client's words up to R/2 before
 *       it.</li>
 *   <li>The probe: the send time of the latest {@code exists} of ours whose answer came back.</li>
 * </ul>
 * The read timeout does not hold when an event was the last thing heard (issue 32): the client
 * counts any packet as contact, but the server sends an event without having heard the client, so
 * an event just before the link went silent would stretch the bound up to R/2 past the server's
 * expiry. Every watch of ours therefore goes through {@link #watching}, which marks an event as
 * heard after the latest answer; while one is, the last event's and the probe's bounds count
 * instead, while a lease is held ({@link #holding}). The event thread delivers events and answers
 * in the order they arrived, and the disconnect after both, so at a disconnect it is known exactly
 * whether an event came last. With a lease held, an event sends a probe (cheap, at most one in
 * flight) unless one was answered less than R/2 ago, else once that is R/2 old: its answer, coming
 * after the event, puts an answer last again, and it has at least 2/3 T less the margin to come
 * before the bound runs out. With none, the probe goes R/2 after the last event, so that a lease
 * taken later finds the mark at most that old (request-counting tests see no probe). Only the
 * probe's answers are timed: recipes' own requests are not touched. The last event's bound
 * assumes that a link fails both ways at once, as the read timeout itself does for pings; a link
 * that carries the server's words but not the client's for long is not covered. If the bound runs out
 * while an event is still the last thing heard, ZooKeeper's client may not have noticed the
 * silence yet (the event reset its timer), so the session is suspended and presumed lost at once;
 * a probe answered after that shows the session alive, told as {@code RECONNECTED}. Suspect and
 * lost leases are therefore reported before the ensemble can hand their lock to anyone else,
 * events or not; without events, nothing changes and no probe is sent. A claimed queue item's
 * {@code isValid()} is not a lease here: it keeps the read timeout's bound.
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
  private volatile long suspendedValidUntilNanos;
  private volatile long negotiatedTimeoutNanos;
  // The probe's bound and whether a watch event was heard after the latest answer (class comment):
  // set on the current handle's event thread, except the reset for a new handle.
  private volatile long lastAnsweredSendNanos;
  private volatile long lastEventNanos;
  private volatile boolean eventSinceAnswer;
  private final Object probes = new Object();
  private Handle probing; // guarded by probes: the handle a probe is in flight on
  private ScheduledFuture<?> probeLater; // guarded by probes
  private long probeLaterAt; // guarded by probes
  private final Set<Object> holders = ConcurrentHashMap.newKeySet();
  private ScheduledFuture<?> validityCheck; // guarded by probes
  private long validityCheckAt; // guarded by probes
  private boolean presumedWhileConnected; // guarded by lock
  private ScheduledFuture<?> presumedLoss;
  private int suspensions; // guarded by lock: which suspension a presumed-loss timer belongs to
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
    resetContact();
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
      heard(event); // a watch set with the default watcher
      return;
    }
    ConnectionState next = null;
    Handle expired = null;
    int suspension = 0;
    synchronized (lock) {
      if (source != handle || closed) {
        return;
      }
      switch (event.getState()) {
        case SyncConnected, ConnectedReadOnly -> {
          source.sessionId = source.zk.getSessionId();
          negotiatedTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(source.zk.getSessionTimeout());
          // The connect's answer is what the client heard last: every earlier event came before it.
          eventSinceAnswer = false;
          presumedWhileConnected = false;
          cancelPresumedLoss();
          if (state == null) {
            next = ConnectionState.CONNECTED;
          } else if (!state.isConnected()) {
            next = ConnectionState.RECONNECTED;
          }
        }
        case Disconnected -> {
          presumedWhileConnected = false;
          if (state != null && state.isConnected()) {
            suspendedAtNanos = System.nanoTime();
            // Every event and answer that came before the disconnect has been handled by now.
            suspendedValidUntilNanos = validUntil(suspendedAtNanos);
            suspension = ++suspensions;
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
    if (suspension != 0) {
      schedulePresumedLoss(source, suspension);
    }
  }

  /**
   * After SUSPENDED is told, so that LOST never overtakes it, even when the validity is already
   * over (a watch event came last and no probe answered since).
   */
  private void schedulePresumedLoss(Handle source, int suspension) {
    boolean now = false;
    synchronized (lock) {
      if (source != handle || closed || state != ConnectionState.SUSPENDED || suspension != suspensions) {
        return;
      }
      long untilLost = suspendedValidUntilNanos - System.nanoTime();
      if (untilLost <= 0) {
        now = true;
      } else {
        try {
          presumedLoss = scheduler.schedule(() -> presumeLost(source, suspension), untilLost, TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
          now = true;
        }
      }
    }
    if (now) {
      presumeLost(source, suspension);
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
  private void presumeLost(Handle source, int suspension) {
    synchronized (lock) {
      if (source != handle || closed || state != ConnectionState.SUSPENDED || suspension != suspensions) {
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
   * are certainly alive (see the class comment); in the past once the session is lost or the
   * client closed. While suspended it stays what it was when the disconnect was noticed.
   */
  public long validUntilNanos() {
    ConnectionState current = state;
    long now = System.nanoTime();
    if (closed || current == null || current == ConnectionState.LOST) {
      return now - 1;
    }
    return current.isConnected() ? validUntil(now) : suspendedValidUntilNanos;
  }

  /**
   * The latest of the bounds of the class comment that hold: the probe's, and the read timeout's
   * counted from {@code heardBy}, or the last event's if an event came after the latest answer.
   */
  private long validUntil(long heardBy) {
    long timeout = negotiatedTimeoutNanos;
    long margin = Math.max(timeout / 10, TimeUnit.MILLISECONDS.toNanos(20));
    // Taint read first: an answer clears it after moving the probe's bound on, and an event sets
    // it after its time is stored.
    boolean eventLast = eventSinceAnswer && !holders.isEmpty();
    long byProbe = lastAnsweredSendNanos + timeout - margin;
    long contact = eventLast ? lastEventNanos - readTimeout(timeout) / 2 : heardBy - readTimeout(timeout);
    long byLink = contact + timeout - margin;
    return byLink - byProbe > 0 ? byLink : byProbe;
  }

  /** ZooKeeper's client drops a link on which it heard nothing this long (ClientCnxn). */
  private static long readTimeout(long sessionTimeout) {
    return sessionTimeout * 2 / 3;
  }

  /**
   * {@code watcher}, made to tell this session of every event the server sends it before it
   * reacts (see the class comment). Every watch a recipe sets on this session's handles must be
   * set with a watcher made here, else an event just before a silent link can make a lease claim
   * longer than the server keeps the session. Make it once per watch and keep it, so that the
   * watch can be removed by it.
   */
  public Watcher watching(Watcher watcher) {
    java.util.Objects.requireNonNull(watcher, "watcher");
    return event -> {
      heard(event);
      watcher.process(event);
    };
  }

  /**
   * On an event thread, in the order packets arrived, before the event's watcher reacts: so a
   * probe sent here goes out before the requests the watcher sends. Connection states and the
   * client's own "watch removed" events are not packets from the server.
   */
  private void heard(WatchedEvent event) {
    switch (event.getType()) {
      case NodeCreated, NodeDeleted, NodeDataChanged, NodeChildrenChanged -> { }
      default -> {
        return;
      }
    }
    lastEventNanos = System.nanoTime();
    eventSinceAnswer = true;
    synchronized (probes) {
      keepBoundUp();
    }
  }

  /**
   * Guarded by probes; while an event came after the latest answer. With a lease held, a probe
   * goes at once, so that its answer has the whole bound's time to come (at most one per R/2),
   * and the bound is watched. With none, nothing depends on the bound: a probe goes only R/2
   * after the last event, so that a lease taken later finds the mark at most that old.
   */
  private void keepBoundUp() {
    Handle current = handle;
    if (closed || current == null || !eventSinceAnswer) {
      return;
    }
    long now = System.nanoTime();
    boolean holding = !holders.isEmpty();
    if (holding) {
      checkValidityLater(validUntil(now));
    }
    if (probing == current) {
      return; // its answer will come after the event
    }
    long due = (holding ? lastAnsweredSendNanos : lastEventNanos) + readTimeout(negotiatedTimeoutNanos) / 2 - now;
    if (due <= 0) {
      cancelProbeLater();
      probe(current);
    } else if (probeLater == null || probeLaterAt - (now + due) > 0) {
      cancelProbeLater();
      probeLaterAt = now + due;
      probeLater = scheduleQuietly(this::probeIfStillNeeded, due);
    }
  }

  private void probeIfStillNeeded() {
    synchronized (probes) {
      probeLater = null;
      if (state().isConnected()) {
        keepBoundUp();
      }
    }
  }

  private void cancelProbeLater() {
    if (probeLater != null) {
      probeLater.cancel(false);
      probeLater = null;
    }
  }

  /**
   * {@code holder} (a lease) depends on {@link #validUntilNanos()} until {@link #notHolding}: the
   * bound then heeds watch events, and the session is presumed lost when the bound runs out.
   */
  public void holding(Object holder) {
    holders.add(holder);
    synchronized (probes) {
      keepBoundUp();
    }
  }

  public void notHolding(Object holder) {
    holders.remove(holder);
  }

  /** Guarded by probes. An {@code exists} of the root: no ACL to pass, no watch left behind. */
  private void probe(Handle on) {
    probing = on;
    long sentAt = System.nanoTime();
    try {
      on.zk().exists("/", false, (rc, path, ctx, stat) -> probeAnswered(on, sentAt, rc), null);
    } catch (RuntimeException e) {
      probing = null;
      log.debug("Probe not sent on {}", on, e);
    }
  }

  /** On the handle's event thread, after every event that arrived before the answer. */
  private void probeAnswered(Handle on, long sentAt, int rc) {
    org.apache.zookeeper.KeeperException.Code code = org.apache.zookeeper.KeeperException.Code.get(rc);
    // Only the server answers these (a chroot may not exist); a lost link fails the probe instead.
    boolean answered = code == org.apache.zookeeper.KeeperException.Code.OK
        || code == org.apache.zookeeper.KeeperException.Code.NONODE;
    synchronized (probes) {
      if (probing == on) {
        probing = null;
      }
      if (!answered || on != handle) {
        return;
      }
      if (sentAt - lastAnsweredSendNanos > 0) {
        lastAnsweredSendNanos = sentAt;
      }
      eventSinceAnswer = false;
    }
    backAfterPresumedLoss(on);
  }

  /** Guarded by probes: makes sure the validity is checked again by {@code until}. */
  private void checkValidityLater(long until) {
    if (validityCheck != null && validityCheckAt - until <= 0) {
      return;
    }
    if (validityCheck != null) {
      validityCheck.cancel(false);
    }
    validityCheckAt = until;
    validityCheck = scheduleQuietly(this::checkValidity, Math.max(until - System.nanoTime(), 0));
  }

  /**
   * While an event came last, the validity can run out before ZooKeeper's client notices that the
   * link is silent (it took the event as contact): the session is then presumed lost as if it had
   * been suspended, unless an answer came meanwhile.
   */
  private void checkValidity() {
    Handle current;
    synchronized (probes) {
      validityCheck = null;
      current = handle;
      if (!eventSinceAnswer || closed || holders.isEmpty()) {
        return;
      }
      long until = validUntil(System.nanoTime());
      if (until - System.nanoTime() > 0) {
        checkValidityLater(until);
        return;
      }
    }
    int suspension;
    synchronized (lock) {
      if (current != handle || closed || state == null || !state.isConnected()) {
        return; // suspended meanwhile: the presumed-loss timer of the suspension decides
      }
      if (!eventSinceAnswer || validUntil(System.nanoTime()) - System.nanoTime() > 0) {
        return; // a probe answered meanwhile (an answer clears the mark before taking this lock)
      }
      suspendedAtNanos = System.nanoTime();
      suspendedValidUntilNanos = validUntil(suspendedAtNanos);
      suspension = ++suspensions;
      presumedWhileConnected = true;
      state = ConnectionState.SUSPENDED;
    }
    log.warn("No answer from {} since a watch event, for longer than the session allows; suspending session 0x{}",
        settings.connectString(), Long.toHexString(current.sessionId));
    publish(ConnectionState.SUSPENDED, current);
    schedulePresumedLoss(current, suspension);
  }

  /**
   * A probe answered after the session was presumed lost while ZooKeeper's client stayed connected:
   * the session lives, as after a reconnect (which would have told the same).
   */
  private void backAfterPresumedLoss(Handle on) {
    synchronized (lock) {
      if (!presumedWhileConnected || on != handle || closed || on.expired || state == null || state.isConnected()) {
        return;
      }
      presumedWhileConnected = false;
      cancelPresumedLoss();
      state = ConnectionState.RECONNECTED;
    }
    publish(ConnectionState.RECONNECTED, on);
  }

  private ScheduledFuture<?> scheduleQuietly(Runnable task, long delayNanos) {
    try {
      return scheduler.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      log.debug("Not scheduled: the client is closing");
      return null;
    }
  }

  /**
   * A new handle, a new session, of which the server has sent no event. An old handle's probe or
   * events that still come are its own session's.
   */
  private void resetContact() {
    synchronized (probes) {
      // Nothing answered yet: a bound already over (a new session's lease is valid by the read
      // timeout's bound, and so grows from the connect on).
      lastAnsweredSendNanos = System.nanoTime() - settings.sessionTimeout().toNanos();
      eventSinceAnswer = false;
      probing = null;
      cancelProbeLater();
      if (validityCheck != null) {
        validityCheck.cancel(false);
        validityCheck = null;
      }
    }
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
