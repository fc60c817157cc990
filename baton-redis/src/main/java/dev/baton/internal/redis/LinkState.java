package dev.baton.internal.redis;

import dev.baton.ConnectionState;
import dev.baton.ConnectionStateListener;
import io.lettuce.core.RedisChannelHandler;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Redis client's {@link ConnectionState}, from Lettuce's connection events, in the words the
 * ZooKeeper client uses so that listeners, health checks and metrics serve both backends:
 * {@code SUSPENDED} as soon as a connection that carries lock commands drops (in a cluster, any
 * master's), {@code LOST} once it has stayed down for the lease TTL (no lease of this client can
 * have been renewed in time, so every lock it held must be presumed gone), {@code RECONNECTED}
 * when every such connection is up again.
 *
 * <p>State is guarded by {@code this}; listeners are handed their calls under the monitor, so a
 * single-threaded executor hears the changes in order.
 */
final class LinkState {
  private static final Logger log = LoggerFactory.getLogger(LinkState.class);

  private final String address;
  private final Duration lostAfter;
  private final ScheduledExecutorService timer;
  private final Map<ConnectionStateListener, Executor> listeners = new ConcurrentHashMap<>();
  private final Set<RedisChannelHandler<?, ?>> down = new HashSet<>();
  private ConnectionState state = ConnectionState.CONNECTED;
  private Instant since = Instant.now();
  private ScheduledFuture<?> presumedLoss;

  LinkState(String address, Duration lostAfter, ScheduledExecutorService timer) {
    this.address = address;
    this.lostAfter = lostAfter;
    this.timer = timer;
  }

  synchronized ConnectionState state() {
    return state;
  }

  /** Since when the connection has been down, while it is. */
  synchronized Optional<Instant> downSince() {
    return state.isConnected() ? Optional.empty() : Optional.of(since);
  }

  void addListener(ConnectionStateListener listener, Executor executor) {
    listeners.put(listener, executor);
  }

  void removeListener(ConnectionStateListener listener) {
    listeners.remove(listener);
  }

  synchronized void disconnected(RedisChannelHandler<?, ?> channel) {
    // A connection closed on purpose (a node that left the cluster, the client closing) never comes back.
    down.removeIf(RedisChannelHandler::isClosed);
    if (channel.isClosed()) {
      return;
    }
    down.add(channel);
    if (state.isConnected()) {
      since = Instant.now();
      moveTo(ConnectionState.SUSPENDED);
      try {
        presumedLoss = timer.schedule(this::presumeLost, lostAfter.toNanos(), TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException e) {
        // the client is closing: nothing is left to lose
      }
    }
  }

  synchronized void connected(RedisChannelHandler<?, ?> channel) {
    down.remove(channel);
    down.removeIf(RedisChannelHandler::isClosed);
    if (down.isEmpty() && !state.isConnected()) {
      if (presumedLoss != null) {
        presumedLoss.cancel(false);
        presumedLoss = null;
      }
      moveTo(ConnectionState.RECONNECTED);
    }
  }

  private synchronized void presumeLost() {
    if (state == ConnectionState.SUSPENDED) {
      log.warn("No connection to {} for {} ms, the lease TTL: every lock of this client is presumed lost",
          address, lostAfter.toMillis());
      moveTo(ConnectionState.LOST);
    }
  }

  private void moveTo(ConnectionState next) {
    state = next;
    listeners.forEach((listener, executor) -> {
      try {
        executor.execute(() -> listener.stateChanged(next));
      } catch (RuntimeException e) {
        log.warn("A connection-state listener of the Redis client for {} failed on {}", address, next, e);
      }
    });
  }
}
