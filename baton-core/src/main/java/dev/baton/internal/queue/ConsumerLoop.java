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
  private final Object lock = new Object();
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
    CompletableFuture<QueueItem<T>> taking;
    try {
      synchronized (lock) {
        if (stopped) {
          return;
        }
        taking = queue.takeAsync();
        pending = taking;
      }
    } catch (RuntimeException e) {
      stop(e);
      return;
    }
    taking.whenComplete((item, error) -> {
      if (error != null) {
        stop(error);
        return;
      }
      synchronized (lock) {
        pending = null;
        if (stopped) {
          item.close();
          return;
        }
        busy = true;
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
    synchronized (lock) {
      handling = Thread.currentThread();
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
    synchronized (lock) {
      busy = false;
      handling = null;
      lock.notifyAll();
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
    synchronized (lock) {
      reported = !stopped && !closing;
      stopped = true;
      pending = null;
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
    synchronized (lock) {
      return !stopped;
    }
  }

  @Override
  public void close() {
    CompletableFuture<QueueItem<T>> taking;
    synchronized (lock) {
      stopped = true;
      taking = pending;
      pending = null;
    }
    if (taking != null) {
      taking.cancel(false);
    }
    try {
      synchronized (lock) {
        while (busy && handling != Thread.currentThread()) {
          lock.wait();
        }
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
