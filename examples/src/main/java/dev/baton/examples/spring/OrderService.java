package dev.baton.examples.spring;

import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.stereotype.Service;

/** Ships an order under its lock from the registry the starter made, so two nodes never ship it twice. */
@Service
public class OrderService {
  private final LockRegistry<?> locks;
  private final AtomicInteger shipped = new AtomicInteger();

  public OrderService(LockRegistry<?> locks) {
    this.locks = locks;
  }

  /**
   * Ships {@code orderId} while holding its lock.
   *
   * @throws TimeoutException if another node held the order's lock for 5 s
   */
  public int ship(String orderId) throws TimeoutException, InterruptedException {
    return locks.executeLocked(orderId, Duration.ofSeconds(5), shipped::incrementAndGet);
  }
}
