package dev.baton.internal.session;

import dev.baton.BatonInterruptedException;
import dev.baton.RetryPolicy;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;

/** Blocking calls, for the caller's own thread, of operations that are safe to repeat. */
public final class Retrying {

  /** A call on the current handle. */
  @FunctionalInterface
  public interface Call<T> {
    T on(ZooKeeper zk) throws KeeperException, InterruptedException;
  }

  private Retrying() {}

  /**
   * Runs {@code call}, retrying on connection loss as the retry policy says, and on session
   * expiry once the new session is there.
   *
   * @throws dev.baton.BatonException translated from ZooKeeper's, naming {@code path}
   */
  public static <T> T call(Session session, String path, Call<T> call) {
    RetryPolicy policy = session.settings().retryPolicy();
    for (int attempt = 1; ; attempt++) {
      session.checkOpen();
      try {
        return call.on(session.handle().zk());
      } catch (KeeperException.ConnectionLossException | KeeperException.OperationTimeoutException
          | KeeperException.SessionExpiredException e) {
        if (attempt > policy.maxRetries()) {
          throw Errors.translate(e, path);
        }
        pause(policy.delayBefore(attempt).toNanos(), path);
      } catch (KeeperException e) {
        throw Errors.translate(e, path);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new BatonInterruptedException("Interrupted during an operation on " + path, e);
      }
    }
  }

  private static void pause(long nanos, String path) {
    try {
      TimeUnit.NANOSECONDS.sleep(Math.max(nanos, TimeUnit.MILLISECONDS.toNanos(1)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BatonInterruptedException("Interrupted while retrying an operation on " + path, e);
    }
  }
}
