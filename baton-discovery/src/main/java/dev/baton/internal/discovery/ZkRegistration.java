package dev.baton.internal.discovery;

import dev.baton.BatonInterruptedException;
import dev.baton.ClientClosedException;
import dev.baton.ConnectionException;
import dev.baton.ConnectionState;
import dev.baton.FailureListener;
import dev.baton.NodeExistsException;
import dev.baton.ZkPaths;
import dev.baton.discovery.Registration;
import dev.baton.discovery.ServiceInstance;
import dev.baton.internal.session.Errors;
import dev.baton.internal.session.FailureReport;
import dev.baton.internal.session.NodeSizes;
import dev.baton.internal.session.Nodes;
import dev.baton.internal.session.Session;
import dev.baton.internal.session.SessionObserver;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A registration's node, kept in line with what the user asked for: one small state machine that
 * sends one request at a time and, after each reply, decides the next from three facts: which
 * session holds the node ({@code owner}, null if none is known to), which generation of the data
 * the node holds, and whether the user closed it. The blocking methods set what is wanted and
 * wait for the machine to get there.
 *
 * <p>A create that finds the node there reads it: if its ephemeral owner is this client's current
 * session, it is this registration's own node whose create reply was lost, and it is used as is;
 * otherwise it belongs to another session (or is persistent) and is replaced, with a delete
 * conditional on the version just read and the create in one transaction (so that the replaced
 * registration, told by its watch, finds the new node there and yields instead of fighting).
 *
 * <p>The node is watched while this registration holds it. Deleted by someone, it is made again;
 * replaced by another session's node (a restarted process that kept the id), this registration
 * yields: it stops keeping it, {@linkplain #failure() fails} with {@link NodeExistsException},
 * and deletes nothing. Writes and deletes go at the version last seen, and a delete only after a
 * read has shown the node to be this session's, so that a registration never deletes another
 * session's node, short of one replacing it between that read and the delete. A registration that
 * ends (given up, or closed) after a create whose reply was lost looks for the node the same way
 * before it finishes, so that the node that create made does not outlive it.
 *
 * <p>All state is guarded by {@code this}; replies arrive on ZooKeeper's event thread, retries on
 * the session's timer. Requests are asynchronous, so nothing blocks under the monitor.
 */
final class ZkRegistration implements Registration, SessionObserver {
  private static final Logger log = LoggerFactory.getLogger(ZkRegistration.class);
  /** The nodes registered by open registrations, per client: one registration per node. */
  private static final Set<Key> ACTIVE = ConcurrentHashMap.newKeySet();
  private static final long CLOSE = -1;

  private record Key(Session session, String serverPath) {}

  private record Waiter(long generation, CompletableFuture<Void> done) {}

  private final Session session;
  private final String path;
  private final String serverPath;
  private final Key key;
  private final Consumer<ZkRegistration> onFinished;
  /** The node's data for an instance: its JSON, or the naming layout's text. */
  private final java.util.function.Function<ServiceInstance, byte[]> encoder;

  // Guarded by this.
  private ServiceInstance instance;
  private byte[] data;
  private long wanted = 1;
  private long written;
  private Session.Handle owner;
  /**
   * The handle of a create whose reply was lost: the node may exist, made by this session, and
   * must be looked for before the registration ends, or it would outlive it (a phantom instance).
   */
  private Session.Handle unsure;
  /** The node's version as this registration last knew it on {@code owner}. */
  private int version;
  /** Whether {@code owner} has read the node, seen it its own, since deciding to delete it. */
  private boolean confirmed;
  /** Whether a watch on the node is set on {@code owner}: it tells when the node is deleted or replaced. */
  private boolean armed;
  /**
   * Whether this session's node went while the session lived: a node of another session found
   * then is a newer registration of the same id, which this one yields to rather than fights.
   */
  private boolean lostOwn;
  private Session.Handle watcherOf;
  private Watcher watcher;
  private boolean verify;
  private boolean closing;
  private boolean finished;
  private boolean busy;
  private int failures;
  private final List<Waiter> waiters = new ArrayList<>();
  private final FailureReport failure = new FailureReport();

  private ZkRegistration(Session session, String path, ServiceInstance instance, byte[] data,
      Consumer<ZkRegistration> onFinished, java.util.function.Function<ServiceInstance, byte[]> encoder) {
    this.encoder = encoder;
    this.session = session;
    this.path = path;
    this.serverPath = session.settings().onServer(path);
    this.key = new Key(session, serverPath);
    this.instance = instance;
    this.data = data;
    this.onFinished = onFinished;
  }

  /**
   * Registers {@code instance} at {@code path} and waits until its node exists; on failure nothing
   * stays registered. {@code onFinished} runs once the registration is over.
   */
  static ZkRegistration register(Session session, String path, ServiceInstance instance,
      Consumer<ZkRegistration> onFinished) {
    return register(session, path, instance, onFinished, InstanceJson::encode);
  }

  /** As {@link #register(Session, String, ServiceInstance, Consumer)}, its data made by {@code encoder}. */
  static ZkRegistration register(Session session, String path, ServiceInstance instance,
      Consumer<ZkRegistration> onFinished, java.util.function.Function<ServiceInstance, byte[]> encoder) {
    session.checkOpen();
    byte[] data = encoder.apply(instance);
    String serverPath = session.settings().onServer(path);
    InstanceJson.checkSize(data, serverPath, path, session.settings().aclFor(serverPath),
        NodeSizes.maxPacket(session.settings()));
    ZkRegistration registration = new ZkRegistration(session, path, instance, data, onFinished, encoder);
    if (!ACTIVE.add(registration.key)) {
      throw new IllegalStateException("This client already registered " + path + " and has not closed"
          + " that registration (or its close is still deleting the node); update it instead of"
          + " registering the instance again");
    }
    CompletableFuture<Void> registered;
    synchronized (registration) {
      registered = registration.waitFor(1);
    }
    session.addObserver(registration);
    registration.kick();
    if (session.isClosed()) {
      registration.sessionClosed();
    }
    try {
      registration.await(registered, "registering", "; it is not registered");
      return registration;
    } catch (RuntimeException e) {
      registration.abandon();
      throw e;
    }
  }

  @Override
  public synchronized ServiceInstance instance() {
    return instance;
  }

  @Override
  public String path() {
    return path;
  }

  @Override
  public synchronized boolean isRegistered() {
    Session.Handle current = session.handle();
    return !closing && owner == current && !current.isExpired() && session.state().isConnected();
  }

  @Override
  public void update(ServiceInstance newInstance) {
    awaitWritten(submit(newInstance));
  }

  /**
   * Takes {@code newInstance} as the registration's, to be written in the background; never
   * waits for the ensemble. The future completes once it is written, or fails as {@link #update}
   * would; either way the instance stays the registration's.
   *
   * @throws IllegalArgumentException as {@link #update} does, and then nothing is taken
   * @throws IllegalStateException if closed or stopped ({@link #failure()}), and then nothing is taken
   */
  CompletableFuture<Void> submit(ServiceInstance newInstance) {
    Objects.requireNonNull(newInstance, "instance must not be null");
    CompletableFuture<Void> written;
    synchronized (this) {
      if (!newInstance.name().equals(instance.name()) || !newInstance.id().equals(instance.id())) {
        throw new IllegalArgumentException("An update must keep the service name and id of " + path
            + " (" + instance.name() + "/" + instance.id() + "), was " + newInstance.name() + "/"
            + newInstance.id() + "; register a new instance instead");
      }
      if (closing) {
        throw new IllegalStateException("The registration of " + path + " is closed");
      }
      Optional<RuntimeException> stopped = failure.failure();
      if (stopped.isPresent()) {
        // The machine sends nothing more but a delete: a write taken now would wait forever.
        throw new IllegalStateException("The registration of " + path + " stopped (" + stopped.get().getMessage()
            + "); close it", stopped.get());
      }
      byte[] bytes = encoder.apply(newInstance);
      InstanceJson.checkSize(bytes, serverPath, path, session.settings().aclFor(serverPath),
          NodeSizes.maxPacket(session.settings()));
      instance = newInstance;
      data = bytes;
      written = waitFor(++wanted);
    }
    kick();
    return written;
  }

  /** Waits for a write {@link #submit}ted, as {@link #update} does. */
  void awaitWritten(CompletableFuture<Void> written) {
    await(written, "updating", "; the new data is written in the background");
  }

  @Override
  public void close() {
    CompletableFuture<Void> gone;
    synchronized (this) {
      closing = true;
      if (finished) {
        return;
      }
      gone = waitFor(CLOSE);
      if (owner != null && owner.isExpired() || session.state() == ConnectionState.LOST) {
        // The node goes with a session that is lost: nothing to wait for. Should a presumed loss
        // end with the same session back, the machine deletes the node then.
        gone.complete(null);
      }
    }
    kick();
    await(gone, "unregistering", "; the node is deleted in the background");
  }

  /** After a failed register: stop, and delete whatever was made, in the background. */
  private void abandon() {
    synchronized (this) {
      closing = true;
    }
    kick();
  }

  private CompletableFuture<Void> waitFor(long generation) {
    Waiter waiter = new Waiter(generation, new CompletableFuture<>());
    waiters.add(waiter);
    return waiter.done;
  }

  private void await(CompletableFuture<Void> future, String doing, String meanwhile) {
    try {
      future.get();
    } catch (ExecutionException e) {
      throw Errors.translate(e.getCause(), path);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BatonInterruptedException("Interrupted while " + doing + " " + path + meanwhile, e);
    }
  }

  // ---- the machine ----------------------------------------------------------------------------

  private void kick() {
    synchronized (this) {
      step();
    }
  }

  /**
   * Sends the next request, if one is needed and none is on its way; under the monitor. Once the
   * registration has {@linkplain #failure() failed} only a close is still carried out.
   */
  private void step() {
    if (busy || finished || failure.hasFailed() && !closing) {
      return;
    }
    Session.Handle on = session.handle();
    if (session.isClosed()) {
      return;
    }
    if (closing) {
      boolean mayOwn = (owner == on || unsure == on) && !on.isExpired();
      if (mayOwn && confirmed) {
        int known = version;
        send(on, () -> on.zk().delete(serverPath, known, (rc, p, ctx) -> deleted(on, Code.get(rc)), null));
      } else if (mayOwn) {
        send(on, () -> on.zk().exists(serverPath, false,
            (rc, p, ctx, stat) -> lookedBeforeLeaving(on, Code.get(rc), stat), null));
      } else {
        finish();
      }
      return;
    }
    if (owner != on || on.isExpired()) {
      long generation = wanted;
      byte[] bytes = data;
      send(on, () -> on.zk().create(serverPath, bytes, session.settings().aclFor(serverPath), CreateMode.EPHEMERAL,
          (rc, p, ctx, name) -> created(on, generation, bytes, Code.get(rc)), null));
    } else if (written < wanted) {
      long generation = wanted;
      int known = version;
      send(on, () -> on.zk().setData(serverPath, data, known,
          (rc, p, ctx, stat) -> dataSet(on, generation, Code.get(rc), stat), null));
    } else {
      // Before the watch is set: the caller waits for its write, not for the watch.
      settle();
      if (verify || !armed) {
        Watcher watch = watcherFor(on);
        send(on, () -> on.zk().exists(serverPath, watch, (rc, p, ctx, stat) -> verified(on, Code.get(rc), stat), null));
      }
    }
  }

  /** One watcher per handle, so that a watch set twice on the node is told once. */
  private Watcher watcherFor(Session.Handle on) {
    if (watcherOf != on) {
      watcherOf = on;
      watcher = session.watching(event -> nodeChanged(on, event));
    }
    return watcher;
  }

  /** The watch on the node fired: set it again, and make the node again if it was deleted. */
  private synchronized void nodeChanged(Session.Handle on, WatchedEvent event) {
    if (event.getType() == Watcher.Event.EventType.None || finished || owner != on) {
      return;
    }
    armed = false;
    if (event.getType() == Watcher.Event.EventType.NodeDeleted && !closing) {
      log.info("The node {} was deleted by someone; creating it again", serverPath);
      owner = null;
      lostOwn = true;
    }
    step();
  }

  private void send(Session.Handle on, Runnable request) {
    busy = true;
    try {
      request.run();
    } catch (RuntimeException e) {
      // A handle closed under us (expiry, or the client closing): try again after a pause.
      log.debug("Request for {} not sent on {}", path, on, e);
      retryLater();
    }
  }

  private synchronized void created(Session.Handle on, long generation, byte[] bytes, Code code) {
    busy = false;
    switch (code) {
      case OK -> {
        owner = on;
        unsure = null;
        version = 0;
        armed = false;
        lostOwn = false;
        written = generation;
        verify = false;
        failures = 0;
        step();
      }
      case NODEEXISTS -> send(on, () -> on.zk().getData(serverPath, false,
          (rc, p, ctx, existing, stat) -> found(on, generation, bytes, Code.get(rc), existing, stat), null));
      case NONODE -> createParents(on);
      case CONNECTIONLOSS, OPERATIONTIMEOUT -> {
        unsure = on;
        failed(code, serverPath);
      }
      default -> failed(code, serverPath);
    }
  }

  /**
   * Closing: the node is this registration's to delete (at the version just read) only if this
   * session owns it; otherwise it went, or another session replaced it.
   */
  private synchronized void lookedBeforeLeaving(Session.Handle on, Code code, Stat stat) {
    busy = false;
    switch (code) {
      case OK, NONODE -> {
        unsure = null;
        if (stat != null && stat.getEphemeralOwner() == on.zk().getSessionId()) {
          owner = on;
          version = stat.getVersion();
          confirmed = true;
        } else {
          owner = null;
        }
        step();
      }
      default -> failed(code, serverPath);
    }
  }

  /** The node was there when we created it: ours (a lost reply), or another session's to replace. */
  private synchronized void found(Session.Handle on, long generation, byte[] bytes, Code code, byte[] existing, Stat stat) {
    busy = false;
    if (code == Code.NONODE) {
      step(); // gone meanwhile: create again
      return;
    }
    if (code != Code.OK) {
      failed(code, serverPath);
      return;
    }
    unsure = null;
    if (stat.getEphemeralOwner() == on.zk().getSessionId()) {
      owner = on;
      version = stat.getVersion();
      armed = false;
      lostOwn = false;
      verify = false;
      failures = 0;
      if (Arrays.equals(existing, bytes)) {
        written = generation;
      }
      step();
      return;
    }
    if (closing || lostOwn) {
      yieldTo(stat.getEphemeralOwner());
      return;
    }
    log.warn("Replacing the node {} of session 0x{}: this client registers the same service and id",
        serverPath, Long.toHexString(stat.getEphemeralOwner()));
    List<Op> replace = List.of(Op.delete(serverPath, stat.getVersion()),
        Op.create(serverPath, bytes, session.settings().aclFor(serverPath), CreateMode.EPHEMERAL));
    send(on, () -> on.zk().multi(replace, (rc, p, ctx, results) -> replaced(on, generation, bytes, Code.get(rc)), null));
  }

  private synchronized void replaced(Session.Handle on, long generation, byte[] bytes, Code code) {
    if (code == Code.NONODE || code == Code.BADVERSION) {
      busy = false;
      step(); // it changed meanwhile: look again
    } else {
      created(on, generation, bytes, code);
    }
  }

  /**
   * The node this session held went while the session lived, and another session's node is
   * there now: a newer registration of the same id. Fighting it would make the two replace each
   * other; this one stops, and deletes nothing.
   */
  private void yieldTo(long otherSession) {
    owner = null;
    armed = false;
    if (closing) {
      step(); // nothing of this registration's left to delete
      return;
    }
    NodeExistsException error = new NodeExistsException(path, "The node " + path + " of this registration was"
        + " replaced by session 0x" + Long.toHexString(otherSession) + ", which registered the same service and id;"
        + " this client stopped keeping it registered and will not delete it. Register with a unique id", null);
    log.warn("Stopped keeping {} registered", path, error);
    failure.fail(error);
    failWaiters(error);
  }

  private void createParents(Session.Handle on) {
    busy = true;
    Nodes.createParents(session, serverPath).whenComplete((ok, error) -> {
      synchronized (this) {
        busy = false;
        Throwable cause = error instanceof CompletionException && error.getCause() != null
            ? error.getCause() : error;
        if (cause == null) {
          step();
        } else if (cause instanceof KeeperException keeper) {
          failed(keeper.code(), keeper.getPath() == null ? ZkPaths.parent(serverPath) : keeper.getPath());
        } else {
          failed(Code.SYSTEMERROR, ZkPaths.parent(serverPath));
        }
      }
    });
  }

  private synchronized void dataSet(Session.Handle on, long generation, Code code, Stat stat) {
    busy = false;
    switch (code) {
      case OK -> {
        written = Math.max(written, generation);
        if (owner == on) {
          version = stat.getVersion();
        }
        failures = 0;
        step();
      }
      case NONODE -> {
        owner = null; // deleted by someone: create it again, with the new data
        lostOwn = true;
        step();
      }
      case BADVERSION -> {
        verify = true; // changed by someone, or replaced: read whose it is before writing
        step();
      }
      default -> failed(code, serverPath);
    }
  }

  private synchronized void verified(Session.Handle on, Code code, Stat stat) {
    busy = false;
    switch (code) {
      case OK, NONODE -> {
        verify = false;
        failures = 0;
        if (owner != on) {
          step(); // what was read is no longer this registration's concern
        } else if (stat == null) {
          log.info("The node {} was deleted; creating it again", serverPath);
          owner = null;
          lostOwn = true;
          step();
        } else if (stat.getEphemeralOwner() != on.zk().getSessionId()) {
          yieldTo(stat.getEphemeralOwner());
        } else {
          version = stat.getVersion();
          armed = true;
          step();
        }
      }
      default -> failed(code, serverPath);
    }
  }

  private synchronized void deleted(Session.Handle on, Code code) {
    busy = false;
    switch (code) {
      case OK, NONODE -> {
        owner = null;
        confirmed = false;
        step();
      }
      case BADVERSION -> {
        confirmed = false; // changed since it was read: read whose it is again
        step();
      }
      case NOAUTH -> {
        failed(code, ZkPaths.parent(serverPath));
        finish(); // the node stays until the session ends; nothing else can be done
      }
      default -> failed(code, serverPath);
    }
  }

  /** A request failed: retry what can be retried, fail the waiters with the rest. */
  private void failed(Code code, String failedServerPath) {
    switch (code) {
      case CONNECTIONLOSS, OPERATIONTIMEOUT, SESSIONEXPIRED, SESSIONMOVED -> {
        failures++;
        if (failures > session.settings().retryPolicy().maxRetries()) {
          failWaiters(new ConnectionException("Connection to ZooKeeper at " + session.settings().connectString()
              + " lost while keeping " + path + " registered; the retry policy gave up waiting. The"
              + " client goes on in the background"));
        }
        retryLater();
      }
      default -> {
        RuntimeException error = Errors.translate(KeeperException.create(code, failedServerPath),
            session.settings().onClient(failedServerPath));
        if (!closing && Errors.isUnrecoverable(error)) {
          // Keeping the node up cannot succeed: stop, and tell the owner rather than the log alone.
          log.error("Cannot keep {} registered, and retrying cannot cure why; stopped", path, error);
          failure.fail(error);
        } else if (waiters.isEmpty()) {
          log.error(closing ? "Cannot delete {}; it goes with the session" : "Cannot keep {} registered;"
              + " trying again on the next reconnection", path, error);
        }
        failWaiters(error);
      }
    }
  }

  private void retryLater() {
    busy = true;
    long delay = session.settings().retryPolicy().delayBefore(Math.min(Math.max(failures, 1), 10)).toNanos();
    session.schedule(() -> {
      synchronized (this) {
        busy = false;
        step();
      }
    }, Math.max(delay, TimeUnit.MILLISECONDS.toNanos(1)));
  }

  /** Nothing to send: complete the waiters whose wish is now true. */
  private void settle() {
    waiters.removeIf(waiter -> {
      if (waiter.generation != CLOSE && waiter.generation <= written) {
        waiter.done.complete(null);
        return true;
      }
      return false;
    });
  }

  private void completeCloseWaiters() {
    waiters.removeIf(waiter -> {
      if (waiter.generation == CLOSE) {
        waiter.done.complete(null);
        return true;
      }
      return false;
    });
  }

  private void failWaiters(RuntimeException error) {
    waiters.removeIf(waiter -> {
      if (waiter.generation == CLOSE && error instanceof ConnectionException && session.state() == ConnectionState.LOST) {
        waiter.done.complete(null); // the node goes with the lost session
      } else {
        waiter.done.completeExceptionally(error);
      }
      return true;
    });
  }

  private void finish() {
    finished = true;
    owner = null;
    ACTIVE.remove(key);
    for (Waiter waiter : waiters) {
      if (waiter.generation == CLOSE) {
        waiter.done.complete(null);
      } else {
        waiter.done.completeExceptionally(new IllegalStateException("The registration of " + path + " was closed"));
      }
    }
    waiters.clear();
    session.removeObserver(this);
    onFinished.accept(this);
  }

  // ---- session ------------------------------------------------------------------------------

  @Override
  public void connectionStateChanged(ConnectionState state, Session.Handle affected) {
    synchronized (this) {
      if (state == ConnectionState.LOST) {
        completeCloseWaiters(); // the node goes (or went) with the session
      }
      if (state == ConnectionState.LOST && affected.isExpired()) {
        if (owner == affected) {
          owner = null; // the node went with the session
          armed = false;
        }
        lostOwn = false; // a node of another session found on the new one is an old one's, to replace
        confirmed = false;
        step();
      } else if (state == ConnectionState.RECONNECTED) {
        verify = owner != null;
        failures = 0;
        step();
      }
    }
  }

  @Override
  public void sessionClosed() {
    synchronized (this) {
      if (finished) {
        return;
      }
      ClientClosedException closed = new ClientClosedException(session.settings().connectString());
      if (!closing) {
        failure.fail(closed);
      }
      closing = true;
      completeCloseWaiters(); // the node goes with the session
      failWaiters(closed);
      finished = true;
      owner = null;
      ACTIVE.remove(key);
    }
    session.removeObserver(this);
    onFinished.accept(this);
  }

  @Override
  public Optional<RuntimeException> failure() {
    return failure.failure();
  }

  @Override
  public void addFailureListener(FailureListener listener) {
    failure.add(listener, session.eventExecutor());
  }

  @Override
  public String toString() {
    return "Registration[" + path + "]";
  }
}
