package dev.baton.internal.atomic;

import dev.baton.BatonException;
import dev.baton.BatonInterruptedException;
import dev.baton.ConnectionException;
import dev.baton.OutcomeUnknownException;
import dev.baton.SessionLostException;
import dev.baton.atomic.Counter;
import dev.baton.internal.session.Errors;
import dev.baton.internal.session.Nodes;
import dev.baton.internal.session.Retrying;
import dev.baton.internal.session.Session;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * The counter: a decimal {@code long} in one persistent node, every update a conditional write
 * on the version it was computed from (a create when the node is missing, which is just as
 * conditional: it fails if anyone created the node first).
 *
 * <p>Why a lost reply is not simply retried, as Curator's {@code DistributedAtomicLong} does: the
 * write may have been applied, and re-running the whole read-add-write cycle would then add twice.
 * Instead {@link #write} reads the node once the connection is back and compares it with the
 * snapshot the write was based on; see {@link Counter} for the rules and the guarantee.
 */
public final class ZkCounter implements Counter {
  private final Session session;
  private final String path;
  private final String serverPath;
  // The node as this object last saw it, so that a compare-and-set right after a get() is a single
  // write. Only a hint: the version check at the ensemble decides, and a stale hint costs a read.
  private final AtomicReference<Snapshot> lastSeen = new AtomicReference<>();

  public ZkCounter(Session session, String path) {
    this.session = session;
    this.path = path;
    this.serverPath = session.settings().onServer(path);
  }

  /**
   * The node as read: its value, its version (-1: no node) and the zxid that created it, which
   * tells a node deleted and created again apart from the one a write was based on.
   */
  record Snapshot(long value, int version, long czxid) {
    static final Snapshot MISSING = new Snapshot(0, -1, 0);

    boolean exists() {
      return version >= 0;
    }

    /** Nothing was written since {@code before}. */
    boolean unchangedSince(Snapshot before) {
      return version == before.version && czxid == before.czxid;
    }

    /** Exactly one write (or the create) happened since {@code before}. */
    boolean oneWriteAfter(Snapshot before) {
      return before.exists()
          ? czxid == before.czxid && version == before.version + 1
          : version == 0;
    }
  }

  /** One conditional write: applied, or refused with the node as it is now. */
  private record Attempt(boolean applied, Snapshot current) {}

  @Override
  public String path() {
    return path;
  }

  @Override
  public long get() {
    return read().value();
  }

  @Override
  public void set(long value) {
    byte[] data = encode(value);
    Stat stat = Retrying.call(session, path, zk -> {
      try {
        return zk.setData(serverPath, data, -1);
      } catch (KeeperException.NoNodeException missing) {
        try {
          return create(zk, data);
        } catch (KeeperException.NodeExistsException createdMeanwhile) {
          return zk.setData(serverPath, data, -1);
        }
      }
    });
    lastSeen.set(new Snapshot(value, stat.getVersion(), stat.getCzxid()));
  }

  @Override
  public long compareAndExchange(long expect, long update) {
    Snapshot seen = lastSeen.get();
    if (seen == null || seen.value() != expect) {
      // Never answer "not expect" from the hint: it may be older than the node.
      seen = read();
    }
    while (seen.value() == expect) {
      Attempt attempt = write(seen, update);
      if (attempt.applied()) {
        return expect;
      }
      seen = attempt.current();
    }
    return seen.value();
  }

  @Override
  public long addAndGet(long delta) {
    Snapshot seen = lastSeen.get();
    if (seen == null) {
      seen = read();
    }
    while (true) {
      long update = add(seen.value(), delta);
      Attempt attempt = write(seen, update);
      if (attempt.applied()) {
        return update;
      }
      seen = attempt.current();
    }
  }

  private long add(long value, long delta) {
    try {
      return Math.addExact(value, delta);
    } catch (ArithmeticException e) {
      throw new ArithmeticException(
          "Adding " + delta + " to the counter " + path + " (" + value + ") overflows a long; nothing was written");
    }
  }

  /** Reads the node, retrying on connection loss as the retry policy says. */
  private Snapshot read() {
    Snapshot now = Retrying.call(session, path, zk -> {
      Stat stat = new Stat();
      try {
        byte[] data = zk.getData(serverPath, false, stat);
        return new Snapshot(parse(data, path), stat.getVersion(), stat.getCzxid());
      } catch (KeeperException.NoNodeException e) {
        return Snapshot.MISSING;
      }
    });
    lastSeen.set(now);
    return now;
  }

  /**
   * Writes {@code update} on condition that the node is still as in {@code from}. A lost reply is
   * resolved by reading the node (see the class comment); the attempts that were certainly not
   * applied are repeated at most as often as the retry policy allows.
   */
  private Attempt write(Snapshot from, long update) {
    byte[] data = encode(update);
    int maxRetries = session.settings().retryPolicy().maxRetries();
    for (int attempt = 1; ; attempt++) {
      session.checkOpen();
      KeeperException lost;
      try {
        ZooKeeper zk = session.handle().zk();
        Stat stat = from.exists() ? zk.setData(serverPath, data, from.version()) : create(zk, data);
        Snapshot written = new Snapshot(update, stat.getVersion(), stat.getCzxid());
        lastSeen.set(written);
        return new Attempt(true, written);
      } catch (KeeperException.BadVersionException | KeeperException.NoNodeException
          | KeeperException.NodeExistsException conflict) {
        // Another client updated, deleted or created the node first: nothing of ours was applied.
        return new Attempt(false, read());
      } catch (KeeperException.ConnectionLossException | KeeperException.OperationTimeoutException
          | KeeperException.SessionExpiredException e) {
        lost = e;
      } catch (KeeperException e) {
        throw Errors.translate(e, path);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new BatonInterruptedException("Interrupted during an update of the counter " + path
            + "; the update may or may not have been applied", e);
      }
      Snapshot now = readAfterLoss(from, update, lost);
      if (now.unchangedSince(from)) {
        if (attempt > maxRetries) {
          throw new ConnectionException("Connection to ZooKeeper lost during an update of the counter "
              + path + "; the retry policy gave up and the update was not applied", lost);
        }
        continue; // certainly not applied: safe to send again
      }
      if (now.oneWriteAfter(from) && now.value() != update) {
        return new Attempt(false, now); // the one write since was someone else's
      }
      throw new OutcomeUnknownException(path, "Connection to ZooKeeper lost during an update of the"
          + " counter " + path + " to " + update + ", and the node has changed since (version "
          + from.version() + " -> " + now.version() + ", value " + now.value() + "): the update may"
          + " or may not have been applied, and was not sent again. Read the counter to decide.", lost);
    }
  }

  private Snapshot readAfterLoss(Snapshot from, long update, KeeperException lost) {
    try {
      return read();
    } catch (ConnectionException | SessionLostException e) {
      // Either way the node could not be read again: the write may have been applied.
      e.addSuppressed(lost);
      throw new OutcomeUnknownException(path, "Connection to ZooKeeper lost during an update of the"
          + " counter " + path + " to " + update + " (from version " + from.version() + "), and the"
          + " retry policy gave up before the node could be read again: the update may or may not"
          + " have been applied.", e);
    }
  }

  /** Creates the node (persistent) and, if needed, its parents (containers). */
  private Stat create(ZooKeeper zk, byte[] data) throws KeeperException, InterruptedException {
    Stat stat = new Stat();
    try {
      zk.create(serverPath, data, session.settings().aclFor(serverPath), CreateMode.PERSISTENT, stat);
    } catch (KeeperException.NoNodeException noParent) {
      createParents();
      zk.create(serverPath, data, session.settings().aclFor(serverPath), CreateMode.PERSISTENT, stat);
    }
    return stat;
  }

  private void createParents() throws KeeperException, InterruptedException {
    Nodes.createParentsAndWait(session, serverPath, path);
  }

  private static byte[] encode(long value) {
    return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
  }

  /** The value in {@code data}: a decimal long, surrounding whitespace allowed; empty is 0. */
  static long parse(byte[] data, String path) {
    if (data == null) {
      return 0;
    }
    String text = new String(data, StandardCharsets.UTF_8).strip();
    if (text.isEmpty()) {
      return 0;
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new BatonException("The counter at " + path + " holds " + describe(data, text)
          + ", not a decimal long such as \"42\"; set it with Counter.set or delete the node (a missing"
          + " node counts as 0)" + (data.length == 8 ? ". Eight bytes may be Curator's"
          + " DistributedAtomicLong, whose binary format Baton's counter does not read" : ""), e);
    }
  }

  private static String describe(byte[] data, String text) {
    boolean printable = text.codePoints().allMatch(c -> !Character.isISOControl(c) && c != 0xFFFD);
    if (printable) {
      return "'" + (text.length() > 40 ? text.substring(0, 40) + "..." : text) + "'";
    }
    StringBuilder hex = new StringBuilder(data.length + " bytes 0x");
    for (int i = 0; i < Math.min(data.length, 16); i++) {
      hex.append(String.format("%02x", data[i]));
    }
    return hex.append(data.length > 16 ? "..." : "").toString();
  }

  @Override
  public String toString() {
    return "Counter[" + path + "]";
  }
}
