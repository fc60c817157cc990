package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** As on ZooKeeper: a holder on a thread without a name (a virtual thread) is named by its id. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UnnamedThreadHolderTest extends RedisTestSupport {

  @Test
  @SuppressWarnings("deprecation") // threadId() is Java 19+
  void aHolderOnAThreadWithoutAName_isNamedByItsId() throws Exception {
    Mutex mutex = client().mutex("unnamed-holder");
    CompletableFuture<Lease> held = new CompletableFuture<>();
    Thread unnamed = new Thread(() -> held.complete(mutex.acquire(Duration.ofSeconds(20))), "");
    unnamed.start();
    Lease lease = held.get(30, TimeUnit.SECONDS);

    assertThat(mutex.holder()).hasValueSatisfying(h -> assertThat(h.thread()).isEqualTo("#" + unnamed.getId()));
    lease.close();
  }
}
