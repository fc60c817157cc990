package dev.baton.chaos;

import dev.baton.testkit.ChaosLog;
import dev.baton.testkit.MutualExclusionChecker;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * One recipe under chaos: the path its workers share, the checker of its rule, and what its
 * workers met. Workers report here; the run reads it to check progress and to sum up.
 */
final class ChaosRecipe {
  final String name;
  final String path;
  /** Where the recipe's lock or lease nodes live: these must be empty once every client closes. */
  final List<String> nodeParents;
  final MutualExclusionChecker checker;

  final LongAdder exclusiveSections = new LongAdder();
  /** Operations that succeeded, for recipes that hold data rather than sections (queue, counter). */
  final LongAdder operations = new LongAdder();
  final LongAdder sharedSections = new LongAdder();
  /** Sections ended by a SUSPECT or LOST notice rather than by their holder. */
  final LongAdder lostNotices = new LongAdder();
  /** Leases granted already in doubt: not entered, since their holder must not act on them. */
  final LongAdder invalidAtGrant = new LongAdder();
  /** A latch told it leads again with the same lease, after a suspended connection came back. */
  final LongAdder regains = new LongAdder();
  final LongAdder timeouts = new LongAdder();
  /** Asynchronous acquisitions given up by cancelling the future. */
  final LongAdder cancels = new LongAdder();
  private final Map<String, LongAdder> failures = new ConcurrentHashMap<>();
  /** Broken promises the checker cannot see (a loss never told, a deposed leader leading again). */
  final Queue<String> problems = new ConcurrentLinkedQueue<>();
  /** Exceptions a caller of the recipe should never see; each one fails the run. */
  final Queue<String> unexpected = new ConcurrentLinkedQueue<>();
  /** The largest fencing token entered so far (the leader latch's regain check). */
  final AtomicLong highestToken = new AtomicLong(Long.MIN_VALUE);

  /**
   * Enters the checker's first section now: make the recipe right after reading the clock that
   * becomes the {@link ChaosLog}'s origin, so both count time from the same instant.
   */
  ChaosRecipe(String name, String path, List<String> nodeParents, MutualExclusionChecker checker) {
    this.name = name;
    this.path = path;
    this.nodeParents = List.copyOf(nodeParents);
    this.checker = checker;
    // The checker reports times relative to its first section: a zero-length section with the
    // lowest token, entered at the run's origin, makes that the origin of the ChaosLog too.
    checker.enter("origin", Long.MIN_VALUE).exit();
  }

  MutualExclusionChecker.Section enter(String client, long token, boolean shared) {
    highestToken.accumulateAndGet(token, Math::max);
    if (shared) {
      sharedSections.increment();
      return checker.enterShared(client, token);
    }
    exclusiveSections.increment();
    return checker.enter(client, token);
  }

  /** Sections entered by holders so far. */
  long sections() {
    return exclusiveSections.sum() + sharedSections.sum() + operations.sum();
  }

  void failed(RuntimeException e) {
    failures.computeIfAbsent(e.getClass().getSimpleName(), k -> new LongAdder()).increment();
  }

  Map<String, Long> failures() {
    Map<String, Long> counts = new TreeMap<>();
    failures.forEach((kind, count) -> counts.put(kind, count.sum()));
    return counts;
  }

  void unexpected(String worker, Throwable e) {
    StringWriter trace = new StringWriter();
    e.printStackTrace(new PrintWriter(trace));
    unexpected.add(worker + ": " + trace);
  }
}
