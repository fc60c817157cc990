package dev.baton.redis;

import dev.baton.lock.Lease;
import java.time.Duration;

/**
 * A process that takes a lock and holds it until it is killed: {@code LockHolderMain <uri> <name>
 * <ttl ms>} prints {@code HELD <token>} once it holds the lock.
 */
public final class LockHolderMain {
  private LockHolderMain() {}

  public static void main(String[] args) throws InterruptedException {
    long ttl = Long.parseLong(args[2]);
    RedisBaton baton = RedisBaton.builder().uri(args[0]).leaseTtl(Duration.ofMillis(ttl))
        .renewEvery(Duration.ofMillis(ttl / 5)).build();
    Lease lease = baton.mutex(args[1]).acquire(Duration.ofSeconds(30));
    System.out.println("HELD " + lease.fencingToken());
    System.out.flush();
    Thread.currentThread().join(); // until killed
  }
}
