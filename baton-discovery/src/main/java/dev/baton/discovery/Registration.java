package dev.baton.discovery;

import dev.baton.ClientClosedException;
import dev.baton.ConnectionException;
import dev.baton.FailureListener;
import dev.baton.NotAuthorizedException;
import dev.baton.RetryPolicy;
import java.util.Optional;

/**
 * An instance registered by this client: its ephemeral node {@code <base>/<service>/<id>} lives
 * as long as this registration is open and the client's session lives. Thread-safe.
 *
 * <p>Kept up by the client: after session expiry the node went with the old session, and the
 * client creates it again on its new session by itself (as Curator's {@code ServiceDiscovery}
 * does), so other clients see the instance leave and come back. After a connection loss that the
 * session survives, the node is still there; the client checks once that it is, and creates it
 * again if it is not (someone deleted it). Should another session hold a node of the same id
 * (a restarted process that kept its id, before its old session ended), the client replaces it,
 * as Curator does: ids must be unique among the live instances of a service.
 *
 * <p>The client watches the node while it holds it: deleted by someone, it is created again at
 * once; replaced by another session's node (the restarted process above, seen from the old
 * one), this registration yields to it: it stops keeping the instance registered, {@link
 * #failure()} says so with a {@link dev.baton.NodeExistsException}, and it never deletes the
 * other session's node, not on {@link #close()} either.
 */
public interface Registration extends AutoCloseable {

  /** The instance as last registered or updated. */
  ServiceInstance instance();

  /** The path of the instance's node, {@code <base>/<service>/<id>}. */
  String path();

  /**
   * Whether the node is known to exist on the client's current session and the connection is
   * up: false while the connection is suspended, after the session was lost and until the node
   * is made again on the new one, and once closed. Local state; makes no request.
   */
  boolean isRegistered();

  /**
   * Why the client stopped keeping this instance registered, if it did: an error retrying cannot
   * cure while making the node again in the background (the service node's ACL now refuses this
   * identity, say: a {@link NotAuthorizedException} naming the path), a {@link
   * dev.baton.NodeExistsException} naming the path when another session replaced the node, or a
   * {@link ClientClosedException}. Connection loss and session expiry never end it. Once failed, {@link
   * #isRegistered()} stays false and only {@link #close()} still acts. Local state.
   */
  Optional<RuntimeException> failure();

  /**
   * Tells {@code listener}, on the client's event executor and at most once, when the client stops
   * keeping this instance registered for the reason {@link #failure()} then returns; at once if it
   * already has.
   */
  void addFailureListener(FailureListener listener);

  /**
   * Replaces the node's data with {@code instance}, which must keep the service name and id.
   * Returns once the ensemble has the new data. Other clients' views see the change.
   *
   * <p>Connection loss: waits and retries as the {@link RetryPolicy} allows (writing the same
   * data twice does no harm), then fails with {@link ConnectionException}; the new data stays
   * the registration's and is written once the connection is back.
   *
   * @throws IllegalArgumentException if {@code instance} has another name or id
   * @throws IllegalStateException if the registration is closed, or stopped: then its cause is
   *     what {@link #failure()} returns
   * @throws NotAuthorizedException naming the path if the node's ACL refuses this identity
   */
  void update(ServiceInstance instance);

  /**
   * Unregisters: deletes the node and stops keeping it up, so that callers stop being sent here.
   * Returns once the node is deleted. Idempotent. Only a node of this client's session is
   * deleted, after a read shows it is, and at the version that read saw: another session's node
   * of the same id stays. A node whose create's reply was lost (so that the client could not tell
   * whether it was made) is looked for and deleted the same way, also when {@link
   * ServiceRegistry#register} gave up on it.
   *
   * <p>Connection loss: retries as the {@link RetryPolicy} allows, then fails with {@link
   * ConnectionException} while the delete goes on in the background, once the same session is
   * back; the node goes with the session at the latest. Once the session is lost (or presumed lost) the node is gone with it,
   * and this returns at once.
   *
   * @throws NotAuthorizedException naming the service path if its ACL refuses this identity the
   *     delete; the node then stays until the session ends
   */
  @Override
  void close();
}
