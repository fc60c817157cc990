package dev.baton.internal.session;

import dev.baton.Baton;
import dev.baton.BatonException;
import dev.baton.ClientClosedException;
import dev.baton.ConnectionException;
import dev.baton.NodeExistsException;
import dev.baton.NodeMissingException;
import dev.baton.NotAuthorizedException;
import dev.baton.VersionConflictException;
import dev.baton.SessionLostException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.zookeeper.KeeperException;

/** Where ZooKeeper's exceptions enter the API, they become Baton's, naming the path. */
public final class Errors {
  private Errors() {}

  /**
   * Whether a reply's code says the connection or the session failed rather than the request:
   * the codes that {@link #translate} turns into {@link ConnectionException} and
   * {@link SessionLostException}.
   */
  public static boolean isConnectionProblem(KeeperException.Code code) {
    return switch (code) {
      case CONNECTIONLOSS, OPERATIONTIMEOUT, SESSIONEXPIRED, SESSIONMOVED -> true;
      default -> false;
    };
  }

  /**
   * Whether retrying cannot cure {@code error}: the ensemble refused this identity (NOAUTH,
   * AUTHFAILED), refused the ACL (INVALIDACL), rejected the request as malformed (BADARGUMENTS,
   * NOCHILDRENFOREPHEMERALS, UNIMPLEMENTED), or the client is closed or was given a bad argument.
   * Looks through the causes, so a translated error answers as its ZooKeeper cause would.
   * Connection loss, session expiry and races with other clients (a node made or deleted
   * meanwhile) are never fatal: a retry loop goes on for those.
   */
  public static boolean isUnrecoverable(Throwable error) {
    for (Throwable cause = error; cause != null; cause = cause.getCause()) {
      if (cause instanceof ClientClosedException || cause instanceof NotAuthorizedException
          || cause instanceof IllegalArgumentException) {
        return true;
      }
      if (cause instanceof KeeperException keeper && isUnrecoverable(keeper.code())) {
        return true;
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return false;
  }

  /** {@link #isUnrecoverable(Throwable)} for a reply's code. */
  public static boolean isUnrecoverable(KeeperException.Code code) {
    return switch (code) {
      case NOAUTH, AUTHFAILED, INVALIDACL, BADARGUMENTS, NOCHILDRENFOREPHEMERALS, UNIMPLEMENTED,
          SESSIONCLOSEDREQUIRESASLAUTH -> true;
      default -> false;
    };
  }

  public static RuntimeException translate(Throwable error, String path) {
    Throwable cause = error;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    if (cause instanceof BatonException batonException) {
      return batonException;
    }
    if (cause instanceof KeeperException keeper) {
      return switch (keeper.code()) {
        case CONNECTIONLOSS, OPERATIONTIMEOUT -> new ConnectionException(
            "Connection to ZooKeeper lost during an operation on " + path, keeper);
        case SESSIONEXPIRED, SESSIONMOVED -> new SessionLostException(
            "ZooKeeper session expired during an operation on " + path);
        case NOAUTH -> new NotAuthorizedException(path, keeper);
        case INVALIDACL -> new BatonException("ZooKeeper refused the ACL for a node at " + path + ": the"
            + " AclProvider gave no ACL, or an ACL with the 'auth' scheme (creatorAllOthersRead) while"
            + " the session has no identity; add Baton.builder().digestAuth(user, password)", keeper);
        case NONODE -> new NodeMissingException(path, "No node at " + path, keeper);
        case NODEEXISTS -> new NodeExistsException(path, "A node already exists at " + path, keeper);
        case BADVERSION -> new VersionConflictException(path, "The node at " + path + " was changed concurrently", keeper);
        case NOCHILDRENFOREPHEMERALS -> new BatonException(
            path + " is below an ephemeral node, which cannot have children", keeper);
        default -> new BatonException("ZooKeeper refused an operation on " + path + ": " + keeper.code(), keeper);
      };
    }
    if (cause instanceof RuntimeException runtime) {
      return runtime;
    }
    return new BatonException("Operation on " + path + " failed: " + cause, cause);
  }
}
