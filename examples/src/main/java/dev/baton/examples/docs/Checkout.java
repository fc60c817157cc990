package dev.baton.examples.docs;

import dev.baton.Coordinator;
import dev.baton.lock.Mutex;
import org.springframework.stereotype.Service;

/** docs/spring.md, "One store, chosen by configuration": a bean that works on either store. */
// [checkout]
@Service
class Checkout {
  private final Mutex stock;
  Checkout(Coordinator coordinator) { this.stock = coordinator.mutex("/locks/stock"); }
}
// [/checkout]
