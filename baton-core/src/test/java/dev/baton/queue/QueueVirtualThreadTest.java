package dev.baton.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.Codecs;
import dev.baton.testkit.PinnedThreads;
import dev.baton.testkit.VirtualThreads;
import dev.baton.testkit.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Consumers on virtual threads (JDK 21+): each takes an item and acknowledges it, which sends a
 * ZooKeeper {@code multi} (and may sleep between retries) while the item is locked against a
 * second acknowledgement. Every item is delivered and acknowledged once, and no carrier is pinned
 * with Baton's code on the stack.
 */
@EnabledForJreRange(min = JRE.JAVA_21)
class QueueVirtualThreadTest {
  private static final int ITEMS = 1_000;
  private static final Duration WAIT = Duration.ofMinutes(1);
  private static final Predicate<String> BATON = frame -> frame.startsWith("dev.baton.")
      && !frame.startsWith("dev.baton.testkit.") && !frame.contains("Test");

  @RegisterExtension static final ZooKeeperExtension zk = new ZooKeeperExtension();

  @Test
  void aThousandVirtualThreads_takeAndAck_eachItemOnce_andPinNoCarrierInBaton() throws Exception {
    Baton baton = zk.closing(Baton.connect(zk.connectString()));
    DistributedQueue<String> queue = baton.queue("/vthreads/queue", Codecs.UTF8);
    // Warm-up: the first threads to use a class wait for its initializer, which pins on any JDK.
    takeAndAck(queue, 50);

    PinnedThreads pinned = PinnedThreads.record();
    Queue<String> acknowledged = takeAndAck(queue, ITEMS);
    PinnedThreads.Report report = pinned.stop();

    assertThat(acknowledged).hasSize(ITEMS).doesNotHaveDuplicates();
    assertThat(queue.size()).isZero();
    assertThat(report.pinsWithFrame(BATON)).as("pinned blocks under Baton's code: %s", report.byTopFrame(BATON))
        .isEmpty();
  }

  /** Puts {@code items} items, then takes and acknowledges each on a virtual thread of its own. */
  private static Queue<String> takeAndAck(DistributedQueue<String> queue, int items) throws InterruptedException {
    assertThat(VirtualThreads.runAll(items, WAIT, i -> queue.put("item-" + i))).isEmpty();
    Queue<String> acknowledged = new ConcurrentLinkedQueue<>();
    List<Throwable> errors = VirtualThreads.runAll(items, WAIT, i -> {
      QueueItem<String> item = queue.take(WAIT).orElseThrow();
      item.ack();
      acknowledged.add(item.value());
    });
    assertThat(errors).isEmpty();
    return acknowledged;
  }
}
