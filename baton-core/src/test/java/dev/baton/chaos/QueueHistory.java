package dev.baton.chaos;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * What the chaos run's queue workers did: each put (confirmed, or of unknown outcome), each
 * delivery (who took which value, when the take began and returned, and how its acknowledgement
 * ended), and each take that failed. Values are unique ({@code <producer>-<n>}, numbered in the
 * order the producer put them), so the history tells each item apart. Checked once the run is
 * over and the items still queued are known. Times are {@link System#nanoTime()}.
 *
 * <h2>Order per producer</h2>
 * The queue claims the lowest-numbered unclaimed item, so the items of one producer are claimed
 * in the order it put them. The rule checked: if item {@code b} of a producer was first delivered
 * (its take returned) before a take that first delivered an earlier confirmed item {@code a} of
 * the same producer even began (or {@code a} was never delivered and is still queued at the end),
 * then {@code a} must have been claimed, invisibly, while {@code b} was taken, and that claim must
 * have been lost: that is, a take that failed (its outcome unknown, its connection lost, or its
 * thread interrupted when its client was killed) or timed out (a claim still on its way when the
 * time was up is given back once its reply comes) began before {@code b}'s take returned, and its
 * claim could still live when {@code b}'s take began: the claim of a failed take lives at most as
 * long as the session it was made on ({@link SessionTrail#goneBy}, to the end of the run if that
 * session never ended). Otherwise it is a violation. Items given back after a delivery are not
 * first deliveries, so they may legitimately come after later items. Items whose put's outcome is
 * unknown are never the earlier item: they may never have been queued.
 */
final class QueueHistory {
  enum AckOutcome { PENDING, ACKED, UNKNOWN, FAILED }

  /** One delivery of a value to a consumer. */
  static final class Delivery {
    final String value;
    final String consumer;
    final long takeStartedAt;
    final long takenAt;
    volatile long ackStartedAt = Long.MAX_VALUE;
    volatile AckOutcome outcome = AckOutcome.PENDING;

    Delivery(String value, String consumer, long takeStartedAt, long takenAt) {
      this.value = value;
      this.consumer = consumer;
      this.takeStartedAt = takeStartedAt;
      this.takenAt = takenAt;
    }

    void ackStarted() {
      ackStartedAt = System.nanoTime();
    }

    void ended(AckOutcome how) {
      outcome = how;
    }
  }

  /** A take that failed: it may have claimed an item, and its claim lived at most until {@code goneBy}. */
  record FailedTake(long startedAt, LongSupplier goneBy) {}

  private final Set<String> confirmed = ConcurrentHashMap.newKeySet();
  private final Queue<FailedTake> failedTakes = new ConcurrentLinkedQueue<>();
  /** Out-of-order first deliveries excused by a lost claim (see the class comment). */
  final AtomicInteger excusedOutOfOrder = new AtomicInteger();
  private final Set<String> unknown = ConcurrentHashMap.newKeySet();
  private final List<Delivery> deliveries = java.util.Collections.synchronizedList(new ArrayList<>());

  void putConfirmed(String value) {
    confirmed.add(value);
  }

  void putUnknown(String value) {
    unknown.add(value);
  }

  /** {@code consumer}'s take, begun at {@code takeStartedAt}, just returned {@code value}. */
  Delivery delivered(String value, String consumer, long takeStartedAt) {
    Delivery delivery = new Delivery(value, consumer, takeStartedAt, System.nanoTime());
    deliveries.add(delivery);
    return delivery;
  }

  /** A take begun at {@code startedAt} failed; a claim it made lived at most until {@code goneBy}. */
  void takeFailed(long startedAt, LongSupplier goneBy) {
    failedTakes.add(new FailedTake(startedAt, goneBy));
  }

  int confirmedPuts() {
    return confirmed.size();
  }

  int unknownPuts() {
    return unknown.size();
  }

  long acks() {
    synchronized (deliveries) {
      return deliveries.stream().filter(d -> d.outcome == AckOutcome.ACKED).count();
    }
  }

  long failedAcks() {
    synchronized (deliveries) {
      return deliveries.stream().filter(d -> d.outcome == AckOutcome.FAILED).count();
    }
  }

  /**
   * The broken promises, given the values still in the queue at the end: a confirmed put neither
   * acknowledged once nor still queued (lost), a value acknowledged twice, a value acknowledged and
   * still queued, an acknowledgement that succeeded although another consumer had taken the item
   * before it was sent (so its claim was gone), a value delivered that nobody put, and an item of
   * a producer delivered out of order without a lost claim to excuse it (see the class comment).
   */
  List<String> violations(Collection<String> remaining) {
    Set<String> left = new HashSet<>(remaining);
    Map<String, List<Delivery>> byValue = new HashMap<>();
    synchronized (deliveries) {
      deliveries.forEach(d -> byValue.computeIfAbsent(d.value, v -> new ArrayList<>()).add(d));
    }
    List<String> violations = new ArrayList<>();
    for (String value : confirmed) {
      List<Delivery> of = byValue.getOrDefault(value, List.of());
      boolean maybeAcked = of.stream().anyMatch(d -> d.outcome == AckOutcome.ACKED || d.outcome == AckOutcome.UNKNOWN);
      if (!maybeAcked && !left.contains(value)) {
        violations.add("lost: " + value + " was put (confirmed), never acknowledged, and is not in the queue"
            + " (deliveries: " + describe(of) + ")");
      }
    }
    for (Map.Entry<String, List<Delivery>> entry : byValue.entrySet()) {
      String value = entry.getKey();
      List<Delivery> of = entry.getValue();
      long acked = of.stream().filter(d -> d.outcome == AckOutcome.ACKED).count();
      if (acked > 1) {
        violations.add("acknowledged twice: " + value + " (" + describe(of) + ")");
      }
      if (acked > 0 && left.contains(value)) {
        violations.add("acknowledged yet still in the queue: " + value + " (" + describe(of) + ")");
      }
      if (!confirmed.contains(value) && !unknown.contains(value)) {
        violations.add("delivered but never put: " + value);
      }
      for (Delivery ack : of) {
        if (ack.outcome != AckOutcome.ACKED) {
          continue;
        }
        for (Delivery other : of) {
          // Taken by another while this one believed it held the claim: the claim was gone, so
          // this acknowledgement had to fail.
          if (other != ack && ack.takenAt < other.takenAt && other.takenAt < ack.ackStartedAt) {
            violations.add("acknowledged after its claim was lost: " + value + " by " + ack.consumer
                + ", though " + other.consumer + " had taken it before (" + describe(of) + ")");
          }
        }
      }
    }
    violations.addAll(orderViolations(byValue, left));
    return violations;
  }

  /** The rule of the class comment, producer by producer. */
  private List<String> orderViolations(Map<String, List<Delivery>> byValue, Set<String> left) {
    Map<String, TreeMap<Integer, String>> byProducer = new HashMap<>();
    for (String value : byValue.keySet()) {
      int dash = value.lastIndexOf('-');
      byProducer.computeIfAbsent(value.substring(0, dash), p -> new TreeMap<>())
          .put(Integer.parseInt(value.substring(dash + 1)), value);
    }
    for (String value : left) {
      int dash = value.lastIndexOf('-');
      byProducer.computeIfAbsent(value.substring(0, dash), p -> new TreeMap<>())
          .put(Integer.parseInt(value.substring(dash + 1)), value);
    }
    List<FailedTake> failed = List.copyOf(failedTakes);
    List<String> violations = new ArrayList<>();
    for (TreeMap<Integer, String> items : byProducer.values()) {
      List<String> ordered = new ArrayList<>(items.values());
      for (int i = 0; i < ordered.size(); i++) {
        String earlier = ordered.get(i);
        if (!confirmed.contains(earlier)) {
          continue;
        }
        Delivery first = first(byValue.get(earlier));
        long earlierTakeBegan = first == null ? Long.MAX_VALUE : first.takeStartedAt;
        for (int j = i + 1; j < ordered.size(); j++) {
          Delivery later = first(byValue.get(ordered.get(j)));
          if (later == null || later.takenAt >= earlierTakeBegan) {
            continue;
          }
          if (failed.stream().anyMatch(take -> take.startedAt() < later.takenAt
              && take.goneBy().getAsLong() > later.takeStartedAt)) {
            excusedOutOfOrder.incrementAndGet();
            continue;
          }
          violations.add("out of order: " + later.value + " was taken by " + later.consumer + " before "
              + earlier + (first == null ? " (still queued at the end)" : " (first taken by " + first.consumer
              + ", whose take began " + (earlierTakeBegan - later.takenAt) / 1_000_000 + " ms later)")
              + ", with no lost claim to excuse it");
          break;
        }
      }
    }
    return violations;
  }

  private static Delivery first(List<Delivery> of) {
    if (of == null || of.isEmpty()) {
      return null;
    }
    return of.stream().min(java.util.Comparator.comparingLong(d -> d.takenAt)).orElseThrow();
  }

  private static String describe(List<Delivery> of) {
    StringBuilder text = new StringBuilder();
    for (Delivery d : of) {
      text.append(text.length() == 0 ? "" : ", ").append(d.consumer).append(":").append(d.outcome);
    }
    return text.length() == 0 ? "none" : text.toString();
  }
}
