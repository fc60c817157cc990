package dev.baton.reactor;

import dev.baton.lock.Lease;
import dev.baton.lock.LeaseListener;
import dev.baton.lock.LeaseState;
import dev.baton.lock.Mutex;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Leases for reactive callers.
 *
 * <pre>{@code
 * Mono<Receipt> sale = ReactiveLeases.withLease(
 *     ReactiveLeases.acquire(baton.mutex("/locks/sku-42"), Duration.ofSeconds(5)),
 *     lease -> stock.decrement(lease.fencingToken()));     // released when the Mono ends, fails or is cancelled
 * }</pre>
 *
 * <p>Nothing here blocks a thread while it waits: an acquisition is the backend's own {@code
 * acquireAsync()}. A subscriber that cancels while the lock is still awaited withdraws the wait
 * (the backend deletes what it queued); one that cancels just as the lock is granted has the lease
 * closed for it, so a cancelled acquisition never leaves a lock held.
 */
public final class ReactiveLeases {
  private ReactiveLeases() {}

  /**
   * The mutex, once granted. Waits without a timeout; on connection loss the wait goes on as the
   * backend's {@code acquireAsync()} does (it keeps its place and fails only when the client
   * closes or an error no retry can cure reaches it); errors arrive as the backend's own
   * exceptions, not wrapped.
   */
  public static Mono<Lease> acquire(Mutex mutex) {
    Objects.requireNonNull(mutex, "mutex");
    return acquire(mutex::acquireAsync);
  }

  /**
   * The mutex, once granted, or {@code AcquireTimeoutException} after {@code timeout}.
   *
   * @throws IllegalArgumentException (from the backend, when subscribed) if the timeout is negative
   */
  public static Mono<Lease> acquire(Mutex mutex, Duration timeout) {
    Objects.requireNonNull(mutex, "mutex");
    Objects.requireNonNull(timeout, "timeout");
    return acquire(() -> mutex.acquireAsync(timeout));
  }

  /**
   * Any acquisition as a {@code Mono}: a read or write lock's, a semaphore's ({@code () ->
   * pool.acquireAsync(Duration.ofSeconds(5))}), any backend's. The acquisition starts on each
   * subscription; cancelling the subscription cancels its future, and a lease granted after the
   * cancellation (or at the same moment) is closed at once.
   */
  public static Mono<Lease> acquire(Supplier<? extends CompletableFuture<? extends Lease>> acquisition) {
    Objects.requireNonNull(acquisition, "acquisition");
    return Mono.<Lease>create(sink -> {
      CompletableFuture<? extends Lease> future = acquisition.get();
      // Exactly one of "handed to the subscriber" and "cancelled" wins; the loser's lease is closed
      // by whoever holds it then: us here, or the sink's discard hook below if the subscriber went
      // away between our hand-over and its receipt.
      AtomicBoolean settled = new AtomicBoolean();
      sink.onCancel(() -> {
        if (settled.compareAndSet(false, true)) {
          future.cancel(false);
        }
      });
      future.whenComplete((lease, error) -> {
        if (error != null) {
          if (settled.compareAndSet(false, true)) {
            sink.error(unwrap(error));
          }
        } else if (settled.compareAndSet(false, true)) {
          sink.success(lease);
        } else {
          lease.close();
        }
      });
    }).doOnDiscard(Lease.class, Lease::close);
  }

  /**
   * Runs {@code work} while holding the lease {@code lease} gives, and releases it when the work's
   * {@code Mono} completes, fails or is cancelled. The release runs on Reactor's bounded-elastic
   * scheduler, since a backend's release may wait for its server.
   */
  public static <T> Mono<T> withLease(Mono<Lease> lease, Function<? super Lease, ? extends Mono<T>> work) {
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(work, "work");
    return Mono.usingWhen(lease, work, ReactiveLeases::release, (l, error) -> release(l), ReactiveLeases::release);
  }

  /**
   * The lease's state now, then each change, completing after {@link LeaseState#RELEASED} or
   * {@link LeaseState#LOST} (from which a lease never comes back). Changes are heard as the
   * lease's listeners hear them (SUSPECT and LOST before another client can be granted the lock)
   * and delivered in order on Reactor's bounded-elastic scheduler, never on the client's event
   * executor, so a slow subscriber cannot hold up the client's other notices.
   */
  public static Flux<LeaseState> states(Lease lease) {
    Objects.requireNonNull(lease, "lease");
    return Flux.<LeaseState>create(sink -> {
      // The first state read and the listener's changes must reach the sink in the order they
      // happened: a change heard first is newer than the read, and one heard after it waits for it.
      Object order = new Object();
      AtomicBoolean heard = new AtomicBoolean();
      LeaseListener listener = (l, state) -> {
        synchronized (order) {
          heard.set(true);
          emit(sink, state);
        }
      };
      lease.addListener(listener);
      synchronized (order) {
        if (!heard.get()) {
          emit(sink, lease.state());
        }
      }
    }, FluxSink.OverflowStrategy.BUFFER)
        .distinctUntilChanged()
        .publishOn(Schedulers.boundedElastic());
  }

  private static void emit(FluxSink<LeaseState> sink, LeaseState state) {
    if (sink.isCancelled()) {
      return;
    }
    sink.next(state);
    if (state == LeaseState.RELEASED || state == LeaseState.LOST) {
      sink.complete();
    }
  }

  private static Mono<Void> release(Lease lease) {
    return Mono.<Void>fromRunnable(lease::close).subscribeOn(Schedulers.boundedElastic());
  }

  private static Throwable unwrap(Throwable error) {
    return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
  }
}
