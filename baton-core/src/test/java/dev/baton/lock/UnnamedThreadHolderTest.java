package dev.baton.lock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.testkit.ZooKeeperExtension;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A holder whose thread has no name (every virtual thread, and platform threads made without one)
 * is named by its thread id in the lock's record, so {@code holder()} still says which thread.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UnnamedThreadHolderTest {
  @RegisterExtension
  static final ZooKeeperExtension zk = new ZooKeeperExtension();

  @Test
  @SuppressWarnings("deprecation") // threadId() is Java 19+
  void aHolderOnAThreadWithoutAName_isNamedByItsId() throws Exception {
    Mutex mutex = zk.closing(Baton.connect(zk.connectString())).mutex("/unnamed/holder");
    CompletableFuture<Lease> held = new CompletableFuture<>();
    Thread unnamed = new Thread(() -> held.complete(mutex.acquire(Duration.ofSeconds(20))), "");
    unnamed.start();
    Lease lease = held.get(30, TimeUnit.SECONDS);

    assertThat(mutex.holder()).hasValueSatisfying(h -> assertThat(h.thread()).isEqualTo("#" + unnamed.getId()));
    lease.close();
  }
}
