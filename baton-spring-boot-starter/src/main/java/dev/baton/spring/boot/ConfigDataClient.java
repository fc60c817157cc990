package dev.baton.spring.boot;

import dev.baton.Baton;
import dev.baton.BatonObserver;
import dev.baton.ConnectionState;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.springframework.beans.factory.DisposableBean;

/**
 * The ZooKeeper client that {@code spring.config.import=baton:...} opened before the application
 * context existed. It is registered in the bootstrap context and then promoted to the application
 * context (as Spring Cloud Zookeeper does with its Curator client), where {@link
 * BatonAutoConfiguration} takes it as the {@code Baton} bean: one session per application, not one
 * for the import and one for the bean. If the client is not taken (the application defines its own
 * {@code Baton}, or customizes the builder in ways a built client cannot follow), it is closed with
 * the context.
 */
final class ConfigDataClient implements DisposableBean {
  /** The name the client is promoted under in the application context. */
  static final String BEAN_NAME = "batonConfigDataClient";

  private final Baton baton;
  private final ForwardingObserver observer;
  private final List<AutoCloseable> configs = new CopyOnWriteArrayList<>();
  private final AtomicBoolean handedOver = new AtomicBoolean();
  private final AtomicBoolean configsClosed = new AtomicBoolean();

  /** {@code observer} is what the client was built with, to be pointed at metrics later; may be null. */
  ConfigDataClient(Baton baton, ForwardingObserver observer) {
    this.baton = baton;
    this.observer = observer;
  }

  Baton baton() {
    return baton;
  }

  /** A config center opened on this client for an import, closed with the context. */
  void track(AutoCloseable config) {
    configs.add(config);
  }

  /** Gives the client to the application's {@code Baton} bean, which closes it from then on. */
  Baton handOver() {
    handedOver.set(true);
    return baton;
  }

  /**
   * Lets {@code target} see what the client does from now on (the observer a {@code
   * BatonBuilderCustomizer} would have given the builder); false if the client was built without
   * the forwarding observer (metrics were off or absent at import).
   */
  boolean observe(BatonObserver target) {
    if (observer == null) {
      return false;
    }
    observer.target = target;
    return true;
  }

  /** Closes the imports' config centers, first of all when the context closes. */
  void closeConfigs() {
    if (configsClosed.compareAndSet(false, true)) {
      for (AutoCloseable config : configs) {
        try {
          config.close();
        } catch (Exception e) {
          // Closing is best effort: the context is going away and the client closes next.
        }
      }
    }
  }

  /** Closes the config centers, and the client unless the {@code Baton} bean took it. */
  @Override
  public void destroy() {
    closeConfigs();
    if (!handedOver.get()) {
      baton.close();
    }
  }

  /**
   * An observer set on the builder at import time, when no meter registry or OpenTelemetry exists yet, that passes
   * every call to the observer set later.
   */
  static final class ForwardingObserver implements BatonObserver {
    private static final BatonObserver NONE = new BatonObserver() { };
    volatile BatonObserver target = NONE;

    @Override
    public Acquisition acquisitionStarted(String backend, String recipe, String path) {
      return target.acquisitionStarted(backend, recipe, path);
    }

    @Override
    public void acquired(String recipe, String path, Duration waited, Grant grant) {
      target.acquired(recipe, path, waited, grant);
    }

    @Override
    public void acquireFailed(String recipe, String path, Duration waited, Throwable cause) {
      target.acquireFailed(recipe, path, waited, cause);
    }

    @Override
    public void released(String recipe, String path, Duration held) {
      target.released(recipe, path, held);
    }

    @Override
    public void leaseLost(String recipe, String path, Loss cause) {
      target.leaseLost(recipe, path, cause);
    }

    @Override
    public void leadershipGained(String recipe, String path) {
      target.leadershipGained(recipe, path);
    }

    @Override
    public void leadershipLost(String recipe, String path) {
      target.leadershipLost(recipe, path);
    }

    @Override
    public void queueItem(String path, QueueEvent event) {
      target.queueItem(path, event);
    }

    @Override
    public void connectionStateChanged(ConnectionState state) {
      target.connectionStateChanged(state);
    }
  }
}
