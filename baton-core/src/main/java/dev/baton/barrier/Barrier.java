package dev.baton.barrier;

import dev.baton.Baton;
import dev.baton.BatonException;
import dev.baton.BatonInterruptedException;
import dev.baton.ClientClosedException;
import dev.baton.ConnectionException;
import dev.baton.RetryPolicy;
import dev.baton.leader.LeaderLatch;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A barrier that holds everyone back while it is up: it is up while a node exists at its path,
 * and waiters pass once the node is gone. Wire-compatible with Curator's {@code
 * DistributedBarrier} (the same node, persistent, its missing parents created as container
 * nodes), so Baton and Curator clients can set, remove and wait on one barrier. Thread-safe, and
 * cheap to make: {@code baton.barrier(path)} sends nothing.
 *
 * <pre>{@code
 * Barrier deploy = baton.barrier("/barriers/deploy-42");
 * deploy.set();                          // the coordinator raises it
 * ...
 * deploy.await();                        // workers, anywhere: block until it is removed
 * ...
 * deploy.remove();                       // the coordinator lets everyone through
 * }</pre>
 *
 * <p>Waiting costs one read and one watch, and no thread for {@link #awaitAsync()}: the wait uses
 * a {@code getData} watch, which is not left on the server once the node is gone (an {@code
 * exists} watch would be). A wait that gives up (timeout, interrupt, cancellation) removes its
 * watch from the server too, unless another wait of the same client on the same path still needs
 * it.
 *
 * <p>Connection loss while waiting: the wait goes on. The client sets its watch again when it
 * reconnects to the same session, and the barrier checks the node once more then, so a removal
 * that happened while the connection was down is seen. Session expiry while waiting: the wait goes
 * on, on the client's new session, with a fresh check. Neither ends a wait early or makes it
 * fail; only the timeout, an interrupt or closing the client do.
 *
 * <p>{@link #set()}, {@link #remove()} and {@link #isSet()} are retried on connection loss as the
 * client's {@link RetryPolicy} says, then fail with {@link ConnectionException}; each is safe to
 * repeat.
 */
public interface Barrier {

  /** The barrier's path, as given. */
  String path();

  /**
   * Raises the barrier: creates its node (persistent, with any missing parents as container
   * nodes). Setting a barrier that is already up changes nothing.
   */
  void set();

  /**
   * Lowers the barrier: deletes its node, releasing every waiter of every client. Removing a
   * barrier that is not up changes nothing.
   *
   * @throws BatonException if the node has children (it is then not a barrier's node)
   */
  void remove();

  /** Whether the barrier is up, as the server this client is connected to sees it. */
  boolean isSet();

  /**
   * Blocks until the barrier is down (at once if it is not up).
   *
   * @throws BatonInterruptedException if interrupted while waiting (the watch is removed)
   * @throws ClientClosedException if the client is closed, before or while waiting
   */
  void await();

  /**
   * Blocks until the barrier is down, at most {@code timeout}. As {@code
   * CountDownLatch.await(long, TimeUnit)} and {@link LeaderLatch#await(Duration)}, a wait answers
   * yes or no; it changes nothing on the ensemble, so there is nothing to undo on timeout but the
   * watch, which is removed. {@code Duration.ZERO} only looks, as {@code !isSet()}: one read, no
   * watch.
   *
   * @return true if the barrier is down, false if the timeout passed first
   * @throws IllegalArgumentException if {@code timeout} is negative
   * @throws BatonInterruptedException if interrupted while waiting (the watch is removed)
   * @throws ClientClosedException if the client is closed, before or while waiting
   */
  boolean await(Duration timeout);

  /**
   * Completes when the barrier is down, without holding a thread meanwhile. The future completes
   * on the client's event executor, or fails with {@link ClientClosedException} if the client is
   * closed first. To stop waiting, complete it yourself: {@code cancel}, {@code orTimeout(...)}
   * and {@code completeExceptionally} all end the wait and remove its watch.
   */
  CompletableFuture<Void> awaitAsync();
}
