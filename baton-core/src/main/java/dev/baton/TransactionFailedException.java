package dev.baton;

import org.apache.zookeeper.KeeperException;

/**
 * An operation of a {@link Baton#transaction} failed, so none of the transaction was applied
 * (ZooKeeper's {@code multi} is all or nothing). Names the first operation that failed and why.
 */
public class TransactionFailedException extends BatonException {
  private static final long serialVersionUID = 1L;
  private final int failedIndex;
  private final String path;
  private final KeeperException.Code code;

  public TransactionFailedException(int failedIndex, String path, KeeperException.Code code,
      String message, Throwable cause) {
    super(message, cause);
    this.failedIndex = failedIndex;
    this.path = path;
    this.code = code;
  }

  /** The position of the failed operation in the transaction, counting from 0. */
  public int failedIndex() {
    return failedIndex;
  }

  /** The failed operation's path, as the caller gave it. */
  public String path() {
    return path;
  }

  /** ZooKeeper's reason: {@code BADVERSION} for a version conflict, {@code NONODE}, {@code NODEEXISTS}... */
  public KeeperException.Code code() {
    return code;
  }
}
