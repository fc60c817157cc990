package dev.baton.spring.boot;

import dev.baton.BatonObserver;
import dev.baton.ConnectionState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells several observers (metrics and tracing) what a client does: a builder takes one. Each is
 * told even when another throws, since a broken metrics binding must not cost the traces.
 */
final class CompositeObserver implements BatonObserver {
  private static final Logger log = LoggerFactory.getLogger(CompositeObserver.class);
  private final List<BatonObserver> observers;

  private CompositeObserver(List<BatonObserver> observers) {
    this.observers = List.copyOf(observers);
  }

  /** The one observer itself, or a composite of several. */
  static BatonObserver of(List<BatonObserver> observers) {
    return observers.size() == 1 ? observers.get(0) : new CompositeObserver(observers);
  }

  private void each(Consumer<BatonObserver> call) {
    for (BatonObserver observer : observers) {
      try {
        call.accept(observer);
      } catch (RuntimeException e) {
        log.warn("The Baton observer {} failed; the lock is not affected", observer, e);
      }
    }
  }

  @Override
  public Acquisition acquisitionStarted(String backend, String recipe, String path) {
    List<Acquisition> started = new ArrayList<>(observers.size());
    each(o -> {
      Acquisition acquisition = o.acquisitionStarted(backend, recipe, path);
      if (acquisition != null && acquisition != Acquisition.NONE) {
        started.add(acquisition);
      }
    });
    return started.isEmpty() ? Acquisition.NONE : started.size() == 1 ? started.get(0) : new Acquisitions(started);
  }

  @Override
  public void acquired(String recipe, String path, Duration waited, Grant grant) {
    each(o -> o.acquired(recipe, path, waited, grant));
  }

  @Override
  public void acquireFailed(String recipe, String path, Duration waited, Throwable cause) {
    each(o -> o.acquireFailed(recipe, path, waited, cause));
  }

  @Override
  public void released(String recipe, String path, Duration held) {
    each(o -> o.released(recipe, path, held));
  }

  @Override
  public void leaseLost(String recipe, String path, Loss cause) {
    each(o -> o.leaseLost(recipe, path, cause));
  }

  @Override
  public void leadershipGained(String recipe, String path) {
    each(o -> o.leadershipGained(recipe, path));
  }

  @Override
  public void leadershipLost(String recipe, String path) {
    each(o -> o.leadershipLost(recipe, path));
  }

  @Override
  public void queueItem(String path, QueueEvent event) {
    each(o -> o.queueItem(path, event));
  }

  @Override
  public void connectionStateChanged(ConnectionState state) {
    each(o -> o.connectionStateChanged(state));
  }

  @Override
  public String toString() {
    return "CompositeObserver" + observers;
  }

  /** One acquisition followed by several observers. */
  private record Acquisitions(List<Acquisition> all) implements Acquisition {
    private void each(Consumer<Acquisition> call) {
      for (Acquisition acquisition : all) {
        try {
          call.accept(acquisition);
        } catch (RuntimeException e) {
          log.warn("The Baton observer's acquisition {} failed; the lock is not affected", acquisition, e);
        }
      }
    }

    @Override
    public void granted(Grant grant, long fencingToken) {
      each(a -> a.granted(grant, fencingToken));
    }

    @Override
    public void failed(Throwable cause) {
      each(a -> a.failed(cause));
    }

    @Override
    public void leaseLost(Loss cause) {
      each(a -> a.leaseLost(cause));
    }

    @Override
    public void leaseRestored() {
      each(Acquisition::leaseRestored);
    }

    @Override
    public void released() {
      each(Acquisition::released);
    }
  }
}
