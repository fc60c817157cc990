package dev.baton.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Coordinator;
import dev.baton.atomic.Counter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link Counter}: no update lost however many threads and clients add at once,
 * compare-and-set applied only on the current value, a value that outlives the client that wrote
 * it, and bad names refused with an error that says what is wrong. On a backend without the
 * feature every case checks the declared refusal instead.
 */
public abstract class CounterContract extends ContractSupport {
  private static final int CLIENTS = 3;
  private static final int THREADS_PER_CLIENT = 4;
  private static final int ROUNDS = 40;

  @Test
  public void newCounter_readsZero_andSetIsReadBackByAnotherClient() throws Exception {
    whereSupported(Feature.COUNTER, () -> {
      String name = name("plain");
      Counter a = client().counter(name);
      Counter b = client().counter(name);
      assertThat(a.get()).as("a counter never written").isZero();
      a.set(41);
      assertThat(b.get()).as("another client's read after the set returned").isEqualTo(41);
      assertThat(b.incrementAndGet()).isEqualTo(42);
      assertThat(a.decrementAndGet()).isEqualTo(41);
      assertThat(a.addAndGet(-50)).as("below zero is allowed").isEqualTo(-9);
      assertThat(b.get()).isEqualTo(-9);
    });
  }

  @Test
  public void incrementAndAdd_fromManyThreadsAndClients_loseNoUpdate() throws Exception {
    whereSupported(Feature.COUNTER, () -> {
      String name = name("contended");
      Set<Long> seen = ConcurrentHashMap.newKeySet();
      List<Long> duplicates = java.util.Collections.synchronizedList(new ArrayList<>());
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Void>> workers = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        Counter counter = client().counter(name);
        for (int t = 0; t < THREADS_PER_CLIENT; t++) {
          boolean adds = t % 2 == 1;
          workers.add(onThread(() -> {
            start.await();
            for (int i = 0; i < ROUNDS; i++) {
              // Every result is a value the counter passed through: no two callers may get the same one.
              long now = adds ? counter.addAndGet(3) : counter.incrementAndGet();
              if (!seen.add(now)) {
                duplicates.add(now);
              }
            }
            return null;
          }));
        }
      }
      start.countDown();
      for (Future<Void> worker : workers) {
        get(worker);
      }
      long incrementers = (long) CLIENTS * (THREADS_PER_CLIENT / 2);
      long adders = (long) CLIENTS * (THREADS_PER_CLIENT - THREADS_PER_CLIENT / 2);
      long expected = incrementers * ROUNDS + adders * ROUNDS * 3;
      assertThat(duplicates).as("values handed to two callers").isEmpty();
      assertThat(client().counter(name).get()).as("the total, read by a client that did not add").isEqualTo(expected);
      assertThat(seen).hasSize(CLIENTS * THREADS_PER_CLIENT * ROUNDS).contains(expected);
    });
  }

  @Test
  public void compareAndSet_succeedsOnlyOnTheCurrentValue() throws Exception {
    whereSupported(Feature.COUNTER, () -> {
      String name = name("cas");
      Counter a = client().counter(name);
      Counter b = client().counter(name);
      assertThat(a.compareAndSet(1, 2)).as("expecting 1 of a counter at 0").isFalse();
      assertThat(b.get()).as("after a failed compare-and-set").isZero();
      assertThat(a.compareAndSet(0, 5)).as("expecting 0 of a counter never written").isTrue();
      assertThat(b.compareAndExchange(4, 9)).as("the value found, not applied").isEqualTo(5);
      assertThat(b.compareAndExchange(5, 9)).as("the value expected, applied").isEqualTo(5);
      assertThat(a.get()).isEqualTo(9);
      assertThat(a.compareAndSet(5, 6)).as("a stale expectation").isFalse();
      assertThat(b.get()).isEqualTo(9);
    });
  }

  @Test
  public void racingCompareAndSets_exactlyOneWins() throws Exception {
    whereSupported(Feature.COUNTER, () -> {
      String name = name("race");
      List<Counter> counters = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        counters.add(client().counter(name));
      }
      counters.get(0).set(100);
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Boolean>> racers = new ArrayList<>();
      for (int r = 0; r < CLIENTS * THREADS_PER_CLIENT; r++) {
        Counter counter = counters.get(r % CLIENTS);
        long update = 1000 + r;
        racers.add(onThread(() -> {
          start.await();
          return counter.compareAndSet(100, update);
        }));
      }
      start.countDown();
      Set<Integer> winners = new HashSet<>();
      for (int r = 0; r < racers.size(); r++) {
        if (get(racers.get(r))) {
          winners.add(r);
        }
      }
      assertThat(winners).as("racers whose compare-and-set of 100 applied").hasSize(1);
      assertThat(counters.get(1).get()).isEqualTo(1000L + winners.iterator().next());
    });
  }

  @Test
  public void counter_survivesTheClientThatWroteIt() throws Exception {
    whereSupported(Feature.COUNTER, () -> {
      String name = name("kept");
      Coordinator writer = client();
      writer.counter(name).addAndGet(42);
      writer.close();
      Counter reader = client().counter(name);
      assertThat(reader.get()).as("after the writing client closed").isEqualTo(42);
      assertThat(reader.incrementAndGet()).isEqualTo(43);
    });
  }

  @Test
  public void nullAndBlankNames_areRefused_naming_theCounter() throws Exception {
    whereSupported(Feature.COUNTER, () -> {
      Coordinator client = client();
      assertThatThrownBy(() -> client.counter(null))
          .isInstanceOfAny(NullPointerException.class, IllegalArgumentException.class)
          .hasMessageContaining("counter");
      for (String blank : List.of("", " ", "\t")) {
        assertThatThrownBy(() -> client.counter(blank)).as("name '%s'", blank)
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("counter");
      }
      Counter usable = client.counter(name("after-bad-names"));
      assertThat(usable.incrementAndGet()).as("the client, after refusing bad names").isEqualTo(1);
    });
  }
}
