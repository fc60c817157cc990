package dev.baton.chaos;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the chaos run's queue workers did: each put (confirmed, or of unknown outcome), each
 * delivery (who took which value, when, and how its acknowledgement ended). Values are unique
 * ({@code <worker>-<n>}), so the history tells each item apart. Checked once the run is over and
 * the items still queued are known. Times are {@link System#nanoTime()}.
 */
final class QueueHistory {
  enum AckOutcome { PENDING, ACKED, UNKNOWN, FAILED }

  /** One delivery of a value to a consumer. */
  static final class Delivery {
    final String value;
    final String consumer;
    final long takenAt;
    volatile long ackStartedAt = Long.MAX_VALUE;
    volatile AckOutcome outcome = AckOutcome.PENDING;

    Delivery(String value, String consumer, long takenAt) {
      this.value = value;
      this.consumer = consumer;
      this.takenAt = takenAt;
    }

    void ackStarted() {
      ackStartedAt = System.nanoTime();
    }

    void ended(AckOutcome how) {
      outcome = how;
    }
  }

  private final Set<String> confirmed = ConcurrentHashMap.newKeySet();
  private final Set<String> unknown = ConcurrentHashMap.newKeySet();
  private final List<Delivery> deliveries = java.util.Collections.synchronizedList(new ArrayList<>());
  /** Per consumer and producer, the put number of the last first delivery: FIFO, for the summary. */
  private final Map<String, Integer> lastFirstDelivered = new ConcurrentHashMap<>();
  private final Set<String> deliveredOnce = ConcurrentHashMap.newKeySet();
  final AtomicInteger outOfOrder = new AtomicInteger();

  void putConfirmed(String value) {
    confirmed.add(value);
  }

  void putUnknown(String value) {
    unknown.add(value);
  }

  Delivery delivered(String value, String consumer) {
    Delivery delivery = new Delivery(value, consumer, System.nanoTime());
    deliveries.add(delivery);
    if (deliveredOnce.add(value)) {
      int dash = value.lastIndexOf('-');
      String key = consumer + "<-" + value.substring(0, dash);
      int number = Integer.parseInt(value.substring(dash + 1));
      Integer before = lastFirstDelivered.put(key, number);
      if (before != null && before > number) {
        outOfOrder.incrementAndGet();
      }
    }
    return delivery;
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
   * before it was sent (so its claim was gone), and a value delivered that nobody put.
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
    return violations;
  }

  private static String describe(List<Delivery> of) {
    StringBuilder text = new StringBuilder();
    for (Delivery d : of) {
      text.append(text.length() == 0 ? "" : ", ").append(d.consumer).append(":").append(d.outcome);
    }
    return text.length() == 0 ? "none" : text.toString();
  }
}
