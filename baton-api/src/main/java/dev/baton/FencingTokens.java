package dev.baton;


/**
 * How Baton's ZooKeeper recipes turn a lock node into fencing tokens, for code that must compare
 * Baton's tokens with nodes it reads itself (a Curator client on the same lock, a monitoring tool).
 * The lock API promises only that tokens strictly grow from holder to holder ({@link
 * dev.baton.lock.Lease#fencingToken()}); this is how the ZooKeeper backend keeps that promise.
 *
 * <p>A token is the zxid that created the holder's node, shifted left by {@value #LOCAL_BITS}
 * bits, plus the number of earlier holders that the same node served inside one client (a lock
 * handed between threads of one process, or kept cached, serves several holders without a new
 * node). Every holder of a lock thus gets a larger token than the one before it: a node created
 * later has a larger zxid, and one node serves at most {@value #PER_NODE} holders before Baton
 * replaces it. The form stays positive while the ensemble's epoch (the high 32 bits of a zxid,
 * one more per leader election) is below 2<sup>19</sup>.
 */
public final class FencingTokens {
  /** Bits of a token that count holders served by one node. */
  public static final int LOCAL_BITS = 12;
  /** Holders one node may serve: after this many, the lock is given up and queued for again. */
  public static final int PER_NODE = 1 << LOCAL_BITS;

  private FencingTokens() {}

  /** The token of the first holder of a node created by the zxid {@code czxid}. */
  public static long ofNode(long czxid) {
    if (czxid < 0 || czxid >= 1L << (63 - LOCAL_BITS)) {
      throw new IllegalArgumentException("zxid " + Long.toHexString(czxid) + " is out of the range Baton's "
          + "tokens cover (epoch below 2^19)");
    }
    return czxid << LOCAL_BITS;
  }

  /** The zxid that created the node a token was handed out on. */
  public static long nodeZxid(long token) {
    return token >>> LOCAL_BITS;
  }
}
