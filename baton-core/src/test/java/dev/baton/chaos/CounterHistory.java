package dev.baton.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the chaos run's counter workers saw: each increment's reply. An increment that returned
 * ("done") was applied exactly once; one that ended in {@code OutcomeUnknownException} may or may
 * not have been; any other failure was not applied.
 */
final class CounterHistory {
  private final Map<Long, String> seen = new ConcurrentHashMap<>();
  private final List<String> duplicates = java.util.Collections.synchronizedList(new ArrayList<>());
  final LongAdder done = new LongAdder();
  final LongAdder unknown = new LongAdder();
  final LongAdder notApplied = new LongAdder();

  /** An increment by {@code worker} returned {@code value}. */
  void done(String worker, long value) {
    done.increment();
    String before = seen.putIfAbsent(value, worker);
    if (before != null) {
      duplicates.add("value " + value + " returned by two increments that both succeeded (" + before
          + " and " + worker + ")");
    }
  }

  /** The broken promises, given the counter's value once every worker stopped (it started at 0). */
  List<String> violations(long finalValue) {
    List<String> violations = new ArrayList<>(duplicates);
    long certain = done.sum();
    long maybe = unknown.sum();
    if (finalValue < certain || finalValue > certain + maybe) {
      violations.add("final value " + finalValue + " outside [" + certain + ", " + (certain + maybe)
          + "]: " + certain + " increments said done, " + maybe + " ended with their outcome unknown");
    }
    return violations;
  }
}
