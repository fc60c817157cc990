package dev.baton.internal.semaphore;

import dev.baton.ZkPaths;
import dev.baton.internal.engine.LockNodes;
import dev.baton.internal.engine.QueueWaiter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The semaphore's decision, kept pure: given a listing of {@code <path>/leases}, do our lease
 * nodes hold permits?
 *
 * <p>Rule: our nodes hold when they are all listed and at most {@code permits} lease nodes have a
 * sequence number up to our highest. Curator counts every child instead ({@code children.size()
 * <= maxLeases}); the two agree whenever everyone follows the protocol, because only the holder
 * of the {@code locks} mutex creates lease nodes, so nothing is ever above a waiter's nodes. Both
 * are safe together: take the holder whose node has the highest sequence; every other holder's
 * node is older, still there, and so was in that holder's listing, which allowed at most {@code
 * permits}. Counting only what is below keeps a waiter from being held back by a node created out
 * of turn after its own (one that another client is about to remove, say).
 */
final class PermitCount {
  static final String PREFIX = "lease-";
  static final QueueWaiter.QueueLayout LAYOUT = QueueWaiter.QueueLayout.of(PREFIX);

  enum Verdict {
    /** Every node of ours holds a permit. */
    HOLD,
    /** Too many leases: wait for one to go. */
    WAIT,
    /** A node of ours is gone though the session lives: start over. */
    MISSING
  }

  private PermitCount() {}

  static Verdict decide(Collection<String> children, Set<String> ours, int permits) {
    List<String> ordered = LockNodes.sortedBySequence(new ArrayList<>(children), PREFIX);
    int highest = -1;
    int found = 0;
    for (int i = 0; i < ordered.size(); i++) {
      if (ours.contains(ordered.get(i))) {
        highest = i;
        found++;
      }
    }
    if (found < ours.size()) {
      return Verdict.MISSING;
    }
    return highest < permits ? Verdict.HOLD : Verdict.WAIT;
  }

  /**
   * The decision on the listings that came back with the creates, saving a round trip. The
   * listing of our newest node was made after all our other creates (the session answers in
   * order), so it alone holds everything the rule looks at.
   */
  static Verdict afterCreate(QueueWaiter.Acquisition[] created, Recorder[] recorders, int permits) {
    int newest = 0;
    for (int i = 1; i < created.length; i++) {
      if (sequence(created[i]).compareTo(sequence(created[newest])) > 0) {
        newest = i;
      }
    }
    List<String> listing = new ArrayList<>(recorders[newest].lower);
    listing.add(ZkPaths.name(created[newest].serverNodePath()));
    return decide(listing, names(List.of(created)), permits);
  }

  static Set<String> names(Collection<QueueWaiter.Acquisition> created) {
    Set<String> names = new HashSet<>();
    for (QueueWaiter.Acquisition acquisition : created) {
      names.add(ZkPaths.name(acquisition.serverNodePath()));
    }
    return names;
  }

  private static String sequence(QueueWaiter.Acquisition acquisition) {
    return LockNodes.sequence(ZkPaths.name(acquisition.serverNodePath()), PREFIX);
  }

  /**
   * The queue rule of a lease node. It never blocks, since the count decides and not the order,
   * so the {@link QueueWaiter} grants right after its create and listing; it only keeps the
   * nodes it was shown below ours, for {@link #afterCreate}. The waiter calls it before it
   * completes its future, which publishes the field to whoever reads the future's result.
   */
  static final class Recorder implements QueueWaiter.QueueRule {
    private List<String> lower = List.of();

    @Override
    public String blocker(List<String> lowerNodesInOrder) {
      lower = List.copyOf(lowerNodesInOrder);
      return null;
    }

    /** The lease nodes of one batch are created back to back; each lists with its own create. */
    @Override
    public boolean sharesListings() {
      return false;
    }
  }
}
