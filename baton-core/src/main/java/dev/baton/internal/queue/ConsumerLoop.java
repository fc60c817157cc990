package dev.baton.internal.queue;

import dev.baton.BatonInterruptedException;
import dev.baton.ClientClosedException;
import dev.baton.FailureListener;
import dev.baton.internal.session.Errors;
import dev.baton.internal.session.FailureReport;
import dev.baton.queue.DistributedQueue;
import dev.baton.queue.QueueConsumer;
import dev.baton.queue.QueueHandler;
import dev.baton.queue.QueueItem;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code DistributedQueue.consume}: take an item without holding a thread, run the handler on the
 * executor, acknowledge or give back, take the next. One item at a time.
 */
final class ConsumerLoop<T> implements QueueConsumer {
  private static final Logger log = LoggerFactory.getLogger(ConsumerLoop.class);
  private static final AtomicInteger IDS = new AtomicInteger();

  private final DistributedQueue<T> queue;
  private final QueueHandler<? super T> handler;
  private final Executor executor;
  private final ExecutorService ownThread;
  // A lock and condition, not a monitor: close() waits here for the handler (the user's code) to
  // finish, and a virtual thread waiting in a monitor pins its carrier on JDK 21-23.
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition idle = lock.newCondition();
  private final FailureReport failure = new FailureReport();
  private final Executor events;
  private final PoisonItems poison;

  // Guarded by lock.
  private boolean stopped;
  private boolean busy;
  private Thread handling;
  private CompletableFuture<QueueItem<T>> pending;

  private ConsumerLoop(DistributedQueue<T> queue, QueueHandler<? super T> handler, Executor executor,
      Executor events, PoisonItems poison) {
    this.queue = queue;
    this.events = events;
    this.handler = handler;
    this.poison = poison;
    if (executor == null) {
      String name = "baton-queue-consumer-" + IDS.incrementAndGet();
      this.ownThread = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, name);
        thread.setDaemon(true);
        return thread;
      });
      this.executor = ownThread;
    } else {
      this.ownThread = null;
      this.executor = executor;
    }
  }

  /**
   * A consumer on {@code queue}; {@code executor == null} gives it a thread of its own. Failure
   * listeners run on {@code events}; failed items go to {@code poison}.
   */
  static <T> QueueConsumer start(DistributedQueue<T> queue, QueueHandler<? super T> handler, Executor executor,
      Executor events, PoisonItems poison) {
    ConsumerLoop<T> consumer = new ConsumerLoop<>(queue, handler, executor, events, poison);
    consumer.next();
    return consumer;
  }

  private void next() {
    if (!isRunning()) {
      return;
    }
    CompletableFuture<QueueItem<T>> taking;
    try {
      // Sent outside the lock: taking sends requests, which may wait for room on the connection.
      taking = queue.takeAsync();
    } catch (RuntimeException e) {
      stop(e);
      return;
    }
    boolean closedMeanwhile;
    lock.lock();
    try {
      closedMeanwhile = stopped;
      if (!closedMeanwhile) {
        pending = taking;
      }
    } finally {
      lock.unlock();
    }
    if (closedMeanwhile) {
      taking.cancel(false); // close() came while the take was being sent: it saw no take to cancel
      return;
    }
    taking.whenComplete((item, error) -> {
      if (error != null) {
        stop(error);
        return;
      }
      boolean closing;
      lock.lock();
      try {
        pending = null;
        closing = stopped;
        busy = !closing;
      } finally {
        lock.unlock();
      }
      if (closing) {
        item.close();
        return;
      }
      try {
        executor.execute(() -> handle(item));
      } catch (RejectedExecutionException e) {
        item.close();
        finished();
        stop(e);
      }
    });
  }

  private void handle(QueueItem<T> item) {
    lock.lock();
    try {
      handling = Thread.currentThread();
    } finally {
      lock.unlock();
    }
    try {
      boolean handled = false;
      try {
        handler.handle(item.value());
        handled = true;
      } catch (Exception | Error e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        try {
          poison.failed(item, e);
        } catch (RuntimeException fatal) {
          stop(fatal);
        }
      }
      if (handled) {
        try {
          item.ack();
        } catch (RuntimeException e) {
          item.close();
          if (Errors.isUnrecoverable(e)) {
            // Taking the item again would handle it again and fail to acknowledge it again, forever.
            stop(e);
          } else {
            log.warn("Could not acknowledge {} after handling it", item.path(), e);
          }
        }
      }
    } finally {
      finished();
      next();
    }
  }

  private void finished() {
    lock.lock();
    try {
      busy = false;
      handling = null;
      idle.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stops for good on {@code error}: taking failed for a reason retrying cannot cure (taking
   * retries connection trouble by itself), or acknowledging did. Recorded for {@link #failure()}
   * and told to the failure listeners; a take cancelled by {@link #close()} is no failure.
   */
  private void stop(Throwable error) {
    Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    boolean closing = cause instanceof CancellationException;
    boolean reported;
    lock.lock();
    try {
      reported = !stopped && !closing;
      stopped = true;
      pending = null;
    } finally {
      lock.unlock();
    }
    if (reported) {
      RuntimeException reason = Errors.translate(cause, queue.path());
      if (!(reason instanceof ClientClosedException)) {
        log.error("The consumer of the queue {} stopped: retrying cannot cure this", queue.path(), reason);
      }
      failure.fail(reason);
    }
    if (ownThread != null) {
      ownThread.shutdown();
    }
  }

  @Override
  public Optional<RuntimeException> failure() {
    return failure.failure();
  }

  @Override
  public void addFailureListener(FailureListener listener) {
    failure.add(listener, events);
  }

  @Override
  public boolean isRunning() {
    lock.lock();
    try {
      return !stopped;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void close() {
    CompletableFuture<QueueItem<T>> taking;
    lock.lock();
    try {
      stopped = true;
      taking = pending;
      pending = null;
    } finally {
      lock.unlock();
    }
    if (taking != null) {
      taking.cancel(false);
    }
    try {
      lock.lockInterruptibly();
      try {
        while (busy && handling != Thread.currentThread()) {
          idle.await();
        }
      } finally {
        lock.unlock();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BatonInterruptedException("Interrupted while waiting for the handler of the queue "
          + queue.path() + " to finish its item; the consumer is stopped", e);
    } finally {
      if (ownThread != null) {
        ownThread.shutdown();
      }
    }
  }

  @Override
  public String toString() {
    return "QueueConsumer[" + queue.path() + (isRunning() ? ", running]" : ", stopped]");
  }
}
