package dev.baton.bench.lock;

import dev.baton.Baton;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * The pieces every raw pattern shares: node names in Curator's layout (so requests are the same
 * size), queue order, and waiting for a node to go.
 */
final class RawQueue {
  private static final String PREFIX = "lock-";
  /** About what Curator writes (the client's IP address). */
  private static final byte[] DATA = "127.0.0.1".getBytes(StandardCharsets.US_ASCII);

  private RawQueue() {}

  /** The path prefix of a new node, {@code <path>/_c_<uuid>-lock-}; the server appends the sequence. */
  static String newNodePrefix(String path) {
    return path + "/_c_" + UUID.randomUUID() + "-" + PREFIX;
  }

  /** Create, waited for. */
  static String create(ZooKeeper zk, String path) throws KeeperException, InterruptedException {
    return name(zk.create(newNodePrefix(path), DATA, ZooDefs.Ids.OPEN_ACL_UNSAFE,
        CreateMode.EPHEMERAL_SEQUENTIAL));
  }

  /** The node just created and the children listed after it. */
  record Created(String node, List<String> children) {}

  /**
   * Sends the create and the listing together and waits once: the session answers in order, so
   * the listing already holds the new node.
   */
  static Created createAndList(ZooKeeper zk, String path) throws Exception {
    CompletableFuture<String> created = new CompletableFuture<>();
    CompletableFuture<List<String>> listed = new CompletableFuture<>();
    zk.create(newNodePrefix(path), DATA, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL,
        (rc, p, ctx, name) -> complete(created, rc, p, name), null);
    zk.getChildren(path, false, (rc, p, ctx, children) -> complete(listed, rc, p, children), null);
    return new Created(name(join(created)), join(listed));
  }

  /**
   * Waits until {@code ours} is the lowest node: watch the node just below, and list again when
   * it goes (Curator's loop, and ZooKeeper's recipe).
   */
  static void awaitTurnWithRelist(ZooKeeper zk, String path, String ours, List<String> children)
      throws KeeperException, InterruptedException {
    while (true) {
      List<String> ordered = ordered(children);
      int index = ordered.indexOf(ours);
      if (index < 0) {
        throw new IllegalStateException("raw lock node " + path + "/" + ours + " vanished");
      }
      if (index == 0) {
        return;
      }
      awaitGone(zk, path + "/" + ordered.get(index - 1));
      children = zk.getChildren(path, false);
    }
  }

  /** The nodes below {@code ours}, lowest first. */
  static List<String> lower(String ours, List<String> children) {
    List<String> ordered = ordered(children);
    int index = ordered.indexOf(ours);
    if (index < 0) {
      throw new IllegalStateException("raw lock node " + ours + " missing from its own listing");
    }
    return ordered.subList(0, index);
  }

  /**
   * Returns once {@code nodePath} is gone, or once its watch fired for any other reason (a
   * connection event): callers list again, so waking early is safe, never waking is not.
   */
  static void awaitGone(ZooKeeper zk, String nodePath) throws KeeperException, InterruptedException {
    CountDownLatch fired = new CountDownLatch(1);
    try {
      zk.getData(nodePath, event -> fired.countDown(), null);
    } catch (KeeperException.NoNodeException e) {
      return;
    }
    fired.await();
  }

  static void delete(ZooKeeper zk, String path, String node) throws KeeperException, InterruptedException {
    zk.delete(path + "/" + node, -1);
  }

  /** Queue order: by the sequence after {@code lock-}, as Curator and Baton order. */
  static List<String> ordered(List<String> children) {
    List<String> nodes = new ArrayList<>(children);
    nodes.sort(Comparator.comparing(RawQueue::sequence));
    return nodes;
  }

  private static String sequence(String node) {
    return node.substring(node.lastIndexOf(PREFIX) + PREFIX.length());
  }

  private static String name(String nodePath) {
    return nodePath.substring(nodePath.lastIndexOf('/') + 1);
  }

  private static <T> void complete(CompletableFuture<T> future, int rc, String path, T value) {
    if (rc == KeeperException.Code.OK.intValue()) {
      future.complete(value);
    } else {
      future.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), path));
    }
  }

  private static <T> T join(CompletableFuture<T> future) throws Exception {
    try {
      return future.get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
  }
}
