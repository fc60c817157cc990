package dev.baton.internal.session;

import dev.baton.ClientClosedException;
import dev.baton.ConnectionException;
import dev.baton.ConnectionState;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A local copy of what lies below one path, kept current by one persistent watch: the watch is
 * added, then the path is listed, and from the listing's reply on, each event is applied. The
 * registry's caches of a service and of the service names stand on it.
 *
 * <p>Why events before the listing's reply are ignored: the session answers in order, and the
 * ensemble sends an event on the connection when it applies the change. So an event that arrives
 * before the listing's reply is of a change made before the listing was read, which the listing
 * (and the reads sent after it) already show; an event after the reply is of a later change. For
 * the same reason the replies of reads and the events can simply be applied as they arrive.
 *
 * <p>Connection loss: ZooKeeper's client sets persistent watches again by itself when it
 * reconnects, but the ensemble does not replay what changed meanwhile, so the copy is listed
 * again on every reconnection, and is stale until then. Session expiry takes the watch with it:
 * it is added again on the new session. One cache per client and path, shared by reference count
 * ({@link #acquire}), so that the last one out can remove the watch from the ensemble with {@code
 * removeAllWatches} without silencing another (see {@link PathWatches} for why removing one
 * watcher does not reach the server).
 *
 * <p>All state is guarded by {@code this}; callbacks arrive on ZooKeeper's event thread.
 * Subscribers are called under the monitor, in change order, and must only hand work on.
 *
 * @param <T> the snapshot subscribers get
 */
public abstract class PersistentWatchCache<T> implements SessionObserver {
  private static final Logger log = LoggerFactory.getLogger(PersistentWatchCache.class);
  private static final Map<Key, PersistentWatchCache<?>> SHARED = new ConcurrentHashMap<>();

  private record Key(Session session, String serverPath, AddWatchMode mode) {}

  protected final Session session;
  protected final String serverPath;
  private final AddWatchMode mode;
  private final Key key;
  private final Set<Consumer<T>> subscribers = ConcurrentHashMap.newKeySet();

  // Guarded by this.
  private int refs;
  private boolean closed;
  private Session.Handle watchedOn;
  private boolean listing;
  private boolean listAgain;
  /** The listing in flight was sent while disconnected: the client sends it once connected. */
  private boolean listingQueued;
  /** The handle on which the ensemble refused the watch; tried again on the next reconnection. */
  private Session.Handle refusedOn;
  /** The current listing's reply arrived: events are applied from now on. */
  private boolean listed;
  private boolean syncing;
  private boolean changed;
  private int failures;
  private CompletableFuture<Void> loaded = new CompletableFuture<>();
  private volatile boolean stale = true;

  public PersistentWatchCache(Session session, String serverPath, AddWatchMode mode) {
    this.session = session;
    this.serverPath = serverPath;
    this.mode = mode;
    this.key = new Key(session, serverPath, mode);
  }

  /** The client's cache of {@code serverPath}, made and started by {@code factory} if there is none. */
  @SuppressWarnings("unchecked")
  public static <C extends PersistentWatchCache<?>> C acquire(Session session, String serverPath, AddWatchMode mode,
      Supplier<C> factory) {
    synchronized (SHARED) {
      session.checkOpen();
      PersistentWatchCache<?> cache = SHARED.get(new Key(session, serverPath, mode));
      if (cache == null) {
        cache = factory.get();
        SHARED.put(cache.key, cache);
        cache.start();
      }
      synchronized (cache) {
        cache.refs++;
      }
      return (C) cache;
    }
  }

  /**
   * One holder is done; the last one closes the cache and removes its watch. The removal is sent
   * before a new cache of the same path can send its {@code addWatch}, so the session applies
   * them in that order and the new watch stays.
   */
  public final void release() {
    synchronized (SHARED) {
      synchronized (this) {
        if (closed || --refs > 0) {
          return;
        }
      }
      SHARED.remove(key, this);
      close();
    }
  }

  /** Completes once a listing (and its reads) is in; fails if the retry policy gives up first. */
  public final synchronized CompletableFuture<Void> loaded() {
    return loaded;
  }

  public final boolean isStale() {
    return stale;
  }

  public final void subscribe(Consumer<T> subscriber) {
    subscribers.add(subscriber);
  }

  public final void unsubscribe(Consumer<T> subscriber) {
    subscribers.remove(subscriber);
  }

  // ---- what the kinds of cache do -------------------------------------------------------------

  /** Sends the listing on {@code on}; its reply goes to {@link #listed}. */
  public abstract void list(Session.Handle on);

  /** Applies a listing ({@code null} if the path does not exist); may send reads. Under the monitor. */
  public abstract void applyListing(Session.Handle on, List<String> children);

  /** Applies an event on {@code path} after the listing. Under the monitor. */
  public abstract void applyEvent(Session.Handle on, Watcher.Event.EventType type, String path);

  /** The snapshot for subscribers. Under the monitor. */
  public abstract T snapshot();

  /** A read or event changed the copy. Under the monitor. */
  public final void markChanged() {
    changed = true;
  }

  /** Whether {@code on} is the handle the watch lives on, and the cache is open. Under the monitor. */
  public final boolean current(Session.Handle on) {
    return on == watchedOn && !closed;
  }

  /**
   * Called by a kind of cache once the reads of a listing are all in. Under the monitor. If a
   * newer listing is on its way (or due after a pause), that one finishes the load instead.
   */
  public final void synced() {
    if (listing) {
      return;
    }
    syncing = false;
    failures = 0;
    if (watchedOn == session.handle() && session.state().isConnected()) {
      stale = false;
    }
    publish(); // first: a listener added once the load is seen must not hear of the load itself
    loaded.complete(null);
  }

  /** Tells subscribers of the changes since last time, unless a listing is being applied. */
  public final void publish() {
    if (!changed || syncing) {
      return;
    }
    changed = false;
    T snapshot = snapshot();
    for (Consumer<T> subscriber : subscribers) {
      try {
        subscriber.accept(snapshot);
      } catch (RuntimeException e) {
        log.error("A subscriber of {} failed", serverPath, e);
      }
    }
  }

  // ---- watching and listing -----------------------------------------------------------------

  private void start() {
    session.addObserver(this);
    synchronized (this) {
      sync(true);
    }
    if (session.isClosed()) {
      sessionClosed(); // closed before this cache was seen by the session's observers
    }
  }

  /** Lists the path again (adding the watch first on a new session); under the monitor. */
  public final void sync(boolean markStale) {
    if (closed || session.isClosed()) {
      return;
    }
    if (markStale) {
      stale = true;
    }
    if (listing) {
      listAgain = true;
      return;
    }
    Session.Handle on = session.handle();
    if (refusedOn == on) {
      return;
    }
    if (watchedOn != on) {
      watchedOn = on;
      Watcher watcher = event -> onEvent(on, event);
      try {
        on.zk().addWatch(serverPath, watcher, mode, (rc, path, ctx) -> watchAdded(on, Code.get(rc)), null);
      } catch (RuntimeException e) {
        watchedOn = null; // a handle closing under us; the session observer tells us what next
        return;
      }
    }
    listing = true;
    listAgain = false;
    listingQueued = !session.state().isConnected();
    listed = false;
    syncing = true;
    list(on);
  }

  private synchronized void watchAdded(Session.Handle on, Code code) {
    if (code == Code.OK || on != watchedOn) {
      return;
    }
    // The listing sent after it fails too, and the watch is added again before the next one.
    watchedOn = null;
    if (!Errors.isConnectionProblem(code)) {
      refusedOn = on;
      RuntimeException error = Errors.translate(KeeperException.create(code, serverPath),
          session.settings().onClient(serverPath));
      log.warn("The ensemble refused a watch on {}; trying again on the next reconnection", serverPath, error);
      failLoad(error);
    }
  }

  /** The reply of the listing sent on {@code on}; {@code children} null unless OK. */
  public final synchronized void listed(Session.Handle on, Code code, List<String> children) {
    listing = false;
    if (closed) {
      return;
    }
    if (on == refusedOn) {
      return;
    }
    if (on != watchedOn || on != session.handle()) {
      sync(false); // from a session gone meanwhile, or its watch failed
      return;
    }
    switch (code) {
      case OK, NONODE -> {
        listed = true;
        applyListing(on, code == Code.OK ? children : null);
        if (listAgain) {
          listAgain = false;
          sync(false);
        }
      }
      case CONNECTIONLOSS, OPERATIONTIMEOUT, SESSIONEXPIRED, SESSIONMOVED -> retry(on);
      default -> {
        RuntimeException error = Errors.translate(KeeperException.create(code, serverPath),
            session.settings().onClient(serverPath));
        log.warn("Cannot list {}; trying again on the next reconnection", serverPath, error);
        failLoad(error);
      }
    }
  }

  /** The listing sent on {@code on}, or a read after it, was lost: list again after a pause. Under the monitor. */
  public final void retry(Session.Handle on) {
    failures++;
    if (failures > session.settings().retryPolicy().maxRetries()) {
      failLoad(new ConnectionException("Could not load " + session.settings().onClient(serverPath)
          + " from ZooKeeper at " + session.settings().connectString() + "; the retry policy gave up"));
    }
    long delay = session.settings().retryPolicy().delayBefore(Math.min(failures, 10)).toNanos();
    listing = true; // nothing else is sent meanwhile
    listingQueued = false;
    session.schedule(() -> {
      synchronized (this) {
        listing = false;
        if (watchedOn == on && on != session.handle()) {
          watchedOn = null;
        }
        sync(false);
      }
    }, Math.max(delay, TimeUnit.MILLISECONDS.toNanos(1)));
  }

  private void failLoad(RuntimeException error) {
    if (!loaded.isDone()) {
      CompletableFuture<Void> failed = loaded;
      loaded = new CompletableFuture<>(); // later holders wait for the next listing
      failed.completeExceptionally(error);
    }
  }

  private void onEvent(Session.Handle on, WatchedEvent event) {
    if (event.getType() == Watcher.Event.EventType.None || event.getPath() == null) {
      return; // connection events: the session observer handles those
    }
    synchronized (this) {
      if (!current(on) || !listed) {
        return;
      }
      applyEvent(on, event.getType(), event.getPath());
      publish();
    }
  }

  // ---- session ------------------------------------------------------------------------------

  @Override
  public void connectionStateChanged(ConnectionState state, Session.Handle affected) {
    synchronized (this) {
      switch (state) {
        case SUSPENDED -> stale = true;
        case LOST -> {
          stale = true;
          if (affected.isExpired() && watchedOn == affected) {
            watchedOn = null; // the watch went with the session
            sync(true);
          }
        }
        case RECONNECTED -> {
          refusedOn = null;
          if (listing && listingQueued && watchedOn == session.handle()) {
            stale = true; // the listing waiting for this connection is current: no second one
          } else {
            sync(true);
          }
        }
        default -> { }
      }
    }
  }

  @Override
  public void sessionClosed() {
    synchronized (SHARED) {
      SHARED.remove(key, this);
    }
    synchronized (this) {
      closed = true;
      stale = true;
      loaded.completeExceptionally(new ClientClosedException(session.settings().connectString()));
    }
    session.removeObserver(this);
  }

  /** Stops the cache and removes its watch from the ensemble (retried across connection loss). */
  private void close() {
    Session.Handle on;
    synchronized (this) {
      closed = true;
      stale = true;
      loaded.completeExceptionally(new CancellationException("closed"));
      on = watchedOn;
      watchedOn = null;
    }
    session.removeObserver(this);
    if (on != null) {
      removeWatch(on, 1);
    }
  }

  private void removeWatch(Session.Handle on, int attempt) {
    if (on != session.handle() || on.isExpired() || session.isClosed()) {
      return; // the watch went with its session
    }
    Watcher.WatcherType type = mode == AddWatchMode.PERSISTENT_RECURSIVE
        ? Watcher.WatcherType.PersistentRecursive : Watcher.WatcherType.Persistent;
    synchronized (SHARED) {
      if (attempt > 1 && SHARED.containsKey(key)) {
        return; // a new cache of the path watches it now: removing would silence it
      }
      try {
        // local=false: see PathWatches.removeFromServer.
        on.zk().removeAllWatches(serverPath, type, false, (rc, path, ctx) -> {
          Code code = Code.get(rc);
          if ((code == Code.CONNECTIONLOSS || code == Code.OPERATIONTIMEOUT) && attempt < 10) {
            long delay = session.settings().retryPolicy().delayBefore(attempt).toNanos();
            session.schedule(() -> removeWatch(on, attempt + 1), Math.max(delay, TimeUnit.MILLISECONDS.toNanos(1)));
          }
        }, null);
      } catch (RuntimeException e) {
        log.debug("Watch on {} not removed: the handle is closing", serverPath, e);
      }
    }
  }
}
