package dev.baton.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.lock.AcquireTimeoutException;
import dev.baton.lock.Lease;
import dev.baton.lock.Semaphore;
import dev.baton.testkit.MutualExclusionChecker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link Semaphore}: at most N leases at once across clients, multi-permit
 * acquisitions all or nothing, and a timeout that gives back what it took. On a backend without
 * the feature every case checks the declared refusal instead.
 */
public abstract class SemaphoreContract extends ContractSupport {

  @Test
  public void atMostNHolders_underContention() throws Exception {
    whereSupported(Feature.SEMAPHORE, () -> {
      String name = name("permits");
      MutualExclusionChecker checker = MutualExclusionChecker.withCapacity(2);
      List<Future<Void>> workers = new ArrayList<>();
      for (int c = 0; c < 3; c++) {
        Semaphore semaphore = client().semaphore(name, 2);
        for (int t = 0; t < 2; t++) {
          String who = "client" + c + "-thread" + t;
          workers.add(onThread(() -> {
            for (int i = 0; i < 5; i++) {
              try (Lease lease = semaphore.acquire(WAIT)) {
                MutualExclusionChecker.Section section = checker.enter(who, lease.fencingToken());
                lease.addListener((l, state) -> {
                  if (!state.isValid()) {
                    section.lost();
                  }
                });
                Thread.yield();
                section.exit();
              }
            }
            return null;
          }));
        }
      }
      for (Future<Void> worker : workers) {
        get(worker);
      }
      assertThat(checker.sectionCount()).isEqualTo(30);
      checker.assertNoViolations();
    });
  }

  @Test
  public void multiPermitAcquire_isAllOrNothing() throws Exception {
    whereSupported(Feature.SEMAPHORE, () -> {
      String name = name("all-or-nothing");
      Semaphore a = client().semaphore(name, 3);
      Semaphore b = client().semaphore(name, 3);
      Lease two = a.acquire(2, WAIT);
      await().untilAsserted(() -> assertThat(b.holders()).as("a lease of two permits").hasSize(2));
      assertThat(b.tryAcquire(2, SHORT)).as("two permits of the one left").isEmpty();
      await().untilAsserted(() -> assertThat(b.holders()).as("after a failed multi-permit try").hasSize(2));
      Lease one = eventually("the permit left", () -> b.tryAcquire(Duration.ZERO));
      assertThat(b.tryAcquire(Duration.ZERO)).as("none left").isEmpty();
      two.close();
      await().untilAsserted(() -> assertThat(b.holders()).hasSize(1));
      try (Lease again = b.acquire(2, WAIT)) {
        assertThat(again.isValid()).isTrue();
      }
      one.close();
    });
  }

  @Test
  public void timeout_givesBackWhatWasTaken() throws Exception {
    whereSupported(Feature.SEMAPHORE, () -> {
      String name = name("give-back");
      Semaphore a = client().semaphore(name, 2);
      Semaphore b = client().semaphore(name, 2);
      Lease held = a.acquire(WAIT);
      assertThatThrownBy(() -> b.acquire(2, SHORT)).isInstanceOf(AcquireTimeoutException.class)
          .hasMessageContaining(name);
      await().untilAsserted(() -> assertThat(a.holders()).as("holders after the timeout").hasSize(1));
      Semaphore c = client().semaphore(name, 2);
      eventually("the permit the timed-out waiter did not keep", () -> c.tryAcquire(Duration.ZERO)).close();
      held.close();
    });
  }

  @Test
  public void asyncWaiter_grantedOnRelease_andACancelledOneLeavesNothing() throws Exception {
    whereSupported(Feature.SEMAPHORE, () -> {
      String name = name("async");
      Semaphore a = client().semaphore(name, 1);
      Semaphore b = client().semaphore(name, 1);
      Lease held = a.acquire(WAIT);
      java.util.concurrent.CompletableFuture<Lease> cancelled = b.acquireAsync();
      java.util.concurrent.CompletableFuture<Lease> waiting = client().semaphore(name, 1).acquireAsync();
      assertThat(cancelled.cancel(true)).isTrue();
      assertThat(waiting).isNotDone();
      held.close();
      Lease granted = get(waiting);
      assertThat(granted.isValid()).isTrue();
      await().untilAsserted(() -> assertThat(a.holders()).as("holders: the granted waiter only").hasSize(1));
      granted.close();
      Semaphore c = client().semaphore(name, 1);
      eventually("the permit, free: the cancelled waiter did not take it", () -> c.tryAcquire(Duration.ZERO)).close();
    });
  }
}
