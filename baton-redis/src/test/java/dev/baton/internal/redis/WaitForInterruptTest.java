package dev.baton.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.BatonInterruptedException;
import dev.baton.lock.AcquireTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An interrupt that arrives as the acquisition ends: whatever it ended with, the caller gets {@link
 * BatonInterruptedException} and keeps its interrupt flag.
 */
class WaitForInterruptTest {

  /** A wait that is interrupted just as {@code outcome} ends it, the race a real acquire can lose. */
  private static CompletableFuture<Tenure> endedAsItIsInterrupted(Consumer<CompletableFuture<Tenure>> outcome) {
    return new CompletableFuture<>() {
      @Override
      public Tenure get() throws InterruptedException {
        outcome.accept(this);
        throw new InterruptedException();
      }
    };
  }

  @AfterEach
  void clearTheFlag() {
    Thread.interrupted();
  }

  @Test
  void aTryOnceRefusedAsTheCallerIsInterrupted_throwsBatonInterruptedException_andKeepsTheFlag() {
    CompletableFuture<Tenure> refused = endedAsItIsInterrupted(f -> f.complete(null));

    assertThatThrownBy(() -> QueuedAcquisition.await(refused, "refused"))
        .isInstanceOf(BatonInterruptedException.class).hasMessageContaining("refused");
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
  }

  @Test
  void aWaitTimedOutAsTheCallerIsInterrupted_throwsBatonInterruptedException_andKeepsTheFlag() {
    CompletableFuture<Tenure> timedOut = endedAsItIsInterrupted(
        f -> f.completeExceptionally(new AcquireTimeoutException("timed", Duration.ofMillis(1))));

    assertThatThrownBy(() -> QueuedAcquisition.await(timedOut, "timed"))
        .isInstanceOf(BatonInterruptedException.class).hasMessageContaining("timed");
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
  }
}
