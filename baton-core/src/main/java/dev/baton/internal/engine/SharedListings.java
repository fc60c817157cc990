package dev.baton.internal.engine;

import dev.baton.internal.session.Session;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.data.Stat;

/**
 * The listings of one queue that the waiters of one session share, and what they have learnt
 * about nodes gone from it: one object per session handle, lock path and node kinds, alive while
 * a waiter of that session queues there.
 *
 * <p>Why listings can be shared: ZooKeeper answers one session's requests in order, so a listing
 * sent after a waiter's create shows that waiter's node, and every node below it still there.
 * So at most one listing is on its way at a time; a waiter that asks while it is on its way waits
 * for the next one, which is sent as soon as the first is answered and serves every waiter that
 * asked meanwhile. Ten thousand waiters queued at once from one thread cost about ten listings
 * (eight in the benchmark) instead of ten thousand, each of up to ten thousand names: O(n^2)
 * names for the server to send and the client to sort, which ran a 1 GB heap out. The price is
 * at most one more round trip for a waiter that asks while a listing is on its way; a lone
 * waiter still sends its listing with its create.
 *
 * <p>What is learnt: in a queue whose nodes are all created sequential (not a read-write lock's,
 * where a downgrade adds one at its write node's place), a waiter that holds the lock while
 * nothing stood below it knows that every node with a lower sequence is gone for good (a
 * sequential node never reappears, and later ones get higher numbers). It records that here as a floor, so the waiter behind it, woken by its
 * deletion, knows the nodes further below are gone too and takes the lock without listing again.
 * Without it, each hand-over in a long queue would cost a listing of the whole queue. The floor
 * belongs to one life of the path ({@link QueueSnapshot#incarnation()}).
 */
final class SharedListings {

  /** Called with a listing's outcome, on the event thread, with no monitor of this class held. */
  interface Reader {
    void listed(Code code, QueueSnapshot snapshot);
  }

  private record Key(Session.Handle handle, String serverPath, List<String> kinds) {}

  private static final Map<Key, SharedListings> OPEN = new ConcurrentHashMap<>();

  private final Key key;
  /** Waiters using this object; only changed inside {@code OPEN}'s atomic updates of its key. */
  private int users;

  // Guarded by this.
  /** The readers of the listing on its way; null when none is. */
  private List<Reader> answering;
  /** The readers of the listing to send once that one is answered; null when none asked. */
  private List<Reader> waiting;
  private long floorIncarnation;
  /** Every node of the queue in {@code floorIncarnation} with a lower sequence is gone; or null. */
  private String floor;

  private SharedListings(Key key) {
    this.key = key;
  }

  /** The object of {@code handle}'s session for this queue; call {@link #leave()} when done. */
  static SharedListings join(Session.Handle handle, String serverPath, List<String> kinds) {
    return OPEN.compute(new Key(handle, serverPath, kinds), (key, existing) -> {
      SharedListings shared = existing != null ? existing : new SharedListings(key);
      shared.users++;
      return shared;
    });
  }

  /** How many waiters of {@code handle}'s session share the listings of this queue now. */
  static int users(Session.Handle handle, String serverPath, List<String> kinds) {
    SharedListings shared = OPEN.get(new Key(handle, serverPath, kinds));
    return shared == null ? 0 : shared.users;
  }

  /** One waiter is done with it; the last one's leaving forgets it (a listing on its way still answers). */
  void leave() {
    OPEN.computeIfPresent(key, (k, current) -> current != this || --users > 0 ? current : null);
  }

  /**
   * Asks for a listing sent after this call: the caller's earlier requests on the session (its
   * create) are answered before it.
   */
  void list(Reader reader) {
    synchronized (this) {
      if (answering != null) {
        if (waiting == null) {
          waiting = new ArrayList<>();
        }
        waiting.add(reader);
        return;
      }
      answering = new ArrayList<>(1);
      answering.add(reader);
    }
    send();
  }

  private void send() {
    try {
      key.handle().zk().getChildren(key.serverPath(), false,
          (rc, path, ctx, children, stat) -> answered(Code.get(rc), children, stat), null);
    } catch (RuntimeException e) {
      answered(Code.SYSTEMERROR, null, null);
    }
  }

  private void answered(Code code, List<String> children, Stat stat) {
    List<Reader> readers;
    boolean sendNext;
    synchronized (this) {
      readers = answering;
      answering = waiting;
      waiting = null;
      sendNext = answering != null;
    }
    if (sendNext) {
      send(); // before the answers are handed out, which may take a while with many readers
    }
    QueueSnapshot snapshot = code == Code.OK ? QueueSnapshot.of(children, key.kinds(), stat.getCzxid()) : null;
    for (Reader reader : readers) {
      reader.listed(code, snapshot);
    }
  }

  /** A listing of the caller's own, not shared: for a waiter that has left, or one that never waits. */
  static void listAlone(Session.Handle handle, String serverPath, List<String> kinds, Reader reader) {
    handle.zk().getChildren(serverPath, false, (rc, path, ctx, children, stat) -> {
      Code code = Code.get(rc);
      reader.listed(code, code == Code.OK ? QueueSnapshot.of(children, kinds, stat.getCzxid()) : null);
    }, null);
  }

  /**
   * Records that every node of the queue below {@code sequence} is gone, in the life of the path
   * that {@code incarnation} names. A later life replaces what was known of an earlier one.
   */
  synchronized void learnGoneBelow(long incarnation, String sequence) {
    if (incarnation > floorIncarnation || floor == null) {
      floorIncarnation = incarnation;
      floor = sequence;
    } else if (incarnation == floorIncarnation && sequence.compareTo(floor) > 0) {
      floor = sequence;
    }
  }

  /** The sequence below which every node is known to be gone in that life of the path, or null. */
  synchronized String goneBelow(long incarnation) {
    return floor != null && incarnation == floorIncarnation ? floor : null;
  }
}
