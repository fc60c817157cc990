package dev.baton.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import dev.baton.Codec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.queue.QueueBuilder;
import org.apache.curator.framework.recipes.queue.QueueSerializer;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Baton's queue and Curator's {@code DistributedQueue} (built with {@code lockPath(path +
 * "/claims")}) on the same path: items put by either are taken by the other, in order, and
 * consumers of both libraries together deliver every item once.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QueueCuratorInteropTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(20);

  private static final QueueSerializer<String> UTF8 = new QueueSerializer<>() {
    @Override
    public byte[] serialize(String item) {
      return item.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String deserialize(byte[] bytes) {
      return new String(bytes, StandardCharsets.UTF_8);
    }
  };

  private CuratorFramework curator() {
    CuratorFramework client = CuratorFrameworkFactory.newClient(cluster.connectString(), 10_000, 10_000,
        new ExponentialBackoffRetry(50, 3));
    client.start();
    closing(client);
    return client;
  }

  /** A started Curator queue on {@code path} sharing Baton's claims; consumer may be null (producer only). */
  private org.apache.curator.framework.recipes.queue.DistributedQueue<String> curatorQueue(String path,
      QueueHandler<String> received) throws Exception {
    org.apache.curator.framework.recipes.queue.QueueConsumer<String> consumer = received == null ? null
        : new org.apache.curator.framework.recipes.queue.QueueConsumer<>() {
          @Override
          public void consumeMessage(String message) throws Exception {
            received.handle(message);
          }

          @Override
          public void stateChanged(CuratorFramework client, ConnectionState newState) {
          }
        };
    org.apache.curator.framework.recipes.queue.DistributedQueue<String> queue =
        QueueBuilder.builder(curator(), consumer, UTF8, path).lockPath(path + "/claims").buildQueue();
    queue.start();
    closing(queue);
    return queue;
  }

  @Test
  void batonPuts_curatorConsumesInOrder() throws Exception {
    String path = "/interop/queue/baton-to-curator";
    DistributedQueue<String> queue = baton().queue(path, Codec.utf8());
    List<String> put = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      put.add("b" + i);
      queue.put("b" + i);
    }
    List<String> received = new CopyOnWriteArrayList<>();
    curatorQueue(path, received::add);
    await().atMost(WAIT).until(() -> received.size() == put.size());
    assertThat(received).containsExactlyElementsOf(put);
    await().atMost(WAIT).until(() -> queue.size() == 0);
    assertThat(raw.children(path + "/claims")).isEmpty();
  }

  @Test
  void curatorPuts_batonTakesInOrder() throws Exception {
    String path = "/interop/queue/curator-to-baton";
    org.apache.curator.framework.recipes.queue.DistributedQueue<String> producer = curatorQueue(path, null);
    List<String> put = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      put.add("c" + i);
      producer.put("c" + i);
    }
    assertThat(producer.flushPuts(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    DistributedQueue<String> queue = baton().queue(path, Codec.utf8());
    await().atMost(WAIT).until(() -> queue.size() == put.size());
    List<String> taken = new ArrayList<>();
    for (int i = 0; i < put.size(); i++) {
      QueueItem<String> item = queue.take(WAIT).orElseThrow();
      taken.add(item.value());
      item.ack();
    }
    assertThat(taken).containsExactlyElementsOf(put);
    assertThat(queue.size()).isZero();
  }

  /**
   * A Curator consumer and two Baton consumers on one queue. Each handler, on its first item,
   * waits until the other library has an item too, so both surely take part; claims keep every
   * item to one consumer.
   */
  @Test
  void batonAndCuratorConsumersTogether_deliverEveryItemOnce() throws Exception {
    String path = "/interop/queue/mixed";
    int items = 120;
    List<String> byCurator = new CopyOnWriteArrayList<>();
    List<String> byBaton = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch curatorHasOne = new CountDownLatch(1);
    CountDownLatch batonHasOne = new CountDownLatch(1);
    curatorQueue(path, message -> {
      byCurator.add(message);
      curatorHasOne.countDown();
      batonHasOne.await(WAIT.toSeconds(), TimeUnit.SECONDS);
    });
    QueueHandler<String> baton = value -> {
      byBaton.add(value);
      batonHasOne.countDown();
      curatorHasOne.await(WAIT.toSeconds(), TimeUnit.SECONDS);
    };
    QueueConsumer batonConsumer = baton().queue(path, Codec.utf8()).consume(baton);
    QueueConsumer secondBaton = baton().queue(path, Codec.utf8()).consume(baton);
    DistributedQueue<String> producer = baton().queue(path, Codec.utf8());
    for (int i = 0; i < items; i++) {
      producer.put("m" + i);
    }
    await().atMost(WAIT).until(() -> byCurator.size() + byBaton.size() >= items);
    batonConsumer.close();
    secondBaton.close();
    List<String> all = new ArrayList<>(byCurator);
    all.addAll(byBaton);
    assertThat(all).hasSize(items).doesNotHaveDuplicates();
    assertThat(byBaton).as("Baton took part").isNotEmpty();
    assertThat(byCurator).as("Curator took part").isNotEmpty();
    await().atMost(WAIT).until(() -> producer.size() == 0);
  }
}
