package dev.baton.internal.barrier;

import dev.baton.Baton;
import java.util.ArrayList;
import java.util.List;

/**
 * The decisions of a double barrier member, given the children of the barrier's path: pure
 * functions, shared by Baton and Curator members alike (Curator's {@code
 * DistributedDoubleBarrier} orders members the same way, by name, {@code ready} aside).
 */
final class DoubleBarrierRules {
  /** The child whose existence says the barrier is open. */
  static final String READY = "ready";

  private DoubleBarrierRules() {}

  /** What an entering member does after listing the children (its own node among them). */
  enum Entry {
    /** {@code ready} is there: the barrier is open. */
    OPEN,
    /** Enough members are in: create {@code ready}. */
    FULL,
    /** Fewer members than the threshold: wait for {@code ready}. */
    WAIT
  }

  static Entry entry(List<String> children, int members) {
    if (children.contains(READY)) {
      return Entry.OPEN;
    }
    return memberNodes(children).size() >= members ? Entry.FULL : Entry.WAIT;
  }

  /** The member nodes among {@code children}, in the order every member agrees on. */
  static List<String> memberNodes(List<String> children) {
    List<String> members = new ArrayList<>(children.size());
    for (String child : children) {
      if (!child.equals(READY)) {
        members.add(child);
      }
    }
    members.sort(null);
    return members;
  }

  /**
   * One step of leaving.
   *
   * @param deleteOurs delete our node now
   * @param watch the member node to wait for, or null when the leave is complete
   */
  record Exit(boolean deleteOurs, String watch) {
    boolean done() {
      return watch == null;
    }
  }

  /**
   * ZooKeeper's recipe: nobody left, done; ours the only one, delete it, done; ours the lowest,
   * keep it and wait for the highest (the lowest goes last, so the others wake once, when it
   * goes); otherwise delete ours and wait for the lowest. A member whose node is already gone
   * ({@code ours == null}, or not listed) waits for the lowest until no member is left.
   */
  static Exit exit(List<String> children, String ours) {
    List<String> members = memberNodes(children);
    boolean present = ours != null && members.contains(ours);
    if (members.isEmpty()) {
      return new Exit(false, null);
    }
    if (!present) {
      return new Exit(false, members.get(0));
    }
    if (members.size() == 1) {
      return new Exit(true, null);
    }
    if (members.get(0).equals(ours)) {
      return new Exit(false, members.get(members.size() - 1));
    }
    return new Exit(true, members.get(0));
  }
}
