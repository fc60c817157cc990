package dev.baton.internal.session;

import org.apache.zookeeper.MultiOperationRecord;
import dev.baton.ZkPaths;
import dev.baton.Baton;
import dev.baton.BatonInterruptedException;
import dev.baton.ConnectionException;
import dev.baton.OutcomeUnknownException;
import dev.baton.RetryPolicy;
import dev.baton.TransactionFailedException;
import dev.baton.lock.LeaseLostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.apache.jute.Record;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.CreateOptions;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.apache.zookeeper.common.PathUtils;
import org.apache.zookeeper.proto.CheckVersionRequest;
import org.apache.zookeeper.proto.CreateRequest;
import org.apache.zookeeper.proto.CreateTTLRequest;
import org.apache.zookeeper.proto.DeleteRequest;
import org.apache.zookeeper.proto.SetDataRequest;

/**
 * {@code Baton.transaction}: a ZooKeeper {@code multi} on the client's session, with the client's
 * paths turned into the ensemble's (the namespace added) and ZooKeeper's failures into Baton's.
 *
 * <p>Guards ({@code Baton.guard(lease)}) are {@code check} operations made by {@link LeaseGuard}:
 * a transaction carrying the guard of a holder that no longer holds is refused before it is sent,
 * and one sent is counted until its reply, so that the holder's node is not handed to another
 * local holder meanwhile. A failed guard is reported as a lost lease rather than a missing node.
 */
public final class Transactions {

  private Transactions() {}

  /**
   * Runs {@code ops} (client paths) in one {@code multi}; returns ZooKeeper's results, with the
   * paths of created nodes as client paths. Not retried: see {@code Baton.transaction}.
   */
  public static List<OpResult> run(Session session, List<Op> ops) {
    List<Op> onServer = new ArrayList<>(ops.size());
    for (int i = 0; i < ops.size(); i++) {
      Op op = Objects.requireNonNull(ops.get(i), () -> "transaction operations must not be null");
      onServer.add(onServer(op, describe(i, op), session.settings()));
    }
    checkSize(session, ops, onServer);
    awaitConnection(session, ops);
    List<LeaseGuard.Gate> passed = passGuards(ops);
    boolean outcomeKnown = false;
    List<OpResult> results;
    try {
      results = session.handle().zk().multi(onServer);
      outcomeKnown = true;
    } catch (KeeperException e) {
      outcomeKnown = !isOutcomeUnknown(e.code());
      throw failure(e, ops);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BatonInterruptedException("Interrupted during a transaction on " + paths(ops)
          + "; it may or may not have been applied", e);
    } finally {
      for (LeaseGuard.Gate gate : passed) {
        gate.exit(outcomeKnown);
      }
    }
    return session.settings().namespace().isEmpty() ? results : toClient(results, session.settings());
  }

  /**
   * Refuses a transaction too big for one request: the server would drop the connection, and
   * every other lease of the client would turn suspect for nothing.
   */
  private static void checkSize(Session session, List<Op> ops, List<Op> onServer) {
    int bytes = NodeSizes.requestBytes(new MultiOperationRecord(onServer));
    int maxPacket = NodeSizes.maxPacket(session.settings());
    if (bytes > maxPacket) {
      throw new IllegalArgumentException("The transaction on " + ZkPaths.describe(paths(ops)) + " is " + bytes
          + " bytes as one request, over ZooKeeper's packet limit (jute.maxbuffer) of " + maxPacket
          + " bytes, and the server would drop the connection; nothing was sent. Split it, or keep large data"
          + " elsewhere.");
    }
  }

  /**
   * Waits, as the retry policy allows, until the client is connected. A request sent while the
   * connection is down fails without ZooKeeper saying whether it left; waiting first keeps "outcome
   * unknown" for the replies really lost in flight.
   */
  private static void awaitConnection(Session session, List<Op> ops) {
    RetryPolicy policy = session.settings().retryPolicy();
    for (int attempt = 1; ; attempt++) {
      session.checkOpen();
      if (session.state().isConnected()) {
        return;
      }
      if (attempt > policy.maxRetries()) {
        throw new ConnectionException("Not connected to ZooKeeper at " + session.settings().connectString()
            + "; the retry policy gave up waiting, and the transaction on " + paths(ops) + " was not sent");
      }
      try {
        TimeUnit.NANOSECONDS.sleep(Math.max(policy.delayBefore(attempt).toNanos(), TimeUnit.MILLISECONDS.toNanos(1)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new BatonInterruptedException("Interrupted while waiting for the connection to run a"
            + " transaction on " + paths(ops) + "; it was not sent", e);
      }
    }
  }

  /**
   * Passes the gate of every guard among {@code ops}, or refuses the transaction, sending
   * nothing, at the first guard whose holder no longer holds: with local hand-over or caching its
   * node may serve another holder now, and the check on the ensemble would pass.
   */
  private static List<LeaseGuard.Gate> passGuards(List<Op> ops) {
    List<LeaseGuard.Gate> passed = new ArrayList<>(1);
    for (Op op : ops) {
      LeaseGuard.Gate gate = LeaseGuard.gateOf(op);
      if (gate != null && !passed.contains(gate) && !gate.enter()) {
        passed.forEach(g -> g.exit(true));
        throw new LeaseLostException(gate.lockPath(), op.getPath(), "The lease on " + gate.lockPath()
            + " that guards this transaction (node " + op.getPath() + ") was released or lost, so the"
            + " transaction was not applied (nor sent): another holder may hold the lock now, on this node too if"
            + " it is handed over or cached locally. Acquire it again and re-read before writing.");
      }
      if (gate != null && !passed.contains(gate)) {
        passed.add(gate);
      }
    }
    return passed;
  }

  private static boolean isOutcomeUnknown(KeeperException.Code code) {
    return code == KeeperException.Code.CONNECTIONLOSS || code == KeeperException.Code.OPERATIONTIMEOUT
        || code == KeeperException.Code.SESSIONEXPIRED;
  }

  private static RuntimeException failure(KeeperException e, List<Op> ops) {
    if (isOutcomeUnknown(e.code())) {
      // The multi may have been applied before the reply was lost; repeating it blindly could
      // apply it twice.
      return new OutcomeUnknownException(paths(ops), "Connection to ZooKeeper lost during a"
          + " transaction on " + paths(ops) + ": it may or may not have been applied, and was not"
          + " sent again. Read the nodes to decide.", e);
    }
    int index = failedIndex(e.getResults());
    if (index < 0) {
      return Errors.translate(e, paths(ops));
    }
    Op failed = ops.get(index);
    KeeperException.Code code = KeeperException.Code.get(((OpResult.ErrorResult) e.getResults().get(index)).getErr());
    LeaseGuard.Gate guard = LeaseGuard.gateOf(failed);
    if (guard != null && code == KeeperException.Code.NONODE) {
      return new LeaseLostException(guard.lockPath(), failed.getPath());
    }
    String reason = Errors.translate(KeeperException.create(code, failed.getPath()), failed.getPath()).getMessage();
    return new TransactionFailedException(index, failed.getPath(), code, "Transaction not applied: "
        + describe(index, failed) + " failed: " + reason, e);
  }

  /** The first operation with an error of its own; the others report only that the multi failed. */
  private static int failedIndex(List<OpResult> results) {
    if (results == null) {
      return -1;
    }
    for (int i = 0; i < results.size(); i++) {
      if (results.get(i) instanceof OpResult.ErrorResult error
          && error.getErr() != KeeperException.Code.OK.intValue()
          && error.getErr() != KeeperException.Code.RUNTIMEINCONSISTENCY.intValue()) {
        return i;
      }
    }
    return -1;
  }

  /**
   * The same operation on the ensemble's path. {@code Op} keeps its fields to itself (its own
   * {@code withChroot} is package-private), so it is rebuilt from its request record.
   */
  private static Op onServer(Op op, String what, ClientSettings settings) {
    Record request = op.toRequestRecord();
    boolean sequential = request instanceof CreateRequest create && isSequential(create.getFlags())
        || request instanceof CreateTTLRequest ttl && isSequential(ttl.getFlags());
    try {
      PathUtils.validatePath(op.getPath(), sequential);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(what + ": '" + op.getPath() + "' is not a valid ZooKeeper path: "
          + e.getMessage(), e);
    }
    if (op.getKind() != Op.OpKind.TRANSACTION) {
      throw new IllegalArgumentException(what + " is a read; a transaction takes creates, deletes,"
          + " setData and checks (read the nodes before or after it)");
    }
    if (settings.namespace().isEmpty()) {
      return op;
    }
    String path = settings.onServer(op.getPath());
    return switch (op.getType()) {
      case OpCode.check -> Op.check(path, ((CheckVersionRequest) request).getVersion());
      case OpCode.delete -> Op.delete(path, ((DeleteRequest) request).getVersion());
      case OpCode.setData -> Op.setData(path, ((SetDataRequest) request).getData(),
          ((SetDataRequest) request).getVersion());
      case OpCode.createTTL -> {
        CreateTTLRequest r = (CreateTTLRequest) request;
        yield Op.create(path, r.getData(), r.getAcl(), r.getFlags(), r.getTtl());
      }
      case OpCode.create2 -> {
        CreateRequest r = (CreateRequest) request;
        yield Op.create(path, r.getData(), CreateOptions.newBuilder(r.getAcl(), mode(r.getFlags())).build());
      }
      case OpCode.create, OpCode.createContainer -> {
        CreateRequest r = (CreateRequest) request;
        yield Op.create(path, r.getData(), r.getAcl(), r.getFlags());
      }
      default -> throw new IllegalArgumentException(what + " is of a kind a transaction cannot run");
    };
  }

  private static boolean isSequential(int flags) {
    return mode(flags).isSequential();
  }

  private static CreateMode mode(int flags) {
    try {
      return CreateMode.fromFlag(flags);
    } catch (KeeperException e) {
      throw new IllegalArgumentException("unknown create mode flags " + flags, e);
    }
  }

  private static List<OpResult> toClient(List<OpResult> results, ClientSettings settings) {
    List<OpResult> mapped = new ArrayList<>(results.size());
    for (OpResult result : results) {
      mapped.add(result instanceof OpResult.CreateResult created
          ? new OpResult.CreateResult(settings.onClient(created.getPath()), created.getStat())
          : result);
    }
    return mapped;
  }

  private static String describe(int index, Op op) {
    String kind = op.getClass().getSimpleName();
    return "operation #" + index + " (" + Character.toLowerCase(kind.charAt(0)) + kind.substring(1)
        + " " + op.getPath() + ")";
  }

  private static String paths(List<Op> ops) {
    return ops.stream().map(Op::getPath).distinct().toList().toString();
  }
}
