package dev.baton.examples.docs;

import dev.baton.Baton;
import dev.baton.examples.docs.Placeholders.Stock;
import dev.baton.examples.docs.Placeholders.Worker;
import dev.baton.lock.FencedResource;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.Mutex;
import dev.baton.redis.RedisBaton;
import java.time.Duration;
import java.util.Map;

/** README.md, "Using the library". */
final class ReadmeSnippets {
  private ReadmeSnippets() {}

  static void zooKeeper(Stock stock, Worker worker) {
    // [zookeeper]
    try (Baton baton = Baton.connect("127.0.0.1:2181")) {
      Mutex mutex = baton.mutex("/locks/sku-42");                 // cheap; share it between threads
      try (Lease lease = mutex.acquire(Duration.ofSeconds(5))) {  // AcquireTimeoutException after 5 s
        lease.addListener((l, state) -> { if (state != LeaseState.HELD) worker.stop(); });
        stock.decrement(lease.fencingToken());                    // the resource rejects older tokens
      }                                                           // close() releases, from any thread
    }
    // [/zookeeper]
  }

  static void redis(FencedResource<Map<String, Integer>> stock) {
    // [redis]
    try (RedisBaton redis = RedisBaton.connect("redis://127.0.0.1:6379")) {
      try (Lease lease = redis.mutex("orders").acquire(Duration.ofSeconds(5))) {
        stock.write(lease.fencingToken(), s -> s.merge("sku-42", -1, Integer::sum));
      }
    }
    // [/redis]
  }
}
