package dev.baton.internal.config;

import dev.baton.BatonException;
import dev.baton.BatonInterruptedException;
import dev.baton.ConnectionException;
import dev.baton.NotAuthorizedException;
import dev.baton.OutcomeUnknownException;
import dev.baton.RetryPolicy;
import dev.baton.internal.session.Errors;
import dev.baton.internal.session.NodeSizes;
import dev.baton.internal.session.Session;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.ACL;

/**
 * One write call: waits for the connection before each request, counts lost replies against
 * the retry policy, and knows whether a request of it may have been applied.
 */
final class ConfigWrite {
  // How often a write may find its folders missing in a row (removed as empty containers
  // meanwhile) before it gives up; each round is a create that certainly did nothing.
  private static final int MAX_STRUCTURE_ROUNDS = 10;

  private final ConfigRequests requests;
  private final Session session;
  final String key;
  final String path;
  final String what;
  final byte[] data;
  final List<ACL> acl;
  final RetryPolicy policy;
  /** A request of this call was sent and its reply lost: it may have been applied. */
  boolean replyLost;
  int failures;

  /** A write of {@code value}, or a delete if {@code what} is "delete". */
  ConfigWrite(ConfigRequests requests, String key, String value, String what) {
    this.requests = requests;
    this.session = requests.session();
    this.policy = session.settings().retryPolicy();
    requests.checkUsable();
    ConfigValues.validateKey(requests.prefix(), key);
    if (!what.equals("delete")) {
      Objects.requireNonNull(value, "value must not be null");
    }
    this.key = key;
    this.path = requests.clientPath(key);
    this.what = what;
    String serverPath = requests.serverPath(key);
    ConfigValues.checkPathSize(key, serverPath, session.settings().aclFor(serverPath), requests.maxPacket());
    if (value == null) {
      this.data = null;
      this.acl = null;
    } else {
      this.data = ConfigValues.encode(value);
      this.acl = session.settings().aclFor(serverPath);
      ConfigValues.checkSize(key, path, data, NodeSizes.maxCreateData(serverPath, acl, requests.maxPacket()),
          requests.maxPacket());
    }
  }

  /**
   * Sends a request once connected, and waits for its reply. A write whose revision alone failed
   * (the key's history folder was removed by hand) was not applied: it is sent again as it was,
   * and creates the folder first; answering it as a conflict made a compare-and-set report one
   * that never happened.
   */
  ConfigRequests.Reply send(ConfigRequests.Request request) {
    for (int round = 1; ; round++) {
      awaitConnection();
      ConfigRequests.Reply reply;
      try {
        reply = await(request.send(session.handle()));
      } catch (RuntimeException e) {
        throw Errors.translate(e, path);
      }
      if (reply.failed() != ConfigRequests.Part.REVISION) {
        return reply;
      }
      if (round >= MAX_STRUCTURE_ROUNDS) {
        throw new BatonException("Cannot " + what + " config key '" + key + "': its history folder under "
            + ConfigHistory.clientRoot(requests.prefix()) + " keeps disappearing while this write makes it;"
            + " nothing was written");
      }
    }
  }

  /** Reads the node, retrying while the connection is down; empty if it is absent. */
  Optional<ConfigTree.Node> read() {
    while (true) {
      ConfigRequests.Reply reply = send(handle -> requests.getData(handle, key));
      switch (reply.code()) {
        case OK -> {
          return Optional.of(reply.node());
        }
        case NONODE -> {
          return Optional.empty();
        }
        default -> {
          if (!Errors.isConnectionProblem(reply.code())) {
            throw refused(reply.code());
          }
          pauseAfterFailure(reply.code());
        }
      }
    }
  }

  /** {@link #read} after a lost reply: if the retry policy gives up, the outcome is unknown. */
  Optional<ConfigTree.Node> readAfterLoss() {
    try {
      return read();
    } catch (ConnectionException e) {
      if (e instanceof OutcomeUnknownException unknown) {
        throw unknown;
      }
      throw outcomeUnknown("the connection did not come back in time to read the key again", e);
    }
  }

  /**
   * Returns if {@code code} is a lost connection (the request may have been applied), after the
   * retry policy's pause; throws the translated error otherwise, or when the policy gives up.
   */
  void failUnlessLost(Code code) {
    if (!Errors.isConnectionProblem(code)) {
      throw refused(code);
    }
    replyLost = true;
    pauseAfterFailure(code);
  }

  void createFolders(int round) {
    if (round >= MAX_STRUCTURE_ROUNDS) {
      throw new BatonException("Cannot " + what + " config key '" + key + "': its folders under "
          + requests.prefix()
          + " keep disappearing (removed as empty containers while this write made them)");
    }
    while (true) {
      ConfigRequests.Reply reply = send(handle -> requests.createFolders(handle, key));
      if (reply.code() == Code.OK) {
        return;
      }
      if (!Errors.isConnectionProblem(reply.code())) {
        throw refused(reply.code());
      }
      pauseAfterFailure(reply.code()); // creating folders is safe to repeat
    }
  }

  private void pauseAfterFailure(Code code) {
    failures++;
    if (failures > policy.maxRetries()) {
      KeeperException cause = KeeperException.create(code, path);
      if (replyLost) {
        throw outcomeUnknown("the retry policy gave up", cause);
      }
      throw new ConnectionException("Connection to ZooKeeper lost during a " + what + " of config key '"
          + key + "' at " + path + "; the retry policy gave up, and nothing was written", cause);
    }
    pause(policy.delayBefore(failures).toNanos());
  }

  private void awaitConnection() {
    for (int attempt = 1; !session.state().isConnected(); attempt++) {
      requests.checkUsable();
      if (attempt > policy.maxRetries()) {
        String message = "Not connected to ZooKeeper at " + session.settings().connectString()
            + "; the retry policy gave up waiting to " + what + " config key '" + key + "' at " + path;
        if (replyLost) {
          throw outcomeUnknown("the connection did not come back in time", null);
        }
        throw new ConnectionException(message + ". Nothing was written");
      }
      pause(policy.delayBefore(attempt).toNanos());
    }
    requests.checkUsable();
  }

  private void pause(long nanos) {
    try {
      TimeUnit.NANOSECONDS.sleep(Math.max(nanos, TimeUnit.MILLISECONDS.toNanos(1)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw interrupted(e);
    }
  }

  private ConfigRequests.Reply await(CompletableFuture<ConfigRequests.Reply> reply) {
    try {
      while (true) {
        try {
          return reply.get(1, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
          // ZooKeeper answers every request, with connection loss at worst; only a closing
          // client could leave one unanswered.
          session.checkOpen();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw interrupted(e);
    } catch (ExecutionException e) {
      throw Errors.translate(e.getCause(), path);
    }
  }

  private RuntimeException refused(Code code) {
    if (code == Code.NOAUTH) {
      return new NotAuthorizedException(path, KeeperException.create(code, path));
    }
    return Errors.translate(KeeperException.create(code, path), path);
  }

  OutcomeUnknownException outcomeUnknown(String why) {
    return outcomeUnknown(why, null);
  }

  OutcomeUnknownException outcomeUnknown(String why, Throwable cause) {
    return new OutcomeUnknownException(path, "Connection to ZooKeeper lost during a " + what
        + " of config key '" + key + "' at " + path + ", and " + why + ": it may or may not have been"
        + " applied, and was not sent again. Read the key to decide.", cause);
  }

  private BatonInterruptedException interrupted(InterruptedException e) {
    return new BatonInterruptedException("Interrupted during a " + what + " of config key '" + key + "' at "
        + path + "; a request on its way may or may not have been applied", e);
  }
}
