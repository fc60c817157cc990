package dev.baton.internal.session;

import dev.baton.ZkPaths;

/**
 * The one check of a recipe's path where it enters: the form ({@link ZkPaths#validateRecipePath}),
 * then the path as it lands on the ensemble (the namespace added). The server answers a request
 * bigger than its packet limit ({@code jute.maxbuffer}) by dropping the connection, and the client
 * would send it again after every reconnect: a path whose requests cannot fit is refused here,
 * before anything is sent. So is ZooKeeper's reserved {@code /zookeeper} tree.
 */
public final class RecipePaths {
  /**
   * What a recipe adds below its path, in the largest request it sends there: a child's name
   * ({@code /leases/_c_<uuid>-lease-<ten digits>} is 66 bytes, the longest of Curator's layouts),
   * the node's data (a lock node's owner: a host name of at most 253 bytes, the pid, a thread name
   * cut to {@value #THREAD_NAME_CHARS} characters, at most 6 bytes each once escaped in JSON), and
   * the request's own framing.
   */
  public static final int RESERVE = 128 + 2048 + 64;

  /** The most characters of a thread's name that a lock node records, so the reserve holds. */
  public static final int THREAD_NAME_CHARS = 128;

  private RecipePaths() {}

  /**
   * Returns {@code path} if a recipe may stand on it for this client.
   *
   * @param what names the argument in the error, e.g. "mutex path"
   * @throws IllegalArgumentException naming the argument, the path (escaped and shortened) and
   *     the rule it breaks: the form, the root, the reserved tree, or the packet limit
   */
  public static String check(ClientSettings settings, String path, String what) {
    return check(settings, path, what, 0);
  }

  /**
   * As {@link #check(ClientSettings, String, String)}, for a recipe whose nodes carry {@code
   * dataBytes} of the caller's own besides (a leader's participant id).
   */
  public static String check(ClientSettings settings, String path, String what, int dataBytes) {
    ZkPaths.validateRecipePath(path, what);
    String serverPath = settings.onServer(path);
    if (ZkPaths.isReserved(serverPath)) {
      throw new IllegalArgumentException(what + " " + ZkPaths.describe(path) + " lies in ZooKeeper's reserved "
          + ZkPaths.RESERVED + " tree" + (serverPath.equals(path) ? "" : " (on the ensemble: "
          + ZkPaths.describe(serverPath) + ")") + ", where the server keeps its own nodes; choose another path");
    }
    int maxPacket = NodeSizes.maxPacket(settings);
    long needed = (long) NodeSizes.utf8Length(serverPath) + RESERVE + dataBytes
        + NodeSizes.aclLength(settings.aclFor(serverPath));
    if (needed > maxPacket) {
      throw new IllegalArgumentException(what + " " + ZkPaths.describe(path) + " is too long: with the nodes a"
          + " recipe creates below it" + (dataBytes > 0 ? " and their " + dataBytes + " bytes of data" : "")
          + ", its requests would take " + needed + " bytes, over ZooKeeper's packet"
          + " limit (jute.maxbuffer) of " + maxPacket + " bytes, and the server would drop the connection."
          + " Paths are names: keep them short.");
    }
    return path;
  }
}
