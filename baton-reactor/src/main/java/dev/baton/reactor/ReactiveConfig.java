package dev.baton.reactor;

import dev.baton.config.ConfigCenter;
import dev.baton.config.ConfigListener;
import java.util.Objects;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.core.scheduler.Schedulers;

/**
 * A config center's changes as a {@code Flux}.
 *
 * <pre>{@code
 * ReactiveConfig.changes(config, "db")
 *     .subscribe(change -> pool.resize(change.key(), change.newValue()));
 * }</pre>
 */
public final class ReactiveConfig {
  private ReactiveConfig() {}

  /**
   * Every later change of the config center's local copy, in order, as its listeners hear them:
   * while the connection is down nothing changes; the changes made meanwhile arrive once each
   * when the copy loads again. Never completes on its own; cancelling removes the listener.
   * Delivered on Reactor's bounded-elastic scheduler, never on the client's threads.
   */
  public static Flux<ConfigChange> changes(ConfigCenter config) {
    Objects.requireNonNull(config, "config");
    return Flux.<ConfigChange>create(sink -> {
      ConfigListener listener = forward(sink);
      // Only enqueues: the subscriber's work runs after publishOn, off the client's threads.
      config.addListener(listener, Runnable::run);
      sink.onDispose(() -> config.removeListener(listener));
    }, FluxSink.OverflowStrategy.BUFFER).publishOn(Schedulers.boundedElastic());
  }

  /**
   * As {@link #changes(ConfigCenter)}, for the keys at and below {@code keyPrefix} ({@code "db"}:
   * {@code db}, {@code db/url}, not {@code db2}).
   *
   * @throws IllegalArgumentException naming the key prefix if it is not a valid key (when subscribed)
   */
  public static Flux<ConfigChange> changes(ConfigCenter config, String keyPrefix) {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(keyPrefix, "keyPrefix");
    return Flux.<ConfigChange>create(sink -> {
      ConfigListener listener = forward(sink);
      config.addPrefixListener(keyPrefix, listener, Runnable::run);
      sink.onDispose(() -> config.removeListener(listener));
    }, FluxSink.OverflowStrategy.BUFFER).publishOn(Schedulers.boundedElastic());
  }

  private static ConfigListener forward(FluxSink<ConfigChange> sink) {
    return (key, oldValue, newValue) -> sink.next(new ConfigChange(key, oldValue, newValue));
  }
}
