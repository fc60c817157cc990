package dev.baton.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.ClientClosedException;
import dev.baton.Coordinator;
import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * Bad input, as a new user would give it: every backend refuses it with a clear, specific error
 * (naming what was wrong), and nothing is lost: the client, its leases and the lock stay usable.
 */
public abstract class BadInputContract extends ContractSupport {
  private static final Duration NEGATIVE = Duration.ofSeconds(-1);

  @Test
  public void emptyNullAndOversizedNames_areRefused() throws Exception {
    Coordinator client = client();
    Lease held = client.mutex(name("kept")).acquire(WAIT);
    assertThatThrownBy(() -> client.mutex("")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> client.mutex(null)).isInstanceOfAny(NullPointerException.class, IllegalArgumentException.class);
    // Over every backend's limit for a name (Redis: 1,024 bytes; ZooKeeper: the 1 MB packet).
    String oversized = "/contract/" + "n".repeat(2 * 1024 * 1024);
    assertThatThrownBy(() -> client.mutex(oversized).acquire(WAIT))
        .isInstanceOf(IllegalArgumentException.class)
        .satisfies(e -> assertThat(e.getMessage()).as("the message stays short").hasSizeLessThan(2000));
    assertThat(held.isValid()).as("a lease of the client that was given bad names").isTrue();
    held.close();
    whereSupported(Feature.READ_WRITE_LOCK,
        () -> assertThatThrownBy(() -> client.readWriteLock("")).isInstanceOf(IllegalArgumentException.class));
    whereSupported(Feature.SEMAPHORE,
        () -> assertThatThrownBy(() -> client.semaphore("", 2)).isInstanceOf(IllegalArgumentException.class));
    whereSupported(Feature.LEADER_LATCH,
        () -> assertThatThrownBy(() -> client.leaderLatch("", "p")).isInstanceOf(IllegalArgumentException.class));
  }

  @Test
  public void negativeAndNullTimeouts_areRefused_zeroTriesOnce() throws Exception {
    Coordinator client = client();
    Mutex mutex = client.mutex(name("timeouts"));
    assertRefused(() -> mutex.acquire(NEGATIVE), IllegalArgumentException.class);
    assertRefused(() -> mutex.tryAcquire(NEGATIVE), IllegalArgumentException.class);
    assertRefused(() -> mutex.acquire(null), NullPointerException.class);
    assertRefused(() -> mutex.tryAcquire(null), NullPointerException.class);
    CompletableFuture<Lease> async;
    try {
      async = mutex.acquireAsync(NEGATIVE);
    } catch (IllegalArgumentException refusedAtOnce) {
      async = CompletableFuture.failedFuture(refusedAtOnce);
    }
    CompletableFuture<Lease> refused = async;
    assertThatThrownBy(() -> get(refused)).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(IllegalArgumentException.class);
    assertThat(mutex.waiters()).isEmpty();
    try (Lease lease = mutex.acquire(Duration.ZERO)) {
      assertThat(lease.isValid()).as("Duration.ZERO on a free lock").isTrue();
    }
    whereSupported(Feature.SEMAPHORE, () -> {
      var semaphore = client.semaphore(name("semaphore"), 2);
      assertRefused(() -> semaphore.acquire(NEGATIVE), IllegalArgumentException.class);
      assertThatThrownBy(() -> semaphore.acquire(0, WAIT)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("permits");
      assertThatThrownBy(() -> semaphore.acquire(3, WAIT)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("permits");
      assertThatThrownBy(() -> client.semaphore(name("none"), 0)).isInstanceOf(IllegalArgumentException.class);
    });
    whereSupported(Feature.LEADER_LATCH, () -> {
      var latch = client.leaderLatch(name("latch"), "p");
      latch.start();
      assertRefused(() -> latch.await(NEGATIVE), IllegalArgumentException.class);
      latch.close();
    });
  }

  @Test
  public void multiLock_withNoLockOrOnePathTwice_isRefused() throws Exception {
    whereSupported(Feature.MULTI_LOCK, () -> {
      Coordinator client = client();
      String path = name("twice");
      assertThatThrownBy(() -> client.multiLock()).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> client.multiLock(client.mutex(path), client.mutex(path)))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(path);
    });
  }

  @Test
  public void closedClient_refusesEveryRecipe_withClientClosedException() throws Exception {
    Coordinator client = client();
    client.close();
    String name = name("closed");
    for (Feature feature : Feature.values()) {
      if (backend().features().contains(feature)) {
        // The message says how to make a new client of this backend, not another backend's.
        assertThatThrownBy(() -> feature.ask(client, name)).as(feature.words())
            .isInstanceOf(ClientClosedException.class)
            .hasMessageMatching("(?s).*\\b" + client.getClass().getSimpleName() + "\\.\\w+.*");
      } else {
        // What the backend cannot do it refuses as such, closed or not.
        assertThatThrownBy(() -> feature.ask(client, name)).as(feature.words())
            .isInstanceOfAny(UnsupportedOperationException.class, ClientClosedException.class);
      }
    }
  }

  private static void assertRefused(ThrowingCallable call, Class<? extends Throwable> expected) {
    assertThatThrownBy(call).isInstanceOf(expected).hasMessageContaining("timeout");
  }
}
