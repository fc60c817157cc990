package dev.baton.internal.redis;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Release notices, on one pub/sub connection: a channel per lock that has waiters in this client,
 * subscribed while it has any. A notice that names a waiter (the plain layout publishes the first
 * in line) wakes that waiter if it is one of ours and nobody else; a notice that names none
 * (Redisson's {@code 0}) wakes this client's first waiter of the lock, so each release costs one
 * attempt per client, not one per waiter; Redisson's {@code 1} (a read-write lock's release) wakes
 * every waiter of this client on the channel, since several readers may come in at once.
 *
 * <p>A semaphore's channel ({@link #joinCounted}) carries the count of permits free, {@code 1}
 * included: it wakes this client's first waiter only, like {@code 0}. That waiter may not be the
 * first in line (the queue in Redis is shared by every client, and this client's own waiters may
 * have reached it in another order): it then passes the wake-up on, to the first in line if that
 * is one of ours ({@link #wakeMember}), or to the next of ours if it needs it no more ({@link
 * #wakeNext}), so that the first in line, on whichever client, is woken by every notice.
 *
 * <p>A direct channel ({@link #joinDirect}, a semaphore's grants) carries notices that each name
 * one waiter and tell it something (the grant a release made to it): only that waiter hears it.
 *
 * <p>A channel stays subscribed for a while after its last waiter left, so that a lock contended
 * again soon costs no new subscription, and its next waiter, listening before its first attempt,
 * needs no second attempt to close the gap between the two.
 */
public final class ReleaseNotices extends RedisPubSubAdapter<String, String> {
  private final StatefulRedisPubSubConnection<String, String> connection;
  private final Map<String, Listeners> channels = new ConcurrentHashMap<>();
  private final ScheduledExecutorService timer;
  private final long lingerMillis;

  ReleaseNotices(StatefulRedisPubSubConnection<String, String> connection, ScheduledExecutorService timer,
      long lingerMillis) {
    this.connection = connection;
    this.timer = timer;
    this.lingerMillis = lingerMillis;
  }

  /**
   * Listens for {@code waiter} if {@code channel} is subscribed already, and says whether it did: a
   * waiter that joins before its first attempt hears every release after it.
   */
  public synchronized boolean joinIfSubscribed(String channel, RedisSession.Waiter waiter) {
    return joinIfSubscribed(channel, waiter, false);
  }

  /** {@link #joinIfSubscribed}, on a channel that carries a count of permits free (a semaphore's). */
  public synchronized boolean joinCountedIfSubscribed(String channel, RedisSession.Waiter waiter) {
    return joinIfSubscribed(channel, waiter, true);
  }

  private boolean joinIfSubscribed(String channel, RedisSession.Waiter waiter, boolean counted) {
    Listeners listeners = channels.get(channel);
    if (listeners == null || !listeners.subscribed.isDone() || listeners.subscribed.isCompletedExceptionally()) {
      return false;
    }
    join(channel, waiter, false, counted);
    return true;
  }

  /** Listens for {@code waiter}; the future completes once the channel is subscribed. */
  public synchronized CompletableFuture<Void> join(String channel, RedisSession.Waiter waiter) {
    return join(channel, waiter, false, false).subscribed;
  }

  /**
   * Listens for {@code waiter} on a channel whose messages are a count of permits free (a
   * semaphore's, Redisson's {@code redisson_sc:}): each wakes this client's first waiter only, {@code
   * 1} too; the future completes once the channel is subscribed.
   */
  public synchronized CompletableFuture<Void> joinCounted(String channel, RedisSession.Waiter waiter) {
    return join(channel, waiter, false, true).subscribed;
  }

  /**
   * Listens for {@code waiter} on a channel whose messages each name one waiter after what they tell
   * it ({@code <what> <member>}, the member being the waiter's JSON): the waiter named, if it is one
   * of ours, hears {@code <what>} ({@link RedisSession.Waiter#notified}), nobody else anything. The
   * future completes once the channel is subscribed.
   */
  public synchronized CompletableFuture<Void> joinDirect(String channel, RedisSession.Waiter waiter) {
    Listeners listeners = join(channel, waiter, false, false);
    listeners.direct = true;
    return listeners.subscribed;
  }

  /** {@link #joinDirect} if {@code channel} is subscribed already; says whether it did. */
  public synchronized boolean joinDirectIfSubscribed(String channel, RedisSession.Waiter waiter) {
    Listeners listeners = channels.get(channel);
    if (listeners == null || !listeners.subscribed.isDone() || listeners.subscribed.isCompletedExceptionally()) {
      return false;
    }
    joinDirect(channel, waiter);
    return true;
  }

  /**
   * Listens for {@code waiter} on a channel where every message wakes every waiter of this client (a
   * countdown latch's: its zero wakes them all); the future completes once the channel is subscribed.
   */
  public synchronized CompletableFuture<Void> joinBroadcast(String channel, RedisSession.Waiter waiter) {
    return join(channel, waiter, true, false).subscribed;
  }

  private Listeners join(String channel, RedisSession.Waiter waiter, boolean broadcast,
      boolean counted) {
    Listeners listeners = channels.computeIfAbsent(channel, c -> new Listeners(
        connection.async().subscribe(c).toCompletableFuture()));
    listeners.broadcast |= broadcast;
    listeners.counted |= counted;
    listeners.bySequence.put(waiter.sequence(), waiter);
    listeners.byMember.put(waiter.member(), waiter);
    listeners.lastUsed = System.nanoTime();
    return listeners;
  }

  public synchronized void leave(String channel, RedisSession.Waiter waiter) {
    Listeners listeners = channels.get(channel);
    if (listeners == null) {
      return;
    }
    listeners.bySequence.remove(waiter.sequence(), waiter);
    listeners.byMember.remove(waiter.member(), waiter);
    listeners.lastUsed = System.nanoTime();
    if (listeners.bySequence.isEmpty() && !listeners.idleCheckPending) {
      // One pending check per channel: a lock taken and released thousands of times a second
      // while subscribed would otherwise queue a timer task per release.
      scheduleIdleCheck(channel, listeners, lingerMillis);
    }
  }

  private void scheduleIdleCheck(String channel, Listeners listeners, long delayMillis) {
    try {
      timer.schedule(() -> unsubscribeIfIdle(channel), delayMillis, TimeUnit.MILLISECONDS);
      listeners.idleCheckPending = true;
    } catch (RejectedExecutionException e) {
      // the client is closing: its connection goes, and the subscription with it
    }
  }

  private synchronized void unsubscribeIfIdle(String channel) {
    Listeners listeners = channels.get(channel);
    if (listeners == null) {
      return;
    }
    listeners.idleCheckPending = false;
    if (!listeners.bySequence.isEmpty()) {
      return; // in use again: its last waiter's leave schedules the next check
    }
    long idleNanos = System.nanoTime() - listeners.lastUsed;
    long lingerNanos = TimeUnit.MILLISECONDS.toNanos(lingerMillis);
    if (idleNanos >= lingerNanos) {
      channels.remove(channel);
      connection.async().unsubscribe(channel);
    } else {
      scheduleIdleCheck(channel, listeners, TimeUnit.NANOSECONDS.toMillis(lingerNanos - idleNanos) + 1);
    }
  }

  /**
   * Wakes this client's waiter {@code member} on {@code channel}, if it has one: a waiter of ours,
   * woken by a notice and refused, learned that {@code member} is first in line.
   */
  public void wakeMember(String channel, String member) {
    Listeners listeners = channels.get(channel);
    RedisSession.Waiter target = listeners == null ? null : listeners.byMember.get(member);
    if (target != null) {
      target.wake();
    }
  }

  /**
   * Wakes this client's next waiter on {@code channel} after {@code passing}, which a notice woke but
   * which needs it no more (granted meanwhile, or gone): the notice was meant for whoever can come
   * in next. Always further in this client's order, so a wake-up passed on never comes back.
   */
  public void wakeNext(String channel, RedisSession.Waiter passing) {
    Listeners listeners = channels.get(channel);
    Map.Entry<Long, RedisSession.Waiter> next =
        listeners == null ? null : listeners.bySequence.higherEntry(passing.sequence());
    if (next != null) {
      next.getValue().wake();
    }
  }

  @Override
  public void message(String channel, String message) {
    Listeners listeners = channels.get(channel);
    if (listeners == null) {
      return;
    }
    if (listeners.direct) {
      int named = message.indexOf(" {");
      RedisSession.Waiter target = named < 0 ? null : listeners.byMember.get(message.substring(named + 1));
      if (target != null) {
        target.notified(message.substring(0, named));
      }
      return;
    }
    if (listeners.broadcast || (message.equals("1") && !listeners.counted)) {
      // Redisson's READ_UNLOCK_MESSAGE, which a read-write lock's release sends: the lock may now
      // take several readers at once, so every waiter of this client tries (Redisson wakes all of its own too).
      listeners.bySequence.values().forEach(RedisSession.Waiter::wake);
      return;
    }
    RedisSession.Waiter target;
    if (message.startsWith("{")) {
      target = listeners.byMember.get(message); // another client's waiter is first: not ours to wake
    } else {
      Map.Entry<Long, RedisSession.Waiter> first = listeners.bySequence.firstEntry();
      target = first == null ? null : first.getValue();
    }
    if (target != null) {
      target.wake();
    }
  }

  private static final class Listeners {
    final CompletableFuture<Void> subscribed;
    final ConcurrentSkipListMap<Long, RedisSession.Waiter> bySequence = new ConcurrentSkipListMap<>();
    final Map<String, RedisSession.Waiter> byMember = new ConcurrentHashMap<>();
    volatile long lastUsed;
    volatile boolean broadcast; // every message wakes every waiter (a latch's channel)
    volatile boolean counted; // messages are a count of permits free, 1 included (a semaphore's channel)
    volatile boolean direct; // each message names the one waiter it is for (a semaphore's grants)
    boolean idleCheckPending; // guarded by the ReleaseNotices

    Listeners(CompletableFuture<Void> subscribed) {
      this.subscribed = subscribed;
    }
  }
}
