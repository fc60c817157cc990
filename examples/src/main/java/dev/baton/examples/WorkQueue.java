package dev.baton.examples;

import dev.baton.Baton;
import dev.baton.Codec;
import dev.baton.queue.DistributedQueue;
import dev.baton.queue.QueueConsumer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Scenario 6, the work queue: a producer puts orders; three workers (a client each) take them
 * without polling. One worker fails on its first order: the order is given back, not lost, and
 * another worker (or the same) ships it. Each order is shipped once.
 *
 * <p>Run: {@code java dev.baton.examples.WorkQueue [host:port]}.
 */
public final class WorkQueue {
  /** An order, as JSON in its queue node. */
  public record Order(String sku, int quantity) {}

  /** The orders shipped, and how many times a worker failed and gave one back. */
  public record Result(Set<String> shipped, int givenBack) {}

  public static void main(String[] args) {
    DevServers.withZooKeeper(args, zk -> System.out.println(run(zk, 20)));
  }

  public static Result run(String connectString, int orders) {
    Set<String> shipped = ConcurrentHashMap.newKeySet();
    CountDownLatch done = new CountDownLatch(orders);
    AtomicBoolean failedOnce = new AtomicBoolean();
    List<Baton> clients = new ArrayList<>();
    List<QueueConsumer> workers = new ArrayList<>();
    try (Baton producer = Baton.connect(connectString)) {
      DistributedQueue<Order> queue = producer.queue("/queues/orders", Codec.json(Order.class));
      for (int i = 0; i < orders; i++) {
        queue.put(new Order("sku-" + i, 1));
      }
      for (int w = 0; w < 3; w++) {
        Baton client = Baton.connect(connectString);
        clients.add(client);
        boolean clumsy = w == 0;
        workers.add(client.queue("/queues/orders", Codec.json(Order.class)).consume(order -> {
          if (clumsy && failedOnce.compareAndSet(false, true)) {
            throw new IllegalStateException("the printer jammed on " + order.sku()); // given back
          }
          if (shipped.add(order.sku())) {
            done.countDown();
          }
        }));
      }
      if (!done.await(60, TimeUnit.SECONDS)) {
        throw new IllegalStateException("only " + shipped.size() + " of " + orders + " orders shipped");
      }
      return new Result(Set.copyOf(shipped), failedOnce.get() ? 1 : 0);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } finally {
      workers.forEach(QueueConsumer::close);
      clients.forEach(Baton::close);
    }
  }

  private WorkQueue() {}
}
