package dev.baton.internal.engine;

import dev.baton.ClientClosedException;
import dev.baton.ConnectionState;
import dev.baton.FencingTokens;
import dev.baton.ZkPaths;
import dev.baton.internal.session.Errors;
import dev.baton.internal.session.Nodes;
import dev.baton.internal.session.Session;
import dev.baton.internal.session.SessionObserver;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;

/**
 * One place in the ordered queue of sequential nodes under a lock path: the algorithm every
 * lock-like recipe shares. It creates an ephemeral sequential node, and waits until the {@link
 * QueueRule} says the nodes below it no longer stand in its way.
 *
 * <p>Design notes (ZooKeeper's lock recipe, with its known pitfalls avoided):
 *
 * <ul>
 *   <li>The create and the first listing are sent together: the session answers in order, so the
 *       listing already contains the new node. One round trip instead of two.
 *   <li>The waiters of one session on one path share their listings ({@link SharedListings}):
 *       at most one listing is on its way at a time, and the next, sent once it is answered,
 *       serves every waiter that asked meanwhile. Each listing is sorted once into a {@link
 *       QueueSnapshot}, in which each waiter finds its place by binary search and keeps at most
 *       {@link #WINDOW} names. Ten thousand {@code acquireAsync} waiters queued at once cost
 *       about ten listings instead of ten thousand of up to ten thousand names each; a waiter
 *       that asks while a listing is on its way may wait one round trip more.
 *   <li>A waiter with at most {@link #WATCHED} nodes in its way watches them all (getData
 *       watches sent together); one with more watches the nearest. Once all it watches are gone
 *       it knows it holds the lock without listing again, where watching only the nearest would
 *       need a second listing after most wake-ups (the difference is about 1.4x in hand-overs
 *       per second between clients). The bound keeps it herd-free: one node's deletion wakes at
 *       most {@link #WATCHED} waiters. Watches are {@code getData} ones: an {@code exists}
 *       watch on a node that is already gone would stay on the server.
 *   <li>Often no second listing after a wake-up: a node below ours can only disappear, never
 *       appear (later creates get higher sequence numbers; a read-write lock's downgrade is the
 *       exception, see {@link QueueRule#grantsWithoutRelisting()}), so the last listing, less the nodes
 *       seen to go, is a superset of what is below. The rule is monotone (fewer nodes below never
 *       makes a waiter wait longer), so when it lets us through on that superset we hold the lock
 *       without asking again. When it does not, we list again rather than ask about each
 *       remaining node in turn: in a busy queue they are usually gone already. Only a window of
 *       the nodes just below is kept ({@link #WINDOW}), so memory stays constant per waiter.
 *   <li>A waiter that takes the lock with nothing left below it records that every lower node is
 *       gone ({@link SharedListings#learnGoneBelow}); the waiter behind it, woken when it goes,
 *       so knows the rest of its window (and what lay below the window) is gone too, and holds
 *       the lock without listing again. A hand-over deep in a long queue costs no listing.
 *       Only queues of one kind of node learn this: a read-write lock's downgrade adds a read
 *       node below waiters, so a reader holding with "nothing below" may be wrong about it.
 *   <li>Protected names ({@code _c_<uuid>-<prefix><seq>}, Curator's form): when a create's reply is
 *       lost with the connection, the waiter finds its node by the UUID instead of leaking it,
 *       and checks the node belongs to the current session, never trusting one of a dead session.
 *   <li>A waiter that times out, is cancelled or fails deletes its node, however far its create
 *       had got. Session expiry removes the node with the session, so the waiter queues again
 *       on the client's new session, within its original deadline.
 * </ul>
 *
 * All state is guarded by {@code this}; ZooKeeper callbacks arrive on the event thread of the
 * handle they were sent on, timers on the session's scheduler.
 */
public final class QueueWaiter implements SessionObserver {

  /**
   * Which node below ours to wait for; {@code null} when none stands in the way. Must be
   * monotone: removing nodes from the list never turns a {@code null} into a blocker.
   */
  public interface QueueRule {
    String blocker(List<String> lowerNodesInOrder);

    /**
     * Whether a wake-up may grant on the last listing less the nodes seen to go, without listing
     * again. That shortcut assumes no node that matters to this rule can appear below a waiter;
     * a read-write lock's writer must list again, because a holder that downgrades adds a read
     * node at its write node's place in the queue (as Curator does, CURATOR-621).
     */
    default boolean grantsWithoutRelisting() {
      return true;
    }

    /**
     * Whether the waiter shares its listings with the other waiters of its session on the same
     * path. A rule that never blocks gains nothing by it and could lose a round trip: a
     * semaphore's lease nodes, created back to back, each list with their own create.
     */
    default boolean sharesListings() {
      return true;
    }
  }

  /**
   * The names in one queue: ours is {@code _c_<uuid>-<createPrefix><seq>}; every child carrying
   * one of {@code kinds} takes part, ordered by the sequence after it (a read-write lock queues
   * {@code __READ__} and {@code __WRIT__} nodes together).
   */
  public record QueueLayout(String createPrefix, List<String> kinds) {
    public static QueueLayout of(String prefix) {
      return new QueueLayout(prefix, List.of(prefix));
    }
  }

  /** The node a waiter got and the session it belongs to. */
  public record Acquisition(Session.Handle handle, String serverNodePath, long token) {}

  private enum Phase { QUEUEING, HELD, ABANDONED }

  /**
   * How many of the nodes just below ours a waiter remembers. Keeping all of them would cost
   * memory quadratic in the queue's length (ten thousand waiters in one JVM); when the window is
   * used up while more nodes were below it, the waiter lists the children again.
   */
  static final int WINDOW = 16;

  /** How many of the nodes that stand in a waiter's way it watches at once. */
  static final int WATCHED = 3;

  private final Session session;
  private final String serverLockPath;
  private final QueueLayout layout;
  private final QueueRule rule;
  private final byte[] data;
  private final boolean mayWait;
  /** Whether a hold with nothing below may be recorded as "all lower nodes gone" (one kind only). */
  private final boolean learnsFloor;
  private final CompletableFuture<Acquisition> result = new CompletableFuture<>();
  private Supplier<RuntimeException> onTimeout;

  private Phase phase = Phase.QUEUEING;
  private Session.Handle handle;
  private String uuid;
  private String ourNode;
  private long token;
  /** The listings shared on the current handle while queueing; null otherwise. */
  private SharedListings shared;
  /** Only the answer to the latest listing asked for counts. */
  private int listingRequest;
  /** The life of the lock path in which our node was listed ({@link QueueSnapshot#incarnation()}). */
  private long incarnation;
  private List<String> lower;
  /** When the window did not hold every node below ours: the sequence of its lowest; else null. */
  private String truncatedBelow;
  /** The nodes watched now, with their watchers (to remove them from the server on abandon). */
  private final Map<String, Watcher> watching = new HashMap<>(4);
  private ScheduledFuture<?> timer;
  private int retries;
  private long lockDelayNanos;
  /**
   * What a claim of our current node read before it, when its own reply was lost: a retry then
   * reads our own record, which no longer says who held before. Null while not known.
   */
  private Boolean previousLostBeforeClaim;

  public QueueWaiter(Session session, String serverLockPath, QueueLayout layout, QueueRule rule, byte[] data,
      boolean mayWait) {
    this.session = session;
    this.serverLockPath = serverLockPath;
    this.layout = layout;
    this.rule = rule;
    this.data = data;
    this.mayWait = mayWait;
    this.learnsFloor = layout.kinds().size() == 1;
  }

  /**
   * Turns on lock-delay ({@link LockDelay}): once nothing stands in the way, the waiter records
   * itself as holder and, if the holder before it was lost rather than released, is granted only
   * {@code nanos} later. Call before {@link #start}.
   */
  public QueueWaiter withLockDelay(long nanos) {
    this.lockDelayNanos = nanos;
    return this;
  }

  /**
   * Joins the queue. The future completes on ZooKeeper's event thread; {@code timeoutNanos < 0}
   * waits without limit, and on timeout (or, for a waiter that may not wait, on finding someone
   * ahead) the future fails with {@code onTimeout}'s exception. A waiter cancelled before this
   * call sends nothing and returns its failed future.
   */
  public CompletableFuture<Acquisition> start(long timeoutNanos, Supplier<RuntimeException> onTimeout) {
    Runnable requests;
    synchronized (this) {
      if (phase != Phase.QUEUEING) {
        // Left before it started (its owner's waiters all went): abandon() has nothing to undo
        // for a waiter registered nowhere, so it must not register, nor send a create.
        return result;
      }
      session.addObserver(this);
      this.onTimeout = onTimeout;
      try {
        if (timeoutNanos >= 0 && mayWait) {
          timer = session.scheduler().schedule(
              () -> abandon(onTimeout.get()), timeoutNanos, TimeUnit.NANOSECONDS);
        }
        handle = session.handle();
        joinShared();
        requests = prepareSend();
      } catch (RuntimeException e) {
        abandon(e);
        return result;
      }
    }
    // Sent outside the monitor, which ZooKeeper's event thread and the session's timers take: the
    // caller's thread may be a virtual one, and the ACL provider is the user's code. A cancel or a
    // timeout meanwhile finds no node yet to delete; the create's reply (onCreated) then sees the
    // waiter abandoned and deletes the node, so a start racing a cancel leaves nothing behind.
    try {
      requests.run();
    } catch (RuntimeException e) {
      abandon(e);
      return result;
    }
    if (session.isClosed()) {
      abandon(new ClientClosedException(session.settings().connectString()));
    }
    return result;
  }

  /**
   * Withdraws from the queue unless the lock was already granted; returns whether it withdrew.
   * A granted acquisition is the caller's to release.
   */
  public boolean cancel() {
    return abandon(new CancellationException("acquisition of " + serverLockPath + " cancelled"));
  }

  private synchronized boolean abandon(RuntimeException reason) {
    if (phase != Phase.QUEUEING) {
      return false;
    }
    phase = Phase.ABANDONED;
    finish();
    unwatchAll();
    if (ourNode != null) {
      Nodes.deleteInBackground(session, handle, nodePath(ourNode));
    }
    // With the create still unanswered, onCreated or the lost-reply search deletes the node.
    result.completeExceptionally(reason);
    return true;
  }

  private void finish() {
    if (timer != null) {
      timer.cancel(false);
    }
    session.removeObserver(this);
    leaveShared();
  }

  private void joinShared() {
    leaveShared();
    if (rule.sharesListings()) {
      shared = SharedListings.join(handle, serverLockPath, layout.kinds());
    }
  }

  private void leaveShared() {
    if (shared != null) {
      shared.leave();
      shared = null;
    }
  }

  // ---- joining the queue ------------------------------------------------------------------

  private void send() {
    prepareSend().run();
  }

  /**
   * Called holding the monitor: starts over with a new node, and returns the create and the
   * listing to send, in that order, on the current handle. Only the answers to these count from
   * here on, whether they are sent before the monitor is left or after.
   */
  private Runnable prepareSend() {
    uuid = UUID.randomUUID().toString();
    ourNode = null;
    previousLostBeforeClaim = null;
    lower = null;
    truncatedBelow = null;
    Session.Handle sentOn = handle;
    String protectedPrefix = serverLockPath + "/" + LockNodes.protectedMarker(uuid) + layout.createPrefix();
    Runnable listing = prepareListing(false);
    return () -> {
      sentOn.zk().create(protectedPrefix, data, session.settings().aclFor(protectedPrefix),
          CreateMode.EPHEMERAL_SEQUENTIAL,
          (rc, path, ctx, name, stat) -> onCreated(sentOn, Code.get(rc), name, stat), null);
      listing.run();
    };
  }

  /**
   * Asks for a listing sent after every request this waiter sent so far: a shared one while
   * queueing, else its own (a rule that does not share, or a waiter that has left and looks for
   * the node of a lost create reply, to delete it).
   */
  private void requestListing(boolean searching) {
    prepareListing(searching).run();
  }

  /** Called holding the monitor: makes the listing the latest asked for, and returns its sending. */
  private Runnable prepareListing(boolean searching) {
    Session.Handle sentOn = handle;
    int request = ++listingRequest;
    SharedListings.Reader reader = (code, snapshot) -> onListing(sentOn, request, searching, code, snapshot);
    SharedListings listings = shared;
    if (listings != null) {
      return () -> listings.list(reader);
    }
    return () -> SharedListings.listAlone(sentOn, serverLockPath, layout.kinds(), reader);
  }

  private synchronized void onListing(Session.Handle sentOn, int request, boolean searching, Code code,
      QueueSnapshot snapshot) {
    if (sentOn != handle || request != listingRequest) {
      return; // the answer to a later request is on its way
    }
    if (searching) {
      lostCreateListed(sentOn, code, snapshot);
    } else {
      onListed(code, snapshot);
    }
  }

  private synchronized void onCreated(Session.Handle sentOn, Code code, String name, Stat stat) {
    if (sentOn != handle) {
      return;
    }
    switch (code) {
      case OK -> {
        ourNode = ZkPaths.name(name);
        token = FencingTokens.ofNode(stat.getCzxid());
        if (phase == Phase.ABANDONED) {
          Nodes.deleteInBackground(session, handle, name);
        }
      }
      case NONODE -> {
        if (phase == Phase.QUEUEING) {
          Nodes.createParents(session, serverLockPath + "/x").whenComplete((ok, error) -> {
            synchronized (this) {
              if (sentOn != handle || phase != Phase.QUEUEING) {
                return;
              }
              if (error != null && !isConnectionLoss(error)) {
                fail(error);
              } else {
                send();
              }
            }
          });
        }
      }
      case CONNECTIONLOSS, OPERATIONTIMEOUT -> later(this::searchForLostCreate);
      case SESSIONEXPIRED, SESSIONMOVED -> requeueIfSessionReplaced();
      default -> fail(KeeperException.create(code, serverLockPath));
    }
  }

  private void onListed(Code code, QueueSnapshot snapshot) {
    if (ourNode == null || phase != Phase.QUEUEING) {
      return; // the create failed, and its own handling goes on
    }
    switch (code) {
      case OK -> decide(snapshot);
      case CONNECTIONLOSS, OPERATIONTIMEOUT -> later(this::relist);
      case NONODE -> send(); // the whole lock path vanished, our node with it
      case SESSIONEXPIRED, SESSIONMOVED -> requeueIfSessionReplaced();
      default -> fail(KeeperException.create(code, serverLockPath));
    }
  }

  private void relist() {
    if (phase == Phase.QUEUEING) {
      requestListing(false);
    }
  }

  /**
   * The create's reply was lost: the node may or may not exist. Look for our UUID among the
   * children; only a node owned by the current session is ours to use.
   *
   * <p>A {@code sync} goes first, in the same round trip: on an ensemble the session may now be on
   * another server than the one the create went through, which may not have applied it yet; a
   * listing there could miss our node, and the node created next would leave the first an orphan
   * blocking the queue for the session's life. The server answers the session's later listing only
   * once it has caught up with the leader as of the sync. Only this rare path pays for it.
   */
  private void searchForLostCreate() {
    handle.zk().sync(serverLockPath, (rc, path, ctx) -> { }, null); // the listing's outcome tells
    requestListing(true);
  }

  private void lostCreateListed(Session.Handle sentOn, Code code, QueueSnapshot snapshot) {
    if (code == Code.CONNECTIONLOSS || code == Code.OPERATIONTIMEOUT) {
      later(this::searchForLostCreate);
      return;
    }
    if (code == Code.SESSIONEXPIRED || code == Code.SESSIONMOVED) {
      requeueIfSessionReplaced();
      return;
    }
    String found = null;
    if (code == Code.OK) {
      String marker = LockNodes.protectedMarker(uuid);
      for (String child : snapshot.between(0, snapshot.size())) {
        if (child.startsWith(marker)) {
          found = child;
        }
      }
    }
    if (found == null) {
      if (phase == Phase.QUEUEING) {
        send();
      }
      return;
    }
    checkOwnership(sentOn, found, snapshot);
  }

  private void checkOwnership(Session.Handle sentOn, String found, QueueSnapshot snapshot) {
    sentOn.zk().exists(nodePath(found), false, (rc, path, ctx, stat) -> {
      synchronized (this) {
        if (sentOn != handle) {
          return;
        }
        Code code = Code.get(rc);
        if (code == Code.CONNECTIONLOSS || code == Code.OPERATIONTIMEOUT) {
          later(this::searchForLostCreate);
        } else if (code == Code.OK && stat.getEphemeralOwner() == sentOn.sessionId()) {
          ourNode = found;
          token = FencingTokens.ofNode(stat.getCzxid());
          if (phase == Phase.ABANDONED) {
            Nodes.deleteInBackground(session, handle, nodePath(found));
          } else {
            decide(snapshot);
          }
        } else {
          if (code == Code.OK) {
            // Made by this client on a session that has since ended: never ours to hold.
            Nodes.deleteInBackground(session, handle, nodePath(found));
          }
          if (phase == Phase.QUEUEING) {
            send();
          }
        }
      }
    }, null);
  }

  // ---- waiting ----------------------------------------------------------------------------

  private void decide(QueueSnapshot snapshot) {
    int ours = snapshot.indexOf(ourNode);
    incarnation = snapshot.incarnation();
    String floor = goneBelow();
    if (ours < 0 || floor != null && sequence(ourNode).compareTo(floor) < 0) {
      // Our node is gone though the session lives (deleted by someone): queue again.
      send();
      return;
    }
    // Nodes the listing still showed may be known to be gone since.
    List<String> below = snapshot.between(floor == null ? 0 : snapshot.firstAtOrAbove(floor), ours);
    // The rule sees the whole listing; only a window of it is remembered for the wake-up.
    String blocker = rule.blocker(below);
    lower = new ArrayList<>(below.subList(Math.max(0, below.size() - WINDOW), below.size()));
    truncatedBelow = below.size() > WINDOW ? sequence(lower.get(0)) : null;
    if (blocker == null) {
      granted();
    } else if (!mayWait) {
      abandon(onTimeout.get());
    } else {
      watching.clear();
      for (String node : inTheWay(blocker)) {
        watch(node);
      }
    }
  }

  /**
   * The nodes to watch: all that stand in our way when they are few enough to tell, once all are
   * gone, that we hold the lock; otherwise only the nearest, since a listing will be needed when
   * it goes anyway (those further down may still be there).
   */
  private List<String> inTheWay(String blocker) {
    if (truncatedBelow != null) {
      return List.of(blocker);
    }
    List<String> standing = new ArrayList<>(WATCHED + 1);
    List<String> rest = new ArrayList<>(lower);
    for (String next = blocker; next != null && standing.size() <= WATCHED; next = rule.blocker(rest)) {
      standing.add(next);
      rest.remove(next);
    }
    return standing.size() <= WATCHED ? standing : List.of(blocker);
  }

  private void watch(String blocker) {
    if (phase != Phase.QUEUEING) {
      return; // a retry that outlived the wait
    }
    Session.Handle sentOn = handle;
    Watcher watcher = session.watching(event -> onBlockerEvent(sentOn, blocker, event));
    watching.put(blocker, watcher);
    sentOn.zk().getData(nodePath(blocker), watcher, (rc, path, ctx, bytes, stat) -> {
      synchronized (this) {
        if (sentOn != handle || phase != Phase.QUEUEING || watching.get(blocker) != watcher) {
          return;
        }
        switch (Code.get(rc)) {
          case OK -> { } // the watch is set; its event drives what follows
          case NONODE -> gone(blocker);
          case CONNECTIONLOSS, OPERATIONTIMEOUT -> later(() -> watch(blocker));
          case SESSIONEXPIRED, SESSIONMOVED -> requeueIfSessionReplaced();
          default -> fail(KeeperException.create(Code.get(rc), path));
        }
      }
    }, null);
  }

  private synchronized void onBlockerEvent(Session.Handle sentOn, String blocker, WatchedEvent event) {
    if (sentOn != handle || phase != Phase.QUEUEING || !watching.containsKey(blocker)) {
      return;
    }
    switch (event.getType()) {
      case NodeDeleted -> gone(blocker);
      case NodeDataChanged, NodeCreated -> watch(blocker); // a one-shot watch fired; set it again
      case DataWatchRemoved -> watch(blocker); // another waiter of this client on the node withdrew
      default -> { } // connection events: the watch survives a reconnect of the same session
    }
  }

  /**
   * A node we watched is gone. If nothing else that was below us stands in the way we hold the
   * lock without asking again; if the next in the way is watched too, its deletion will tell.
   * Otherwise the rest are most likely gone too (in a busy queue, those below a holder left
   * before it got the lock), so one fresh listing beats asking about each in turn.
   */
  private void gone(String node) {
    if (watching.remove(node) == null) {
      return; // an earlier watch on the same node, from before a relisting
    }
    lower.remove(node);
    forgetNodesKnownGone();
    String next = rule.blocker(lower);
    if (next == null && truncatedBelow == null && rule.grantsWithoutRelisting()) {
      granted();
    } else if (next == null || !watching.containsKey(next)) {
      watching.clear();
      relist();
    }
  }

  /**
   * Removes the watches of a waiter that gives up: a {@code getData} watch on a node that lives on
   * (the holder, still holding) would otherwise stay on the server until that node goes. Removing
   * one watcher is only checked by the server (ZooKeeper 3.9); removing all of the client's
   * watchers on the path is done there, and any other waiter of this client on that node is told
   * ({@code DataWatchRemoved}) and sets its watch again.
   */
  private void unwatchAll() {
    if (watching.isEmpty()) {
      return;
    }
    Session.Handle sentOn = handle;
    // local=false: see PathWatches.removeFromServer for why a removal must never be local.
    watching.keySet().forEach(node -> sentOn.zk().removeAllWatches(nodePath(node),
        Watcher.WatcherType.Data, false, (rc, path, ctx) -> { }, null));
    watching.clear();
  }

  /**
   * Drops from the window the nodes that a waiter of this session, holding with nothing below
   * it, has since learnt to be gone; and the nodes below the window with them, if they were all
   * lower than that.
   */
  private void forgetNodesKnownGone() {
    String floor = goneBelow();
    if (floor == null) {
      return;
    }
    lower.removeIf(node -> sequence(node).compareTo(floor) < 0);
    if (truncatedBelow != null && truncatedBelow.compareTo(floor) <= 0) {
      truncatedBelow = null;
    }
  }

  /** The sequence below which every node of our queue is known to be gone, or null. */
  private String goneBelow() {
    return learnsFloor && shared != null ? shared.goneBelow(incarnation) : null;
  }

  private String sequence(String node) {
    return LockNodes.sequence(node, LockNodes.kindOf(node, layout.kinds()));
  }

  private void granted() {
    watching.clear(); // every watched node is gone
    if (learnsFloor && shared != null && lower.isEmpty() && truncatedBelow == null) {
      // Nothing is below us and nothing can appear there: tell the waiters behind us.
      shared.learnGoneBelow(incarnation, sequence(ourNode));
    }
    if (lockDelayNanos > 0) {
      claim();
    } else {
      grantNow();
    }
  }

  /**
   * Lock-delay: reads the holder record of the lock path and writes ours in the same round trip
   * (the session answers in order, so the read sees the record as it was before ours).
   */
  private void claim() {
    if (phase != Phase.QUEUEING) {
      return; // a retry that outlived the wait
    }
    Session.Handle sentOn = handle;
    byte[][] previous = new byte[1][];
    Code[] readCode = new Code[1];
    sentOn.zk().getData(serverLockPath, false, (rc, path, ctx, bytes, stat) -> {
      readCode[0] = Code.get(rc);
      previous[0] = bytes;
    }, null);
    sentOn.zk().setData(serverLockPath, LockDelay.held(ourNode), -1, (rc, path, ctx, stat) -> {
      synchronized (this) {
        if (sentOn != handle || phase != Phase.QUEUEING) {
          return;
        }
        Code code = Code.get(rc) != Code.OK ? Code.get(rc) : readCode[0];
        if (readCode[0] == Code.OK && !LockDelay.isOwnClaim(previous[0], ourNode)
            && previousLostBeforeClaim == null) {
          previousLostBeforeClaim = LockDelay.previousHolderWasLost(previous[0], ourNode);
        }
        switch (code) {
          case OK -> {
            if (mustDelay(previous[0])) {
              session.schedule(() -> {
                synchronized (this) {
                  if (sentOn == handle && phase == Phase.QUEUEING) {
                    grantNow();
                  }
                }
              }, lockDelayNanos);
            } else {
              grantNow();
            }
          }
          case CONNECTIONLOSS, OPERATIONTIMEOUT -> later(this::claim);
          case SESSIONEXPIRED, SESSIONMOVED -> requeueIfSessionReplaced();
          default -> fail(KeeperException.create(code, serverLockPath));
        }
      }
    }, null);
  }

  /**
   * Whether the holder before us may have been lost. Our own record means an earlier claim of
   * this node was applied and its reply lost: what that claim read decides, and if its read was
   * lost too, nobody can tell any more, so the grant waits (a lost holder's writes may be in flight).
   */
  private boolean mustDelay(byte[] record) {
    if (LockDelay.isOwnClaim(record, ourNode)) {
      return previousLostBeforeClaim == null || previousLostBeforeClaim;
    }
    return LockDelay.previousHolderWasLost(record, ourNode);
  }

  private void grantNow() {
    phase = Phase.HELD;
    finish();
    retries = 0;
    result.complete(new Acquisition(handle, nodePath(ourNode), token));
  }

  // ---- faults -----------------------------------------------------------------------------

  @Override
  public void connectionStateChanged(ConnectionState state, Session.Handle affected) {
    if (state == ConnectionState.LOST && affected.isExpired()) {
      synchronized (this) {
        if (affected == handle) {
          requeueIfSessionReplaced();
        }
      }
    }
  }

  @Override
  public void sessionClosed() {
    abandon(new ClientClosedException(session.settings().connectString()));
  }

  /** After expiry the node is gone with the session: queue again on the new one. */
  private void requeueIfSessionReplaced() {
    Session.Handle current = session.handle();
    if (current == handle || phase != Phase.QUEUEING) {
      return; // the session has not opened its new handle yet; connectionStateChanged will call
    }
    handle = current;
    joinShared();
    send();
  }

  private void later(Runnable step) {
    long delay = session.settings().retryPolicy().delayBefore(Math.min(++retries, 10)).toNanos();
    Session.Handle scheduledOn = handle;
    session.schedule(() -> {
      synchronized (this) {
        if (scheduledOn == handle && !session.isClosed()) {
          step.run();
        }
      }
    }, Math.max(delay, TimeUnit.MILLISECONDS.toNanos(1)));
  }

  private void fail(Throwable error) {
    RuntimeException reason = Errors.translate(error, serverLockPath);
    abandon(reason);
  }

  private String nodePath(String node) {
    return serverLockPath + "/" + node;
  }

  private static boolean isConnectionLoss(Throwable error) {
    Throwable cause = error instanceof java.util.concurrent.CompletionException ? error.getCause() : error;
    return cause instanceof KeeperException.ConnectionLossException;
  }
}
