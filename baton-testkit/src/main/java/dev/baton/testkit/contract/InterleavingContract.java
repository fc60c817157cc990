package dev.baton.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Coordinator;
import dev.baton.lock.FencedResource;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.Mutex;
import dev.baton.lock.ReadWriteLock;
import dev.baton.lock.StaleTokenException;
import dev.baton.testkit.MutualExclusionChecker;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Interleavings that reviews found broken on one backend or another, run on every backend: a lease
 * closed from another thread while the client is busy with it (a renewal on a slow link, a
 * downgrade, a local hand-over), and a released holder's late fenced write after the lock was handed
 * to another thread of the same client. Each case states what a user relies on: one holder at a
 * time, tokens that grow from one holder to the next even without a round trip to the server, and
 * a lock that is never stranded.
 */
public abstract class InterleavingContract extends ContractSupport {

  /** Whether {@code thread} is parked in an acquire (or anything else that waits). */
  private static boolean waiting(Thread thread) {
    Thread.State state = thread.getState();
    return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING;
  }

  private static Thread started(String name, Runnable body) {
    Thread thread = new Thread(body, name);
    thread.setDaemon(true);
    thread.start();
    return thread;
  }

  /**
   * A lock handed from one thread to another of the same client (locally, where the backend does
   * that) still gives the next holder a larger token, so the one before it is fenced off.
   */
  @Test
  public void localHandOver_givesALargerToken_andTheReleasedHoldersLateWriteIsRefused() throws Exception {
    String name = name("local-hand-over");
    Mutex mutex = client().mutex(name);
    FencedResource<List<String>> resource = new FencedResource<>("hand-over-log", new ArrayList<>());
    Lease first = mutex.acquire(WAIT);
    long firstToken = first.fencingToken();
    resource.write(firstToken, log -> log.add("first"));

    CompletableFuture<Lease> second = new CompletableFuture<>();
    Thread waiter = started("second-holder", () -> {
      try {
        second.complete(mutex.acquire(WAIT));
      } catch (Throwable e) {
        second.completeExceptionally(e);
      }
    });
    await().until(() -> waiting(waiter));
    first.close();
    Lease next = get(second);

    assertThat(next.fencingToken()).as("the token of the thread the lock was handed to").isGreaterThan(firstToken);
    resource.write(next.fencingToken(), log -> log.add("second"));
    assertThatThrownBy(() -> resource.write(firstToken, log -> log.add("first, late")))
        .as("the released holder's late write").isInstanceOf(StaleTokenException.class);
    List<String> written = resource.read(log -> List.copyOf(log));
    assertThat(written).containsExactly("first", "second");
    assertThat(first.state()).isEqualTo(LeaseState.RELEASED);
    assertThat(next.state()).isEqualTo(LeaseState.HELD);
    next.close();
    assertThat(eventually("the lock, free once both are closed", () -> client().mutex(name).tryAcquire(Duration.ZERO)))
        .satisfies(Lease::close);
  }

  /**
   * A lease closed by one thread while another closes it too, just as the lock is being handed to
   * a waiting thread, and that thread's own lease closed by a third the moment it is granted: one
   * holder at a time, growing tokens, every waiter served once, and the lock free at the end.
   */
  @Test
  public void leaseClosedFromTwoThreads_midLocalHandOver_oneHolderAtATime_andNothingStranded() throws Exception {
    for (int round = 0; round < 5; round++) {
      String name = name("close-mid-hand-over-" + round);
      Mutex mutex = client().mutex(name);
      MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
      Lease first = mutex.acquire(WAIT);
      MutualExclusionChecker.Section firstSection = checker.enter("first", first.fencingToken());

      List<CompletableFuture<Long>> served = new ArrayList<>();
      List<Thread> waiters = new ArrayList<>();
      for (String who : List.of("second", "third")) {
        CompletableFuture<Long> done = new CompletableFuture<>();
        served.add(done);
        waiters.add(started(who, () -> {
          try {
            Lease lease = mutex.acquire(WAIT);
            MutualExclusionChecker.Section section = checker.enter(who, lease.fencingToken());
            section.exit();
            // Closed by another thread at once, while the hand-over that granted it may still be running.
            CompletableFuture.runAsync(lease::close).join();
            done.complete(lease.fencingToken());
          } catch (Throwable e) {
            done.completeExceptionally(e);
          }
        }));
      }
      await().until(() -> waiters.stream().allMatch(InterleavingContract::waiting));

      CyclicBarrier together = new CyclicBarrier(2);
      firstSection.exit();
      Future<?> otherCloser = onThread(() -> {
        together.await();
        first.close();
        return null;
      });
      together.await();
      first.close();
      get(otherCloser);

      List<Long> tokens = new ArrayList<>();
      tokens.add(first.fencingToken());
      for (CompletableFuture<Long> done : served) {
        tokens.add(get(done));
      }
      assertThat(first.state()).isEqualTo(LeaseState.RELEASED);
      assertThat(tokens).as("tokens of first, second, third").doesNotHaveDuplicates();
      assertThat(tokens.get(0)).as("the first holder's token is the smallest").isLessThan(tokens.get(1)).isLessThan(tokens.get(2));
      checker.assertNoViolations();
      assertThat(eventually("the lock, free once every lease is closed", () -> client().mutex(name).tryAcquire(Duration.ZERO)))
          .satisfies(Lease::close);
    }
  }

  /**
   * A lease closed from another thread while its client's renewals (or keep-alives) crawl over a slow
   * link: it stays released, the lock is free for another client, and a renewal that was in flight
   * does not take the lock back from that client.
   */
  @Test
  public void leaseClosedFromAnotherThread_whileRenewalsAreInFlight_staysReleased_andDoesNotComeBack() throws Exception {
    Duration slow = backend().leaseTimeout().dividedBy(6);
    for (int round = 0; round < 2; round++) {
      String name = name("close-mid-renewal-" + round);
      Coordinator holder = client();
      Lease lease = holder.mutex(name).acquire(WAIT);
      backend().delayLink(holder, slow);
      // Once a renewal (or keep-alive) has come back over the slow link, the next is soon in flight.
      Instant before = lease.validUntil();
      await().until(() -> lease.validUntil().isAfter(before));
      get(onThread(() -> {
        lease.close();
        return null;
      }));
      assertThat(lease.state()).isEqualTo(LeaseState.RELEASED);

      Coordinator other = client();
      Lease next = eventually("the lock, for another client once the lease is closed",
          () -> other.mutex(name).tryAcquire(Duration.ZERO));
      backend().restoreLink(holder);
      // Until the next holder's renewals have carried it a whole lease timeout further: by then any
      // renewal of the closed lease still on the slow link has landed, and would show below.
      Instant grantedUntil = next.validUntil();
      await().until(() -> next.validUntil().isAfter(grantedUntil.plus(backend().leaseTimeout())));
      assertThat(next.state()).as("the next holder's lease").isEqualTo(LeaseState.HELD);
      assertThat(lease.state()).as("the closed lease").isEqualTo(LeaseState.RELEASED);
      assertThat(holder.mutex(name).tryAcquire(Duration.ZERO)).as("the lock, still the next holder's").isEmpty();
      assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
      next.close();
    }
  }

  /**
   * A writer's thread downgrades (takes the read lock) while another thread closes the write lease.
   * Either the read lock is taken (the downgrade came first) or the downgrade is refused with an
   * {@link IllegalStateException} saying the write lease was closed under it (a backend must not
   * quietly hand out a read lock another writer may have come between); either way no writer is
   * left behind, a granted read lease keeps other clients' writers out until it is closed, and then
   * a writer gets in with a larger token.
   */
  @Test
  public void writeLeaseClosedFromAnotherThread_midDowngrade_leavesNoWriterBehind() throws Exception {
    whereSupported(Feature.READ_WRITE_LOCK, () -> {
      for (int round = 0; round < 5; round++) {
        String name = name("close-mid-downgrade-" + round);
        ReadWriteLock lock = client().readWriteLock(name);
        ReadWriteLock elsewhere = client().readWriteLock(name);
        CyclicBarrier together = new CyclicBarrier(2);
        CompletableFuture<Lease> write = new CompletableFuture<>();
        CompletableFuture<Optional<Lease>> read = new CompletableFuture<>();
        started("downgrading-writer", () -> {
          try {
            write.complete(lock.writeLock().acquire(WAIT));
            together.await();
            read.complete(lock.readLock().tryAcquire(WAIT));
          } catch (Throwable e) {
            write.completeExceptionally(e);
            read.completeExceptionally(e);
          }
        });
        Lease writeLease = get(write);
        get(onThread(() -> {
          together.await();
          writeLease.close();
          return null;
        }));
        Optional<Lease> readLease;
        try {
          readLease = get(read);
          assertThat(readLease).as("the read lock, taken before or after the write lease closed").isPresent();
        } catch (java.util.concurrent.ExecutionException refused) {
          assertThat(refused.getCause()).as("the downgrade, refused because the write lease closed under it")
              .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
          readLease = Optional.empty();
        }

        assertThat(writeLease.state()).isEqualTo(LeaseState.RELEASED);
        if (readLease.isPresent()) {
          assertThat(readLease.get().state()).isEqualTo(LeaseState.HELD);
          assertThat(elsewhere.writeLock().tryAcquire(Duration.ZERO)).as("a writer beside the reader").isEmpty();
          readLease.get().close();
        }
        Lease nextWrite = eventually("a writer, once no one holds the lock", () -> elsewhere.writeLock().tryAcquire(Duration.ZERO));
        assertThat(nextWrite.fencingToken()).isGreaterThan(writeLease.fencingToken());
        nextWrite.close();
      }
    });
  }
}
