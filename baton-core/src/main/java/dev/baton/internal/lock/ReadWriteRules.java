package dev.baton.internal.lock;

import dev.baton.internal.engine.LockNodes;
import dev.baton.internal.engine.QueueWaiter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * The read-write lock's decisions, as pure functions of the nodes under its path (no I/O), in
 * Curator's {@code InterProcessReadWriteLock} layout: {@code _c_<uuid>-__READ__<seq>} and
 * {@code _c_<uuid>-__WRIT__<seq>} in the lock path itself, one queue ordered by the sequence
 * after either name.
 *
 * <p>Both rules are monotone, as {@link QueueWaiter.QueueRule} requires: a rule that lets a node
 * through on some nodes below it also lets it through on any subset of them (a writer passes only
 * on none; a reader passes on no writer, and removing nodes adds no writer).
 *
 * <p>Which writer a waiting reader watches: the nearest one below it, where Curator watches the
 * lowest. Both are correct, since the reader looks again when the watched node goes. The nearest
 * wakes a reader once, when it may most likely enter: writers below the nearest one are gone
 * before it holds. Watching the lowest would wake every queued reader at each writer's release,
 * only to have them list the queue and watch the next writer (a herd per writer).
 */
final class ReadWriteRules {
  public static final String READ = "__READ__";
  public static final String WRITE = "__WRIT__";
  static final List<String> KINDS = List.of(READ, WRITE);
  static final QueueWaiter.QueueLayout READERS = new QueueWaiter.QueueLayout(READ, KINDS);
  static final QueueWaiter.QueueLayout WRITERS = new QueueWaiter.QueueLayout(WRITE, KINDS);

  static final QueueWaiter.QueueRule READER = lower -> readerBlocker(lower).orElse(null);

  static final QueueWaiter.QueueRule WRITER = new QueueWaiter.QueueRule() {
    @Override
    public String blocker(List<String> lower) {
      return writerBlocker(lower).orElse(null);
    }

    /** A downgrading holder's read node may appear below a waiting writer; see {@link DowngradeNode}. */
    @Override
    public boolean grantsWithoutRelisting() {
      return false;
    }
  };

  /** Who holds the lock and who waits, each in queue order. */
  public record Queue(List<String> holding, List<String> waiting) {}

  private ReadWriteRules() {}

  /** A writer holds when no node of either kind is below it; otherwise it waits for the one just below. */
  public static Optional<String> writerBlocker(List<String> lowerNodesInOrder) {
    return lowerNodesInOrder.isEmpty()
        ? Optional.empty() : Optional.of(lowerNodesInOrder.get(lowerNodesInOrder.size() - 1));
  }

  /** A reader holds when no write node is below it; otherwise it waits for the nearest one. */
  public static Optional<String> readerBlocker(List<String> lowerNodesInOrder) {
    for (int i = lowerNodesInOrder.size() - 1; i >= 0; i--) {
      if (isWrite(lowerNodesInOrder.get(i))) {
        return Optional.of(lowerNodesInOrder.get(i));
      }
    }
    return Optional.empty();
  }

  public static boolean isWrite(String node) {
    return WRITE.equals(LockNodes.kindOf(node, KINDS));
  }

  /**
   * The name of the read node a write-lock holder adds when it downgrades: a protected name with
   * its write node's sequence, so the two stand at one place in the queue (Curator's layout since
   * CURATOR-621). It is created as a plain ephemeral node, not a sequential one.
   */
  public static String downgradeNode(String writeNode, UUID uuid) {
    Objects.requireNonNull(uuid, "uuid");
    if (!isWrite(writeNode)) {
      throw new IllegalArgumentException("not a write node: " + writeNode);
    }
    return LockNodes.protectedMarker(uuid.toString()) + READ + LockNodes.sequence(writeNode, WRITE);
  }

  /**
   * Splits the children of a lock path into holders and waiters, each in queue order; other
   * children take no part. Holders are either one writer, with the read node it added by
   * downgrading (same sequence), or every reader below the first writer.
   */
  public static Queue queue(List<String> children) {
    List<String> ordered = new ArrayList<>();
    for (String child : children) {
      if (LockNodes.kindOf(child, KINDS) != null) {
        ordered.add(child);
      }
    }
    // By sequence; at a shared place (a downgrade) the writer first, as it came first.
    ordered.sort(Comparator.comparing(ReadWriteRules::sequence).thenComparing(node -> !isWrite(node)));
    int holding = 0;
    if (!ordered.isEmpty() && isWrite(ordered.get(0))) {
      String place = sequence(ordered.get(0));
      holding = 1;
      while (holding < ordered.size() && !isWrite(ordered.get(holding))
          && sequence(ordered.get(holding)).equals(place)) {
        holding++;
      }
    } else {
      while (holding < ordered.size() && !isWrite(ordered.get(holding))) {
        holding++;
      }
    }
    return new Queue(List.copyOf(ordered.subList(0, holding)),
        List.copyOf(ordered.subList(holding, ordered.size())));
  }

  private static String sequence(String node) {
    return LockNodes.sequence(node, LockNodes.kindOf(node, KINDS));
  }
}
