package dev.baton.examples.docs;

import dev.baton.AclProvider;
import dev.baton.Baton;
import dev.baton.Codec;
import dev.baton.RetryPolicy;
import dev.baton.barrier.Barrier;
import dev.baton.barrier.DoubleBarrier;
import dev.baton.cache.CacheListener;
import dev.baton.cache.CachedNode;
import dev.baton.cache.TreeCache;
import dev.baton.leader.LeaderLatch;
import dev.baton.leader.LeaderSelector;
import dev.baton.leader.LeadershipListener;
import dev.baton.lock.Lease;
import dev.baton.queue.ConsumerOptions;
import dev.baton.queue.DistributedQueue;
import dev.baton.queue.QueueConsumer;
import dev.baton.queue.QueueItem;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executor;

/**
 * docs/barriers.md, cache.md, ensemble.md, leadership.md, queue.md, reliability.md and
 * security.md: the ZooKeeper recipes' guides.
 */
abstract class CoordinationGuides {
  Baton baton;
  Executor executor;
  String secret;

  record Order(String sku, int quantity) {}

  interface Scheduler {
    void resume(long fencingToken);

    void pause();
  }

  interface Report {
    void run(long fencingToken);
  }

  Scheduler scheduler;
  Report report;

  abstract void startWork();

  abstract void processMyShard();

  abstract void route(String path, String data);

  abstract void reroute(CachedNode node);

  abstract void unroute(String path);

  abstract void ready();

  abstract void ship(Order order);

  abstract void inspect(Order order);

  abstract void alert(String message);

  void barriers() throws InterruptedException {
    // [barriers]
    Barrier deploy = baton.barrier("/barriers/deploy-42");
    deploy.set();                                        // coordinator: raise it (idempotent)
    boolean down = deploy.await(Duration.ofSeconds(30)); // workers: wait until it is removed
    deploy.awaitAsync().thenRun(this::startWork);        // or hold no thread at all
    deploy.remove();                                     // coordinator: let everyone through

    // The counting barrier: five workers start together and finish together.
    DoubleBarrier batch = baton.doubleBarrier("/barriers/nightly-batch", 5);
    batch.enter(Duration.ofMinutes(1));   // once 5 members are in; BarrierTimeoutException otherwise
    processMyShard();
    batch.leave(Duration.ofMinutes(10));  // once every member has left; nothing is left on the server
    // [/barriers]
  }

  void cache() {
    // [cache]
    try (TreeCache cache = baton.cache("/services")) {        // or baton.nodeCache("/leader") for one node
      cache.addListener(new CacheListener() {
        @Override public void added(CachedNode node) { route(node.path(), node.dataAsString()); }
        @Override public void changed(CachedNode before, CachedNode after) { reroute(after); }
        @Override public void removed(CachedNode node) { unroute(node.path()); }
        @Override public void initialized() { ready(); }
      }, executor);
      cache.start().awaitInitialized(Duration.ofSeconds(5));
      Optional<CachedNode> a = cache.get("/services/a");       // local: no request
    }
    // [/cache]
  }

  Baton ensemble() {
    // [ensemble]
    Baton baton = Baton.builder()
        .connectString("zk1:2181,zk2:2181,zk3:2181")
        .sessionTimeout(Duration.ofSeconds(30))     // the ensemble may clamp it to 2..20 ticks
        .connectionTimeout(Duration.ofSeconds(15))  // connect() fails after this, naming the hosts
        .retryPolicy(RetryPolicy.exponentialBackoff(Duration.ofMillis(20), Duration.ofSeconds(1), 10))
        .namespace("/apps/shop")                    // every path of this client lives below it
        .digestAuth("shop", "secret")               // ZooKeeper digest authentication
        .build();
    // [/ensemble]
    return baton;
  }

  void leadership() {
    // [leadership]
    try (LeaderLatch latch = baton.leaderLatch("/services/billing/leader", "billing-3")) {
      latch.addListener(new LeadershipListener() {
        public void leadershipGained(Lease leadership) { scheduler.resume(leadership.fencingToken()); }
        public void leadershipLost(Lease leadership)   { scheduler.pause(); }
      });
      latch.start();
      latch.await(Duration.ofSeconds(10));                 // true once this process leads
      System.out.println("leader: " + latch.leaderId().orElse("none"));
    }

    LeaderSelector selector = baton.leaderSelector("/jobs/nightly-report", "worker-7", leadership -> {
      report.run(leadership.fencingToken());               // interrupted if leadership is taken away
    }).autoRequeue();
    selector.start();
    // [/leadership]
  }

  void queue() throws Exception {
    // [queue]
    DistributedQueue<Order> orders = baton.queue("/queues/orders", Codec.json(Order.class));
    orders.put(new Order("sku-42", 3));                 // any process

    try (QueueItem<Order> item = orders.take()) {       // waits, without polling
      ship(item.value());
      item.ack();                                        // removed for good
    }                                                    // no ack (an exception): given back

    QueueConsumer worker = orders.consume(order -> ship(order)); // ack on return, give back on throw
    // [/queue]
  }

  void deadLetters(DistributedQueue<Order> orders) throws Exception {
    // [dead-letters]
    QueueConsumer worker = orders.consume(order -> ship(order), ConsumerOptions.defaults()
        .withBackOff(Duration.ofMillis(200), Duration.ofSeconds(10))
        .withMaxAttempts(5)
        .withDeadLetterPath("/queues/orders-dead"));      // or .withDeadLetterHandler(letter -> ...)

    DistributedQueue<Order> dead = baton.queue("/queues/orders-dead", Codec.json(Order.class));
    try (QueueItem<Order> letter = dead.take()) { inspect(letter.value()); letter.ack(); }
    // [/dead-letters]
  }

  void failure() {
    // [failure]
    LeaderLatch latch = baton.leaderLatch("/services/billing/leader", "billing-3");
    latch.addFailureListener(error -> alert("not in the election: " + error.getMessage()));
    latch.start();          // a latch whose path refuses this identity no longer retries forever
    latch.failure();        // Optional[NotAuthorizedException: ... /services/billing/leader ...]
    // [/failure]
  }

  Baton security() {
    // [security]
    Baton baton = Baton.builder()
        .connectString("zk1:2281,zk2:2281,zk3:2281")       // the servers' secureClientPort
        .tls(Path.of("truststore.p12"), "changeit")          // ZooKeeper's Netty client, this client only
        .tlsClientCertificate(Path.of("client.p12"), "changeit")
        .digestAuth("orders-service", secret)
        .aclProvider(AclProvider.creatorAllOthersRead())
        .build();
    // [/security]
    return baton;
  }
}
