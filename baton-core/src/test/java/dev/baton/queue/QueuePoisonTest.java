package dev.baton.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import dev.baton.Codec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Poison items: a consumer whose handler keeps failing on an item backs off before giving it back,
 * counts the failures with the item, and after the last allowed attempt moves it to the dead
 * letters, so it neither floods the ensemble nor comes back forever.
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
   * The back-off here is an hour: while it runs the item stays claimed by the failing consumer,
   * so another client cannot take it. Closing the consumer gives it back at once, counted.
   */
  @Test
  void failedItem_staysHeldThroughItsBackOff_thenComesBackWithItsAttemptCounted() throws Exception {
    String path = "/poison/backoff";
    Baton producer = baton();
    producer.queue(path, Codec.utf8()).put("order-1");
    AtomicInteger calls = new AtomicInteger();
    QueueConsumer consumer = baton().queue(path, Codec.utf8()).consume(failing(calls),
        ConsumerOptions.defaults().withBackOff(Duration.ofHours(1), Duration.ofHours(1)));
    await().atMost(WAIT).until(() -> calls.get() == 1);

    DistributedQueue<String> other = baton().queue(path, Codec.utf8());
    assertThat(other.take(Duration.ZERO)).as("held through the back-off").isEmpty();
    assertThat(other.size()).isEqualTo(1);
    assertThat(calls).hasValue(1);

    consumer.close();
    try (QueueItem<String> again = other.take(WAIT).orElseThrow()) {
      assertThat(again.value()).isEqualTo("order-1");
      assertThat(again.attempt()).isEqualTo(2);
      again.ack();
    }
    assertThat(raw.exists(path + "/dead")).isFalse();
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
