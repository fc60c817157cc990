package dev.baton.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import dev.baton.Codec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Poison items: a consumer whose handler fails on an item gives it back at once to other clients'
 * consumers, backs off before it takes the item again itself, counts the failures with the item
 * (across clients), and after the last allowed attempt moves it to the dead letters, so it neither
 * floods the ensemble nor comes back forever, nor starves a healthy consumer of another client.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QueuePoisonTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(20);

  private static QueueHandler<String> failing(AtomicInteger calls) {
    return value -> {
      calls.incrementAndGet();
      throw new IllegalStateException("cannot ship " + value);
    };
  }

  /**
   * The back-off here is an hour: the failed item goes back at once, counted, and another client
   * takes it (issue 32); the client whose handler failed leaves it alone through its back-off, in
   * every queue object it has on the path.
   */
  @Test
  void failedItem_goesBackAtOnceCounted_toAnotherClient_whileTheFailingClientLeavesItThroughItsBackOff()
      throws Exception {
    String path = "/poison/backoff";
    Baton producer = baton();
    producer.queue(path, Codec.utf8()).put("order-1");
    AtomicInteger calls = new AtomicInteger();
    Baton failingClient = baton();
    closing(failingClient.queue(path, Codec.utf8()).consume(failing(calls),
        ConsumerOptions.defaults().withBackOff(Duration.ofHours(1), Duration.ofHours(1))));
    await().atMost(WAIT).until(() -> calls.get() == 1);

    DistributedQueue<String> other = baton().queue(path, Codec.utf8());
    try (QueueItem<String> again = other.take(WAIT).orElseThrow()) {
      assertThat(again.value()).isEqualTo("order-1");
      assertThat(again.attempt()).as("the failure is counted with the item").isEqualTo(2);
      again.release();
    }
    await().atMost(WAIT).untilAsserted(() -> assertThat(raw.children(path + "/claims")).isEmpty());
    assertThat(failingClient.queue(path, Codec.utf8()).take(Duration.ZERO))
        .as("held back from the client that failed it").isEmpty();
    assertThat(calls).hasValue(1);
    try (QueueItem<String> again = other.take(WAIT).orElseThrow()) {
      assertThat(again.attempt()).as("a plain release is not counted").isEqualTo(2);
      again.ack();
    }
    assertThat(raw.exists(path + "/dead")).isFalse();
  }

  /**
   * Issue 32: one client's handler always fails, another client's works. Every item the failing
   * one gives back goes to the healthy one, which handles each once; none is dead-lettered,
   * although two attempts are all an item gets. The failing consumer runs alone first, so it
   * surely fails items, then both run together. The back-off is long so that the healthy
   * consumer's claim never races the failing client's next try: that race is not under test.
   */
  @Test
  void failingAndHealthyConsumersOnTwoClients_healthyHandlesEveryItemOnce_noneDeadLettered() throws Exception {
    String path = "/poison/two-clients";
    int perBatch = 10;
    DistributedQueue<String> producer = baton().queue(path, Codec.utf8());
    ConsumerOptions options = ConsumerOptions.defaults()
        .withBackOff(Duration.ofMinutes(10), Duration.ofMinutes(10)).withMaxAttempts(2);
    List<String> events = new CopyOnWriteArrayList<>();
    QueueConsumer failingConsumer = closing(baton().queue(path, Codec.utf8()).consume(value -> {
      events.add("failed " + value);
      throw new IllegalStateException("cannot ship " + value);
    }, options));
    List<String> put = new ArrayList<>();
    for (int i = 0; i < perBatch; i++) {
      put.add("early-" + i);
      producer.put("early-" + i);
    }
    await().atMost(WAIT).until(() -> events.contains("failed early-0"));

    QueueConsumer healthyConsumer = closing(baton().queue(path, Codec.utf8())
        .consume(value -> events.add("handled " + value), options));
    for (int i = 0; i < perBatch; i++) {
      put.add("late-" + i);
      producer.put("late-" + i);
    }
    await().atMost(WAIT).untilAsserted(() -> assertThat(handled(events)).containsExactlyInAnyOrderElementsOf(put));
    await().atMost(WAIT).untilAsserted(() -> assertThat(producer.size()).isZero());
    failingConsumer.close();
    healthyConsumer.close();

    assertThat(handled(events)).as("each handled once").doesNotHaveDuplicates();
    for (String value : put) {
      assertThat(events.lastIndexOf("failed " + value)).as("no delivery of " + value + " after its ack")
          .isLessThan(events.indexOf("handled " + value));
    }
    assertThat(raw.exists(path + "/dead")).as("nothing dead-lettered").isFalse();
    assertThat(failingConsumer.failure()).isEmpty();
    assertThat(healthyConsumer.failure()).isEmpty();
  }

  private static List<String> handled(List<String> events) {
    return events.stream().filter(e -> e.startsWith("handled ")).map(e -> e.substring("handled ".length())).toList();
  }

  /**
   * A poison item fails on every consumer: each client's failure counts towards the same
   * attempts, and the client whose failure is the last allowed moves it to the dead letters.
   */
  @Test
  void poisonItemFailingOnEveryClient_isDeadLetteredAfterTheAttemptsOfAllOfThem() throws Exception {
    String path = "/poison/every-client";
    DistributedQueue<String> producer = baton().queue(path, Codec.utf8());
    producer.put("poison");
    ConsumerOptions options = ConsumerOptions.defaults()
        .withBackOff(Duration.ofMinutes(10), Duration.ofMinutes(10)).withMaxAttempts(2);
    AtomicInteger first = new AtomicInteger();
    AtomicInteger second = new AtomicInteger();
    closing(baton().queue(path, Codec.utf8()).consume(failing(first), options));
    await().atMost(WAIT).until(() -> first.get() == 1);
    closing(baton().queue(path, Codec.utf8()).consume(failing(second), options));

    try (QueueItem<String> letter = baton().queue(path + "/dead", Codec.utf8()).take(WAIT).orElseThrow()) {
      assertThat(letter.value()).isEqualTo("poison");
    }
    assertThat(first).hasValue(1);
    assertThat(second).as("the second client's failure was the last allowed").hasValue(1);
    await().atMost(WAIT).untilAsserted(() -> assertThat(producer.size()).isZero());
  }

  /**
   * With short back-offs both failing clients take turns, in any order: the item is dead-lettered
   * after exactly the configured attempts, counted across them.
   */
  @Test
  void poisonItemFailingOnTwoClients_withShortBackOffs_isDeadLetteredAfterExactlyMaxAttempts() throws Exception {
    String path = "/poison/every-client-short";
    DistributedQueue<String> producer = baton().queue(path, Codec.utf8());
    producer.put("poison");
    CompletableFuture<DeadLetter> letter = new CompletableFuture<>();
    ConsumerOptions options = ConsumerOptions.defaults()
        .withBackOff(Duration.ofMillis(10), Duration.ofMillis(40)).withMaxAttempts(5)
        .withDeadLetterHandler(letter::complete);
    AtomicInteger first = new AtomicInteger();
    AtomicInteger second = new AtomicInteger();
    closing(baton().queue(path, Codec.utf8()).consume(failing(first), options));
    closing(baton().queue(path, Codec.utf8()).consume(failing(second), options));

    assertThat(letter.get(20, TimeUnit.SECONDS).attempts()).isEqualTo(5);
    await().atMost(WAIT).untilAsserted(() -> assertThat(producer.size()).isZero());
    assertThat(first.get() + second.get()).isEqualTo(5);
  }

  @Test
  void itemFailingEveryAttempt_movesToTheDeadLetterPathAfterMaxAttempts_andOthersGoOn() throws Exception {
    String path = "/poison/dead";
    DistributedQueue<String> queue = baton().queue(path, Codec.utf8());
    queue.put("poison");
    queue.put("fine");
    AtomicInteger poisonCalls = new AtomicInteger();
    List<String> shipped = new CopyOnWriteArrayList<>();
    QueueConsumer consumer = closing(baton().queue(path, Codec.utf8()).consume(value -> {
      if (value.equals("poison")) {
        poisonCalls.incrementAndGet();
        throw new IllegalStateException("cannot ship " + value);
      }
      shipped.add(value);
    }, ConsumerOptions.defaults().withBackOff(Duration.ofMillis(10), Duration.ofMillis(40)).withMaxAttempts(3)));

    DistributedQueue<String> dead = baton().queue(path + "/dead", Codec.utf8());
    try (QueueItem<String> letter = dead.take(WAIT).orElseThrow()) {
      assertThat(letter.value()).isEqualTo("poison");
      letter.ack();
    }
    assertThat(poisonCalls).hasValue(3);
    assertThat(shipped).containsExactly("fine");
    await().atMost(WAIT).untilAsserted(() -> assertThat(queue.size()).isZero());
    assertThat(consumer.isRunning()).isTrue();
    assertThat(consumer.failure()).isEmpty();
  }

  @Test
  void deadLetterHandler_getsTheItemsBytesAttemptsAndLastFailure_andTheItemLeavesTheQueue() throws Exception {
    String path = "/poison/handler";
    DistributedQueue<String> queue = baton().queue(path, Codec.utf8());
    queue.put("order-7");
    CompletableFuture<DeadLetter> letter = new CompletableFuture<>();
    AtomicInteger calls = new AtomicInteger();
    closing(baton().queue(path, Codec.utf8()).consume(failing(calls), ConsumerOptions.defaults()
        .withBackOff(Duration.ZERO, Duration.ZERO).withMaxAttempts(2).withDeadLetterHandler(letter::complete)));

    DeadLetter got = letter.get(20, TimeUnit.SECONDS);
    assertThat(new String(got.data(), StandardCharsets.UTF_8)).isEqualTo("order-7");
    assertThat(got.path()).startsWith(path + "/queue-");
    assertThat(got.attempts()).isEqualTo(2);
    assertThat(got.lastFailure()).hasMessage("cannot ship order-7");
    await().atMost(WAIT).untilAsserted(() -> assertThat(queue.size()).isZero());
    assertThat(calls).hasValue(2);
    assertThat(raw.exists(path + "/dead")).isFalse();
  }

  @Test
  void deadLetterPath_setByTheUser_receivesTheItemUnderItsOwnName() throws Exception {
    String path = "/poison/custom";
    DistributedQueue<String> queue = baton().queue(path, Codec.utf8());
    queue.put("order-9");
    String itemName = raw.children(path).get(0);
    closing(baton().queue(path, Codec.utf8()).consume(failing(new AtomicInteger()), ConsumerOptions.defaults()
        .withBackOff(Duration.ZERO, Duration.ZERO).withMaxAttempts(1).withDeadLetterPath("/poison/letters/orders")));

    await().atMost(WAIT).untilAsserted(() -> assertThat(raw.children("/poison/letters/orders")).containsExactly(itemName));
    assertThat(baton().queue("/poison/letters/orders", Codec.utf8()).peek()).contains("order-9");
    await().atMost(WAIT).untilAsserted(() -> assertThat(queue.size()).isZero());
  }
}
