package dev.baton.leader;

import dev.baton.lock.Lease;
import dev.baton.testkit.MutualExclusionChecker;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A listener that records one participant's leadership in a {@link MutualExclusionChecker}: a
 * section from each gain to the loss after it, entered with the lease's fencing token. Add it
 * with a direct executor ({@code Runnable::run}) so that a loss is recorded the moment it is
 * reported.
 *
 * <p>A latch whose suspended connection comes back with the same session is told it leads again,
 * with the same lease: that is the same term going on, so it is not entered as a new section
 * (the checker would refuse its equal token); instead the recorder checks that no participant
 * entered with a larger token meanwhile, which would mean two leaders.
 */
final class LeadershipRecorder implements LeadershipListener {
  final String name;
  final List<String> events = new CopyOnWriteArrayList<>();
  final List<Long> tokens = new CopyOnWriteArrayList<>();
  private final MutualExclusionChecker checker;
  private final AtomicLong highestEntered;
  private final List<String> regainErrors;
  private MutualExclusionChecker.Section section; // guarded by this
  private long lastToken = Long.MIN_VALUE; // guarded by this
  private volatile long lostAtNanos;
  private volatile long gainedAtNanos;

  /**
   * @param highestEntered shared by every recorder of one checker
   * @param regainErrors shared: a regain after someone else entered is written here
   */
  LeadershipRecorder(String name, MutualExclusionChecker checker, AtomicLong highestEntered,
      List<String> regainErrors) {
    this.name = name;
    this.checker = checker;
    this.highestEntered = highestEntered;
    this.regainErrors = regainErrors;
  }

  @Override
  public synchronized void leadershipGained(Lease leadership) {
    gainedAtNanos = System.nanoTime();
    long token = leadership.fencingToken();
    events.add("gained");
    if (token == lastToken) {
      long highest = highestEntered.get();
      if (highest > token) {
        regainErrors.add(name + " led again with token " + token + " after a section with token "
            + highest + " was entered");
      }
      return;
    }
    lastToken = token;
    tokens.add(token);
    highestEntered.accumulateAndGet(token, Math::max);
    section = checker.enter(name, token);
  }

  @Override
  public synchronized void leadershipLost(Lease leadership) {
    lostAtNanos = System.nanoTime();
    events.add("lost:" + leadership.state());
    if (section != null) {
      section.lost();
      section.exit();
      section = null;
    }
  }

  long lostAtNanos() {
    return lostAtNanos;
  }

  long gainedAtNanos() {
    return gainedAtNanos;
  }

  int gains() {
    return (int) events.stream().filter(e -> e.equals("gained")).count();
  }

  boolean lostOnce() {
    return events.stream().anyMatch(e -> e.startsWith("lost"));
  }
}
