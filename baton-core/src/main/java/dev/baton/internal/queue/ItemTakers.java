package dev.baton.internal.queue;

import dev.baton.ClientClosedException;
import dev.baton.ConnectionState;
import dev.baton.internal.session.Errors;
import dev.baton.internal.session.Nodes;
import dev.baton.internal.session.Outbox;
import dev.baton.internal.session.PathWatches;
import dev.baton.internal.session.Session;
import dev.baton.internal.session.SessionObserver;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;

/**
 * The takers waiting on one queue object, and the listing of the queue they share. A taker gets
 * an item by claiming it: one {@code multi} that checks the item exists and creates its ephemeral
 * claim node, pipelined with a read of the item (the session answers in order, so the read sees
 * the item as the claim found it).
 *
 * <p>Design notes:
 *
 * <ul>
 *   <li>One listing for all takers: the items and the claims, read together, each with a children
 *       watch. The unclaimed items of the last listing are kept as candidates, oldest first, and
 *       handed to takers in turn, several claims in flight at once. A taker whose claim fails
 *       (another consumer was first) drops the candidates and lists again: a failure means the
 *       listing is stale, and a fresh one is cheaper than trying stale names one by one.
 *   <li>No polling. With nothing to claim, takers wait for a watch: a new item changes the
 *       queue's children, and a claim given back (or ended with its session) changes the claims'
 *       children. A listing whose watches have not fired is current, so a taker that may not wait
 *       gives up on it at once. Only watch events and failed claims make a listing stale.
 *   <li>An item given back by this client is a candidate again at once, at its place in the
 *       order: the claim's delete is sent before any later claim of the same session, so it is
 *       applied first.
 *   <li>Except an item given back because a handler of this client failed on it: it is held back
 *       ({@link HeldBackItems}, shared by the client's queue objects) for the back-off, so that
 *       other clients' consumers get it first. Held back before its claim goes, so no listing
 *       sees it free before. A held-back candidate is set aside (parked) when its turn comes, with
 *       a timer for the end of its hold; then it is a candidate again, unless a listing since
 *       found it claimed by another or gone (it is not among that listing's candidates).
 *   <li>A queue path that does not exist is waited for with an {@code exists} watch, never
 *       created by a taker: an empty container that never had a child is never removed by the
 *       ensemble. When no taker is left, that watch is removed ({@link PathWatches}), so nothing
 *       stays on the server.
 *   <li>The {@code claims} container is created in the same {@code multi} as the first claim, for
 *       the same reason: it never exists without having had a child.
 *   <li>What each claim came to is decided by {@link ClaimOutcome}. A claim whose reply is lost
 *       is looked for by its data (a UUID per attempt): ours is used, one not made is retried. After session expiry every claim of the old session is gone,
 *       so takers list again on the new session and keep waiting.
 *   <li>A taker that times out or is withdrawn while its claim is in flight leaves the claim to
 *       the next waiting taker, or gives it back.
 * </ul>
 *
 * All state is guarded by {@code this}; ZooKeeper callbacks arrive on the event thread of the
 * handle they were sent on, timers on the session's scheduler. Requests are decided under the
 * monitor and sent after leaving it ({@link Outbox}): the monitor is taken by ZooKeeper's event
 * thread for every answer, and by callers' threads (virtual ones, maybe) for every take, so no
 * thread holds it while it calls into the ZooKeeper client or the ACL provider.
 */
final class ItemTakers implements SessionObserver {

  /** An item this client claimed: the session its claim belongs to, the item's name and data. */
  /** A claimed item; {@code version} is its node's data version, the count of failed deliveries. */
  record Claimed(Session.Handle handle, String item, byte[] data, long czxid, int version) {}

  /** One request for an item; its future completes on a ZooKeeper event thread. */
  static final class Taker {
    private final CompletableFuture<Claimed> result = new CompletableFuture<>();
    private final boolean mayWait;
    private ScheduledFuture<?> timer;
    private boolean gone;

    private Taker(boolean mayWait) {
      this.mayWait = mayWait;
    }

    /** The claimed item; fails with {@link TimeoutException} when the time given passes. */
    CompletableFuture<Claimed> result() {
      return result;
    }
  }

  /** A claim in flight: the {@code multi} and the read of the item, answered in that order. */
  private static final class Attempt {
    final Taker taker;
    final String item;
    final Session.Handle handle;
    final byte[] claimData;
    final boolean createsClaims;
    Code claimCode;
    int failedOp = -1;

    Attempt(Taker taker, String item, Session.Handle handle, byte[] claimData, boolean createsClaims) {
      this.taker = taker;
      this.item = item;
      this.handle = handle;
      this.claimData = claimData;
      this.createsClaims = createsClaims;
    }
  }

  /**
   * What the takers ask of the session and the ensemble: ZooKeeper's asynchronous calls on the
   * handle given, answered in the order sent, and a claim's delete in the background. A seam, so
   * that a model-checking test can play the ensemble's part in memory.
   */
  interface Ensemble {
    /** {@code watcher} as passed to the requests below (the session notes the events it hears). */
    Watcher watching(Watcher watcher);

    void getChildren(Session.Handle on, String path, Watcher watcher, AsyncCallback.ChildrenCallback callback);

    void exists(Session.Handle on, String path, Watcher watcher, AsyncCallback.StatCallback callback);

    void multi(Session.Handle on, List<Op> ops, AsyncCallback.MultiCallback callback);

    void getData(Session.Handle on, String path, AsyncCallback.DataCallback callback);

    /** Deletes the claim at {@code path} made on {@code on}, across connection loss ({@link Nodes#deleteInBackground}). */
    void deleteInBackground(Session.Handle on, String path);
  }

  /** The real requests, to the ensemble of {@code session}. */
  private static Ensemble zooKeeper(Session session) {
    return new Ensemble() {
      @Override
      public Watcher watching(Watcher watcher) {
        return session.watching(watcher);
      }

      @Override
      public void getChildren(Session.Handle on, String path, Watcher watcher, AsyncCallback.ChildrenCallback callback) {
        on.zk().getChildren(path, watcher, callback, null);
      }

      @Override
      public void exists(Session.Handle on, String path, Watcher watcher, AsyncCallback.StatCallback callback) {
        on.zk().exists(path, watcher, callback, null);
      }

      @Override
      public void multi(Session.Handle on, List<Op> ops, AsyncCallback.MultiCallback callback) {
        on.zk().multi(ops, callback, null);
      }

      @Override
      public void getData(Session.Handle on, String path, AsyncCallback.DataCallback callback) {
        on.zk().getData(path, false, callback, null);
      }

      @Override
      public void deleteInBackground(Session.Handle on, String path) {
        Nodes.deleteInBackground(session, on, path);
      }
    };
  }

  private static final byte[] EMPTY = new byte[0];
  private static final String CLAIMANT = claimant();

  private final Session session;
  private final Ensemble ensemble;
  private final String serverPath;
  private final String serverClaims;
  private final Watcher watcher;
  private final Outbox outbox = new Outbox();

  private final ArrayDeque<Taker> waiting = new ArrayDeque<>();
  private final TreeSet<String> candidates = new TreeSet<>();
  private final HeldBackItems heldBack;
  // Candidates set aside while held back; the items of those with a timer for the end of the hold.
  private final Set<String> parked = new HashSet<>();
  private final Set<String> waking = new HashSet<>();
  private final Set<String> attempting = new HashSet<>();
  private final Set<Attempt> inFlight = new HashSet<>();
  private boolean listing;
  private boolean dirty = true;
  private boolean backingOff;
  private boolean claimsExist = true;
  private Session.Handle listedOn;
  private Session.Handle pathWatchedOn;
  private boolean observing;
  private int retries;
  private Code itemsCode;
  private List<String> items;

  ItemTakers(Session session, String serverPath) {
    this(session, serverPath, null);
  }

  /** With {@code ensemble} in place of the requests to the ensemble ({@code null}: the real ones). */
  ItemTakers(Session session, String serverPath, Ensemble ensemble) {
    this.session = session;
    this.ensemble = ensemble != null ? ensemble : zooKeeper(session);
    this.watcher = this.ensemble.watching(this::changed);
    this.serverPath = serverPath;
    this.serverClaims = serverPath + "/" + ItemNodes.CLAIMS;
    this.heldBack = HeldBackItems.of(session);
  }

  /**
   * A new taker, served after those already waiting. {@code timeoutNanos < 0} waits without
   * limit; {@code 0} gives up as soon as a current listing has nothing to claim.
   */
  Taker enqueue(long timeoutNanos) {
    Taker taker = new Taker(timeoutNanos != 0);
    synchronized (this) {
      if (!observing) {
        observing = true;
        session.addObserver(this);
      }
      waiting.add(taker);
      if (timeoutNanos > 0) {
        try {
          taker.timer = session.scheduler().schedule(
              () -> sending(() -> giveUp(taker, new TimeoutException())), timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closing) {
          giveUp(taker, new ClientClosedException(session.settings().connectString()));
          return taker;
        }
      }
      pump();
    }
    outbox.send();
    if (session.isClosed()) {
      sessionClosed(); // closed before this taker was seen by the session's observers
    }
    return taker;
  }

  /** Withdraws a taker not yet served; returns whether it withdrew. */
  boolean withdraw(Taker taker) {
    boolean withdrew = giveUp(taker, new CancellationException("take cancelled"));
    outbox.send();
    return withdrew;
  }

  /**
   * Gives a claimed item back: deletes its claim, in the background, across connection loss. The
   * item is a candidate again at once: a claim sent after the delete, on the same session, is
   * applied after it, so the next taker here takes the item back at its place in the queue.
   */
  void release(Claimed claimed) {
    synchronized (this) {
      giveBack(claimed);
    }
    outbox.send();
  }

  /** The claim of {@code claimed} is gone (or going): this client may take the item again. */
  void offerAgain(Claimed claimed) {
    synchronized (this) {
      offerAgainLocked(claimed);
    }
    outbox.send();
  }

  /** {@link #release}, holding the monitor: the delete goes out before any claim decided after it. */
  private void giveBack(Claimed claimed) {
    outbox.post(() -> ensemble.deleteInBackground(claimed.handle(), claimPath(claimed.item())));
    offerAgainLocked(claimed);
  }

  private void offerAgainLocked(Claimed claimed) {
    if (claimed.handle() == session.handle() && claimed.handle() == listedOn && claimed.czxid() != 0) {
      candidates.add(claimed.item());
      pump();
    }
  }

  /**
   * A handler of this client failed on {@code item}, which it is about to give back: the client's
   * takers leave the item to other clients for {@code nanos}, and take it afterwards only if it is
   * still free. Call before the claim's delete is sent.
   */
  void holdBack(String item, long nanos) {
    heldBack.hold(session, itemPath(item), nanos);
  }

  /** Sets a held-back candidate aside until its hold ends. */
  private void park(String item, long nanos) {
    parked.add(item);
    if (waking.add(item)) {
      try {
        session.scheduler().schedule(() -> sending(() -> holdEnded(item)), nanos, TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException closed) {
        waking.remove(item);
      }
    }
  }

  private synchronized void holdEnded(String item) {
    waking.remove(item);
    if (!parked.contains(item)) {
      return; // a listing since then did not find it free
    }
    long left = heldBack.remainingNanos(itemPath(item));
    parked.remove(item);
    if (left > 0) {
      park(item, left); // held back again meanwhile, by a later failure
    } else {
      candidates.add(item);
      pump();
    }
  }

  private synchronized boolean giveUp(Taker taker, Throwable reason) {
    if (taker.gone) {
      return false;
    }
    taker.gone = true;
    waiting.remove(taker);
    if (taker.timer != null) {
      taker.timer.cancel(false);
    }
    taker.result.completeExceptionally(reason);
    idleIfDone();
    return true;
  }

  private void deliver(Taker taker, Claimed claimed) {
    taker.gone = true;
    if (taker.timer != null) {
      taker.timer.cancel(false);
    }
    if (!taker.result.complete(claimed)) {
      giveBack(claimed);
    }
  }

  // ---- deciding what to do next --------------------------------------------------------------

  private void pump() {
    if (session.isClosed()) {
      return;
    }
    while (!waiting.isEmpty() && !candidates.isEmpty()) {
      String item = candidates.pollFirst();
      long held = heldBack.remainingNanos(itemPath(item));
      if (held > 0) {
        park(item, held);
      } else {
        attempt(waiting.poll(), item);
      }
    }
    if (waiting.isEmpty() || listing || backingOff) {
      idleIfDone();
      return;
    }
    if (dirty || listedOn != session.handle()) {
      list();
      return;
    }
    // The listing is current and holds nothing to claim: wait for a watch, unless not allowed to.
    for (Iterator<Taker> it = waiting.iterator(); it.hasNext(); ) {
      Taker taker = it.next();
      if (!taker.mayWait) {
        it.remove();
        taker.gone = true;
        taker.result.completeExceptionally(new TimeoutException());
      }
    }
    idleIfDone();
  }

  /** With nobody waiting and nothing in flight: stop observing, and leave no watch on a missing path. */
  private void idleIfDone() {
    if (!waiting.isEmpty() || !inFlight.isEmpty() || listing) {
      return;
    }
    if (observing) {
      observing = false;
      session.removeObserver(this);
    }
    if (pathWatchedOn != null) {
      dirty = true; // the watch is going, so the listing is no longer kept current
      stopWatchingPath(true);
    }
  }

  private void startWatchingPath(Session.Handle on) {
    if (pathWatchedOn != on) {
      stopWatchingPath(false);
      pathWatchedOn = on;
      PathWatches.started(on, serverPath);
    }
  }

  /** This object no longer waits for the path; the last of its session removes the watch (see {@link PathWatches}). */
  private void stopWatchingPath(boolean removeFromServer) {
    if (pathWatchedOn == null) {
      return;
    }
    Session.Handle on = pathWatchedOn;
    pathWatchedOn = null;
    if (removeFromServer) {
      // Counted and sent together, after what was decided before: an exists watch decided later
      // on this session goes out after the removal, never removed by it.
      outbox.post(() -> PathWatches.stopped(session, on, serverPath, true));
    } else {
      PathWatches.stopped(session, on, serverPath, false);
    }
  }

  private void changed(WatchedEvent event) {
    if (event.getType() == Watcher.Event.EventType.None) {
      return; // connection events; the session observer handles those
    }
    synchronized (this) {
      if (event.getType() == Watcher.Event.EventType.NodeCreated) {
        stopWatchingPath(false); // an exists watch fires once
      }
      dirty = true;
      pump();
    }
    outbox.send();
  }

  // ---- listing ------------------------------------------------------------------------------

  private void list() {
    listing = true;
    Session.Handle on = session.handle();
    if (pathWatchedOn != null && pathWatchedOn != on) {
      stopWatchingPath(false); // that session's watches are gone with it
    }
    outbox.post(() -> {
      // One after the other: the session answers in order, and claimsListed reads what itemsListed kept.
      ensemble.getChildren(on, serverPath, watcher, (rc, path, ctx, children) -> itemsListed(Code.get(rc), children));
      ensemble.getChildren(on, serverClaims, watcher,
          (rc, path, ctx, children) -> sending(() -> claimsListed(on, Code.get(rc), children)));
    });
  }

  private synchronized void itemsListed(Code code, List<String> children) {
    itemsCode = code;
    items = children;
    if (code == Code.OK) {
      dirty = false; // a change from here on fires the watch this listing set
    }
  }

  private synchronized void claimsListed(Session.Handle on, Code code, List<String> claims) {
    listing = false;
    Code listed = itemsCode;
    List<String> children = items;
    items = null;
    if (on != session.handle()) {
      dirty = true;
      pump();
      return;
    }
    if (listed == Code.OK && code != Code.OK && code != Code.NONODE) {
      listed = code; // the claims could not be read: as good as no listing
      dirty = true;
    }
    switch (listed) {
      case OK -> {
        retries = 0;
        listedOn = on;
        claimsExist = code == Code.OK;
        forgetListing();
        candidates.addAll(ItemNodes.unclaimed(children, claimsExist ? claims : List.of(), attempting));
        pump();
      }
      case NONODE -> watchForPath(on);
      case CONNECTIONLOSS, OPERATIONTIMEOUT -> backOff();
      case SESSIONEXPIRED, SESSIONMOVED -> sessionGone(on);
      default -> failAll(KeeperException.create(listed, serverPath));
    }
  }

  private void watchForPath(Session.Handle on) {
    listing = true;
    outbox.post(() -> ensemble.exists(on, serverPath, watcher,
        (rc, path, ctx, stat) -> sending(() -> pathChecked(on, Code.get(rc)))));
  }

  private synchronized void pathChecked(Session.Handle on, Code code) {
    listing = false;
    if (on != session.handle()) {
      dirty = true;
      pump();
      return;
    }
    switch (code) {
      case OK -> {
        dirty = true; // made meanwhile; the watch stays on an existing node until its next change
        pump();
      }
      case NONODE -> {
        retries = 0;
        startWatchingPath(on);
        listedOn = on;
        dirty = false;
        forgetListing();
        pump();
      }
      case CONNECTIONLOSS, OPERATIONTIMEOUT -> backOff();
      case SESSIONEXPIRED, SESSIONMOVED -> sessionGone(on);
      default -> failAll(KeeperException.create(code, serverPath));
    }
  }

  // ---- claiming -----------------------------------------------------------------------------

  private void attempt(Taker taker, String item) {
    Session.Handle on = session.handle();
    Attempt attempt = new Attempt(taker, item, on, claimData(), !claimsExist);
    attempting.add(item);
    inFlight.add(attempt);
    String itemPath = serverPath + "/" + item;
    outbox.post(() -> {
      // The ACLs too are asked for outside the monitor: the provider is the user's code.
      Op claim = Op.create(claimPath(item), attempt.claimData, session.settings().aclFor(claimPath(item)),
          CreateMode.EPHEMERAL);
      List<Op> ops = attempt.createsClaims
          ? List.of(Op.check(itemPath, -1),
              Op.create(serverClaims, EMPTY, session.settings().aclFor(serverClaims), CreateMode.CONTAINER), claim)
          : List.of(Op.check(itemPath, -1), claim);
      ensemble.multi(on, ops, (rc, path, ctx, results) -> claimAnswered(attempt, Code.get(rc), results));
    });
    read(attempt); // posted after the claim, so sent after it
  }

  private void read(Attempt attempt) {
    outbox.post(() -> ensemble.getData(attempt.handle, serverPath + "/" + attempt.item,
        (rc, path, ctx, data, stat) -> sending(() -> itemRead(attempt, Code.get(rc), data, stat))));
  }

  private synchronized void claimAnswered(Attempt attempt, Code code, List<OpResult> results) {
    attempt.claimCode = code;
    if (results != null) {
      for (int i = 0; i < results.size(); i++) {
        if (results.get(i) instanceof OpResult.ErrorResult error && error.getErr() != Code.OK.intValue()
            && error.getErr() != Code.RUNTIMEINCONSISTENCY.intValue()) {
          attempt.claimCode = Code.get(error.getErr());
          attempt.failedOp = i;
          break;
        }
      }
    }
  }

  private synchronized void itemRead(Attempt attempt, Code code, byte[] data, Stat stat) {
    switch (ClaimOutcome.of(attempt.claimCode, attempt.failedOp, attempt.createsClaims, code)) {
      case CLAIMED -> claimed(attempt, data, stat);
      case READ_AGAIN -> later(attempt, () -> read(attempt));
      case TAKEN, GONE, SESSION_GONE -> failed(attempt);
      case GONE_UNDER_CLAIM -> {
        giveBack(new Claimed(attempt.handle, attempt.item, data, 0, 0));
        failed(attempt);
      }
      case CREATE_CLAIMS_NODE -> {
        claimsExist = false;
        retry(attempt);
      }
      case CLAIMS_NODE_EXISTS -> {
        claimsExist = true;
        retry(attempt);
      }
      case UNKNOWN -> later(attempt, () -> findLostClaim(attempt));
      case CLAIM_REFUSED -> refused(attempt, attempt.claimCode, claimPath(attempt.item));
      case READ_REFUSED -> {
        giveBack(new Claimed(attempt.handle, attempt.item, data, 0, 0));
        refused(attempt, code, serverPath + "/" + attempt.item);
      }
    }
  }

  /** The ensemble refused the claim or the read (an ACL, say): the taker fails with the reason. */
  private void refused(Attempt attempt, Code code, String nodePath) {
    done(attempt);
    Taker taker = attempt.taker;
    if (!taker.gone) {
      taker.gone = true;
      if (taker.timer != null) {
        taker.timer.cancel(false);
      }
      taker.result.completeExceptionally(Errors.translate(KeeperException.create(code, nodePath), nodePath));
    }
    pump();
  }

  /** The claim's reply was lost: it is ours if its node holds this attempt's data. */
  private void findLostClaim(Attempt attempt) {
    outbox.post(() -> ensemble.getData(attempt.handle, claimPath(attempt.item), (rc, path, ctx, data, stat) -> {
      synchronized (this) {
        Code code = Code.get(rc);
        if (code == Code.OK && Arrays.equals(data, attempt.claimData)) {
          attempt.claimCode = Code.OK;
          read(attempt);
        } else if (code == Code.CONNECTIONLOSS || code == Code.OPERATIONTIMEOUT) {
          later(attempt, () -> findLostClaim(attempt));
        } else {
          failed(attempt); // not made, someone else's, or the session is gone
        }
      }
      outbox.send();
    }));
  }

  private void claimed(Attempt attempt, byte[] data, Stat stat) {
    done(attempt);
    retries = 0;
    Claimed claimed = new Claimed(attempt.handle, attempt.item, data, stat.getCzxid(), stat.getVersion());
    Taker taker = attempt.taker;
    if (taker.gone) {
      taker = waiting.poll(); // the one it was for gave up: the next in line gets it
    }
    if (taker == null) {
      giveBack(claimed);
    } else {
      deliver(taker, claimed);
    }
    pump();
  }

  /** The claim failed because the listing was stale: list again, and the taker goes first. */
  private void failed(Attempt attempt) {
    done(attempt);
    forgetListing();
    dirty = true;
    requeue(attempt.taker);
  }

  /** Claim the same item again, with the claims node made or not as now believed. */
  private void retry(Attempt attempt) {
    done(attempt);
    candidates.add(attempt.item);
    requeue(attempt.taker);
  }

  private void requeue(Taker taker) {
    if (taker.gone) {
      pump();
    } else if (session.isClosed()) {
      taker.gone = true;
      taker.result.completeExceptionally(new ClientClosedException(session.settings().connectString()));
    } else {
      waiting.addFirst(taker);
      pump();
    }
  }

  private void forgetListing() {
    candidates.clear();
    parked.clear();
  }

  private void done(Attempt attempt) {
    attempting.remove(attempt.item);
    inFlight.remove(attempt);
  }

  // ---- faults -------------------------------------------------------------------------------

  private void backOff() {
    dirty = true;
    backingOff = true;
    long delay = session.settings().retryPolicy().delayBefore(Math.min(++retries, 10)).toNanos();
    session.schedule(() -> {
      synchronized (this) {
        backingOff = false;
        pump();
      }
      outbox.send();
    }, Math.max(delay, TimeUnit.MILLISECONDS.toNanos(1)));
  }

  /** Runs {@code step} of an attempt after a pause; if the session changed meanwhile, the claim is gone. */
  private void later(Attempt attempt, Runnable step) {
    long delay = session.settings().retryPolicy().delayBefore(Math.min(++retries, 10)).toNanos();
    session.schedule(() -> {
      synchronized (this) {
        if (session.isClosed()) {
          return;
        }
        if (attempt.handle != session.handle()) {
          failed(attempt);
        } else {
          step.run();
        }
      }
      outbox.send();
    }, Math.max(delay, TimeUnit.MILLISECONDS.toNanos(1)));
  }

  /**
   * A request found its session expired: list again on the new one. If the session has not
   * opened its new handle yet, pause rather than send to the dead one again; the observer is
   * told when the new handle is there.
   */
  private void sessionGone(Session.Handle on) {
    dirty = true;
    if (session.handle() == on) {
      backOff();
    } else {
      pump();
    }
  }

  private void failAll(KeeperException error) {
    RuntimeException reason = Errors.translate(error, serverPath);
    forgetListing();
    dirty = true;
    for (Taker taker : waiting) {
      taker.gone = true;
      if (taker.timer != null) {
        taker.timer.cancel(false);
      }
      taker.result.completeExceptionally(reason);
    }
    waiting.clear();
    idleIfDone();
  }

  @Override
  public void connectionStateChanged(ConnectionState state, Session.Handle affected) {
    if (state == ConnectionState.LOST && affected.isExpired() || state == ConnectionState.RECONNECTED) {
      synchronized (this) {
        if (listedOn != session.handle()) {
          dirty = true; // the watches went with the old session
        }
        pump();
      }
      outbox.send();
    }
  }

  @Override
  public void sessionClosed() {
    ClientClosedException closed = new ClientClosedException(session.settings().connectString());
    synchronized (this) {
      for (Attempt attempt : inFlight) {
        waiting.add(attempt.taker); // its claim goes with the session
      }
      inFlight.clear();
      attempting.clear();
      for (Taker taker : waiting) {
        if (!taker.gone) {
          taker.gone = true;
          taker.result.completeExceptionally(closed);
        }
      }
      waiting.clear();
      observing = false;
      stopWatchingPath(false);
    }
    session.removeObserver(this);
  }

  /** Runs {@code step}, which takes the monitor, then sends what it decided; never call holding the monitor. */
  private void sending(Runnable step) {
    step.run();
    outbox.send();
  }

  private String itemPath(String item) {
    return serverPath + "/" + item;
  }

  private String claimPath(String item) {
    return serverClaims + "/" + item;
  }

  /** What a claim node holds: who claimed, and a UUID that tells this attempt's node from any other. */
  private static byte[] claimData() {
    return ("{" + CLAIMANT + ",\"claim\":\"" + UUID.randomUUID() + "\"}").getBytes(StandardCharsets.UTF_8);
  }

  private static String claimant() {
    String host;
    try {
      host = java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.io.IOException e) {
      host = "unknown";
    }
    return "\"host\":\"" + host.replace("\\", "\\\\").replace("\"", "\\\"") + "\",\"pid\":"
        + ProcessHandle.current().pid();
  }
}
