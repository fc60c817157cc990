package dev.baton.examples.docs;

import dev.baton.lock.FencedResource;
import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import dev.baton.redis.RedisBaton;
import java.time.Duration;
import java.util.Map;

/** docs/redis.md. */
final class RedisGuide {
  private RedisGuide() {}

  static void mutex(FencedResource<Map<String, Integer>> stock) {
    // [mutex]
    try (RedisBaton redis = RedisBaton.connect("redis://127.0.0.1:6379")) {
      Mutex orders = redis.mutex("orders");
      try (Lease lease = orders.acquire(Duration.ofSeconds(5))) {
        stock.write(lease.fencingToken(), s -> s.merge("sku-42", -1, Integer::sum));
      }
    }
    // [/mutex]
  }

  static void cluster() {
    // [cluster]
    try (RedisBaton redis = RedisBaton.connect("redis-cluster://10.0.0.1:7000,10.0.0.2:7000")) {
      Mutex orders = redis.mutex("orders"); // every key of "orders" is in the slot of {orders}
    }
    // [/cluster]
  }
}
