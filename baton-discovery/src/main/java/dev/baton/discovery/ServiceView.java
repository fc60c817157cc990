package dev.baton.discovery;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * The live instances of one service, kept in this client and current through one persistent
 * recursive watch on {@code <base>/<service>}: reads make no request. Made by {@link
 * ServiceRegistry#watch(String)}, which returns once the first listing is loaded. Thread-safe;
 * share one view per service rather than making many.
 *
 * <pre>{@code
 * ServiceView orders = registry.watch("orders");
 * ServiceInstance target = orders.pick(PickStrategy.ROUND_ROBIN)
 *     .orElseThrow(() -> new IllegalStateException("no live orders instance"));
 * }</pre>
 *
 * <h2>How current it is</h2>
 * An instance that registers is seen after one watch event and one read (about a round trip
 * after the ensemble has the node); one whose node is deleted (closed, or its session ended) is
 * removed on the event itself. Changes arrive in the order the ensemble made them.
 *
 * <h2>Connection loss, session expiry</h2>
 * While the connection is suspended the view keeps its instances, and {@link #isStale()} is
 * true: the instances may have changed since. Once the connection is back (same session or a
 * new one after expiry) the view lists the service again, reads every instance, drops those
 * gone, and tells listeners of the difference only; then it is current again. While the session
 * is lost (or presumed lost, the client being cut off for longer than the session timeout) the
 * view still answers from what it last knew, stale, so that callers cut off from the ensemble
 * (but not from the providers) can go on; check {@link #isStale()} to decide otherwise.
 * Instance nodes whose data is not a service instance (not JSON, a field of the wrong type, no
 * address) are left out and logged with their path.
 */
public interface ServiceView extends AutoCloseable {

  /** The service's name. */
  String service();

  /**
   * The instances now, ordered by id, disabled ones included; empty if the service has none (or
   * no node). No request.
   */
  List<ServiceInstance> instances();

  /** The instance of that id, if live now. No request. */
  Optional<ServiceInstance> instance(String id);

  /**
   * One live, {@linkplain ServiceInstance#isEnabled() enabled} instance, chosen by {@code
   * strategy}; empty if there is none. No request.
   */
  Optional<ServiceInstance> pick(PickStrategy strategy);

  /**
   * One live instance chosen as {@code options} say: weighted, preferring the caller's zone, and
   * with a protection threshold (see {@link PickOptions} for the rules, in order); empty if there
   * is none. No request.
   */
  Optional<ServiceInstance> pickWith(PickOptions options);

  /**
   * Whether the instances may be out of date: the connection is suspended or the session lost,
   * or the view is loading them again after a reconnection.
   */
  boolean isStale();

  /**
   * Calls {@code listener} with the new list of instances (as {@link #instances()}) after each
   * change, on the client's event executor, in the order of the changes.
   */
  void addListener(Consumer<List<ServiceInstance>> listener);

  /**
   * As {@link #addListener(Consumer)}, on {@code executor}: one call at a time and in the order of
   * the changes, even if the executor is a pool (a slow listener delays only its own calls). A
   * direct executor ({@code Runnable::run}) runs the listener on ZooKeeper's event thread, where
   * it must not block nor call the registry's blocking methods (the reply it would wait for
   * could never be delivered).
   */
  void addListener(Consumer<List<ServiceInstance>> listener, Executor executor);

  void removeListener(Consumer<List<ServiceInstance>> listener);

  /**
   * Stops following the service: once the last view of this client on it is closed, its watch
   * is removed from the ensemble. Idempotent. The instances stay as they were last known.
   */
  @Override
  void close();
}
