package dev.baton.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.BatonInterruptedException;
import dev.baton.lock.AcquireTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 31, defect 8: a blocking acquire interrupted just as its waiter timed out (or was
 * granted). The race is decided inside the client, between the interrupt waking the thread and
 * the withdrawal, so it is set up here in the state the thread finds after waking: the waiter can
 * no longer be withdrawn, and its future is already complete.
 */
class QueueLockInterruptTest {
  private static final String PATH = "/locks/interrupted";

  @AfterEach
  void clearFlag() {
    Thread.interrupted();
  }

  @Test
  void interruptRacingTheTimeout_throwsBatonInterrupted_keepsTheFlag_andReleasesNothing() {
    CompletableFuture<String> timedOut = CompletableFuture.failedFuture(
        new AcquireTimeoutException(PATH, Duration.ofMillis(10)));
    List<String> released = new CopyOnWriteArrayList<>();
    InterruptedException interrupt = new InterruptedException();

    BatonInterruptedException thrown = QueueLock.interrupted(PATH, interrupt, () -> false, timedOut, released::add);

    assertThat(thrown).hasMessageContaining(PATH).hasCause(interrupt);
    assertThat(Thread.currentThread().isInterrupted()).as("the interrupt flag").isTrue();
    assertThat(released).isEmpty();
  }

  @Test
  void interruptRacingTheGrant_releasesTheGrant_andKeepsTheFlag() {
    List<String> released = new CopyOnWriteArrayList<>();

    BatonInterruptedException thrown = QueueLock.interrupted(PATH, new InterruptedException(), () -> false,
        CompletableFuture.completedFuture("granted node"), released::add);

    assertThat(thrown).hasMessageContaining(PATH);
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
    assertThat(released).containsExactly("granted node");
  }

  @Test
  void interruptWhileQueued_withdrawsTheWaiter_andReleasesNothing() {
    List<String> released = new CopyOnWriteArrayList<>();
    CompletableFuture<String> pending = new CompletableFuture<>();

    QueueLock.interrupted(PATH, new InterruptedException(), () -> pending.cancel(false), pending, released::add);

    assertThat(pending).isCancelled();
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
    assertThat(released).isEmpty();
  }
}
