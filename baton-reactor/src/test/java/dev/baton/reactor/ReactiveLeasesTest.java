package dev.baton.reactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.lock.AcquireTimeoutException;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.Mutex;
import dev.baton.testkit.FaultProxy;
import dev.baton.testkit.ZooKeeperExtension;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.reactivestreams.Subscription;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ReactiveLeasesTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  @RegisterExtension
  static final ZooKeeperExtension zk = new ZooKeeperExtension();

  private Baton client() {
    return zk.closing(Baton.connect(zk.connectString()));
  }

  @Test
  void withLease_holdsWhileTheWorkRuns_andReleasesWhenItEnds() {
    Mutex mutex = client().mutex("/reactive/with-lease");
    Mutex other = client().mutex("/reactive/with-lease");

    Mono<Long> work = ReactiveLeases.withLease(ReactiveLeases.acquire(mutex, WAIT), lease -> {
      assertThat(other.holder()).hasValueSatisfying(h -> assertThat(h.fencingToken()).isEqualTo(lease.fencingToken()));
      return Mono.just(lease.fencingToken());
    });

    StepVerifier.create(work).expectNextMatches(token -> token > 0).verifyComplete();
    await().atMost(WAIT).until(() -> other.holder().isEmpty());
  }

  @Test
  void withLease_releasesWhenTheWorkFails() {
    Mutex mutex = client().mutex("/reactive/failing-work");

    Mono<String> work = ReactiveLeases.withLease(ReactiveLeases.acquire(mutex, WAIT),
        lease -> Mono.error(new IllegalStateException("out of stock")));

    StepVerifier.create(work).expectErrorMessage("out of stock").verify(WAIT);
    assertThat(client().mutex("/reactive/failing-work").tryAcquire(WAIT)).isPresent();
  }

  @Test
  void aCancelledWait_leavesNoWaiterAndNeverTakesTheLock() {
    Mutex holderSide = client().mutex("/reactive/cancelled-wait");
    Mutex waiterSide = client().mutex("/reactive/cancelled-wait");
    Lease held = holderSide.acquire(WAIT);

    Disposable waiting = ReactiveLeases.acquire(waiterSide).subscribe();
    await().atMost(WAIT).until(() -> holderSide.waiters().size() == 1);
    waiting.dispose();
    await().atMost(WAIT).until(() -> holderSide.waiters().isEmpty());

    held.close();
    // Had the cancelled wait stayed queued, it would now hold the lock and this would time out.
    assertThat(client().mutex("/reactive/cancelled-wait").tryAcquire(WAIT)).isPresent();
  }

  @Test
  void aTimedAcquire_failsWithTheBackendsOwnException() {
    Mutex holderSide = client().mutex("/reactive/timeout");
    holderSide.acquire(WAIT);

    StepVerifier.create(ReactiveLeases.acquire(client().mutex("/reactive/timeout"), Duration.ofMillis(200)))
        .expectError(AcquireTimeoutException.class)
        .verify(WAIT);
  }

  @Test
  void aLeaseGrantedAfterTheSubscriberCancelled_isClosedAtOnce() {
    // A backend whose grant was already on its way when the cancel came: it cannot withdraw.
    CompletableFuture<Lease> grant = new CompletableFuture<>() {
      @Override
      public boolean cancel(boolean mayInterruptIfRunning) {
        return false;
      }
    };
    RecordingLease lease = new RecordingLease();

    Disposable subscription = ReactiveLeases.acquire(() -> grant).subscribe();
    subscription.dispose();
    grant.complete(lease);

    assertThat(lease.closes()).isEqualTo(1);
  }

  @Test
  void aLeaseGrantedBeforeTheSubscriberAskedForIt_andThenCancelled_isClosedOnce() {
    RecordingLease lease = new RecordingLease();
    BaseSubscriber<Lease> notAskingYet = new BaseSubscriber<>() {
      @Override
      protected void hookOnSubscribe(Subscription subscription) {
        // requests nothing: the granted lease waits in the Mono
      }
    };

    ReactiveLeases.acquire(() -> CompletableFuture.completedFuture(lease)).subscribe(notAskingYet);
    assertThat(lease.closes()).isZero();
    notAskingYet.cancel();

    assertThat(lease.closes()).isEqualTo(1);
  }

  @Test
  void aCancelledAcquisition_cancelsTheBackendsFuture() {
    CompletableFuture<Lease> grant = new CompletableFuture<>();

    ReactiveLeases.acquire(() -> grant).subscribe().dispose();

    assertThat(grant).isCancelled();
  }

  @Test
  void states_sayHeldThenReleased_andComplete() {
    Lease lease = client().mutex("/reactive/states").acquire(WAIT);

    StepVerifier.create(ReactiveLeases.states(lease))
        .expectNext(LeaseState.HELD)
        .then(lease::close)
        .expectNext(LeaseState.RELEASED)
        .verifyComplete();
  }

  @Test
  void states_tellSuspectThenLost_whenTheLinkStaysDownPastTheSession() {
    FaultProxy proxy = zk.closing(FaultProxy.start(zk.address()));
    Baton client = zk.closing(Baton.builder().connectString(proxy.connectString())
        .sessionTimeout(Duration.ofSeconds(2)).build());
    Lease lease = client.mutex("/reactive/lost").acquire(WAIT);

    StepVerifier.create(ReactiveLeases.states(lease))
        .expectNext(LeaseState.HELD)
        .then(proxy::blackhole)
        .expectNext(LeaseState.SUSPECT)
        .expectNext(LeaseState.LOST)
        .expectComplete()
        .verify(WAIT);
  }
}
