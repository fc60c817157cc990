package dev.baton.discovery;

import dev.baton.AclProvider;
import dev.baton.Baton;
import dev.baton.ConnectionException;
import dev.baton.NotAuthorizedException;
import dev.baton.RetryPolicy;
import dev.baton.internal.discovery.ZkServiceRegistry;
import dev.baton.internal.session.RecipePaths;
import dev.baton.internal.session.Session;
import dev.baton.internal.session.Sessions;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * Service registration and discovery under one base path, wire-compatible with
 * curator-x-discovery (and so with Spring Cloud Zookeeper's layout): each live instance is an
 * ephemeral node {@code <base>/<service>/<id>} holding the instance as JSON, in the layout of
 * Curator's {@code JsonInstanceSerializer}; {@code <base>} and each {@code <base>/<service>} are
 * container nodes, so the ensemble removes a service whose last instance left (within its
 * container check interval, a minute by default). Thread-safe. Made by {@link
 * #open(Baton, String)}, which sends nothing.
 *
 * <pre>{@code
 * ServiceRegistry registry = ServiceRegistry.open(baton, "/services");
 * Registration me = registry.register(ServiceInstance.builder("orders")
 *     .address("10.0.0.5").port(8080).payload(Map.of("zone", "a")).build());
 *
 * ServiceView orders = registry.watch("orders");           // a local cache, kept current
 * orders.pick(PickStrategy.ROUND_ROBIN).ifPresent(this::call);
 * me.close();                                              // unregistered
 * }</pre>
 *
 * <h2>ACLs</h2>
 * Nodes are created with the client's {@link AclProvider}, asked for each path (the base, the
 * service, the instance). ZooKeeper checks a create and a delete against the parent's ACL, and a
 * data change against the node's own: so whoever may create and delete below a service node is
 * decided by that node's ACL, set by the first client that registers the service. With {@link
 * AclProvider#creatorAllOthersRead()}, every client may discover the service, but only clients
 * of the same identity may register, replace or unregister its instances; others get {@link
 * NotAuthorizedException} naming the path, and nothing changes. Give the providers of one
 * service one identity, and the base a provider's ACL that lets each service's identity create
 * its service node (e.g. {@code CREATE} and {@code READ} for anyone).
 */
public interface ServiceRegistry extends AutoCloseable {

  /**
   * The service registry under {@code basePath} ({@code "/services"}) on the session of {@code
   * baton}: registers instances as ephemeral nodes {@code <basePath>/<service>/<id>} in
   * curator-x-discovery's JSON layout, and keeps local views of the live instances. Cheap: nothing
   * is sent until it is used.
   *
   * @throws IllegalArgumentException naming the argument if the path is invalid or the root
   * @throws dev.baton.ClientClosedException if {@code baton} was closed
   */
  static ServiceRegistry open(Baton baton, String basePath) {
    Session session = Sessions.of(baton);
    return new ZkServiceRegistry(session, RecipePaths.check(session.settings(), basePath, "service registry base path"));
  }

  /** The base path, as given. */
  String basePath();

  /**
   * Registers {@code instance}: creates its ephemeral node (and the base and service nodes, as
   * containers, if missing) and keeps it up across connection loss and session expiry until the
   * registration is closed (see {@link Registration}). Returns once the node exists.
   *
   * <p>Connection loss: waits and retries as the {@link RetryPolicy} allows, then fails with
   * {@link ConnectionException}, leaving nothing registered. A create whose reply was lost is
   * recognised on the retry (the node exists, and its ephemeral owner is this client's session):
   * no second node is made, and none is left behind. Should the retry policy give up after such
   * a create, the node it may have made is looked for and deleted in the background once the
   * same session is back (it goes with the session otherwise); until then, registering the same
   * instance again is refused with {@link IllegalStateException}.
   *
   * @throws IllegalStateException if this client already registered that service and id
   *     through a registration still open (update it instead)
   * @throws IllegalArgumentException if the JSON is over ZooKeeper's limit for a node's data
   * @throws NotAuthorizedException naming the path if an ACL refuses this client's identity
   */
  Registration register(ServiceInstance instance);

  /**
   * Registers {@code instance} as {@link #register(ServiceInstance)} does, written in {@code
   * options}' layout and kept healthy by its health check, if it has one (see {@link
   * RegisterOptions}). With a check, it runs once before the node is created, so an instance that
   * is down from the start is registered down; checks stop when the registration (or the
   * registry) is closed. In the naming layout the node is {@code <base>/<service>/<address>:<port>}
   * and the registration's instance has that id.
   *
   * @throws IllegalArgumentException as for {@link #register(ServiceInstance)}, and if the naming
   *     layout is asked for an instance without a port
   */
  Registration register(ServiceInstance instance, RegisterOptions options);

  /**
   * A local view of {@code service}'s instances, kept current by a watch, returned once loaded
   * (see {@link ServiceView}). The service need not exist yet: the view waits for it without
   * creating anything. While the connection is down, the first load waits as the {@link
   * RetryPolicy} allows (the connection timeout plus the pauses of its retries, counting at most a
   * thousand), then fails with {@link ConnectionException}.
   *
   * @throws IllegalArgumentException naming the argument if {@code service} is not a single node
   *     name
   * @throws NotAuthorizedException naming the path if its ACL does not let this client's identity
   *     read it (nothing is retried behind the caller's back; a later call tries again)
   */
  ServiceView watch(String service);

  /**
   * The instances of {@code service} now, read from the ensemble without a cache: one listing,
   * then one read per instance, pipelined (two round trips). Retried on connection loss as the
   * {@link RetryPolicy} says. For repeated reads use {@link #watch(String)}.
   */
  List<ServiceInstance> instances(String service);

  /**
   * The names of the services under the base, from a local cache kept current by a persistent
   * watch on the base: the first call loads it (one listing; while the connection is down it
   * waits as {@link #watch(String)} does), later calls make no request. A service is listed
   * while its node exists, which is until the ensemble removes its container after its last
   * instance left; check its instances to know whether it has any.
   *
   * @throws NotAuthorizedException naming the base if its ACL does not let this client's identity
   *     read it (the next call tries again)
   */
  Set<String> services();

  /**
   * Calls {@code listener} with the new set of service names after each change, on {@code
   * executor}, one call at a time and in the order of the changes even if the executor is a pool
   * (see {@link ServiceView#addListener(Consumer, Executor)} about a direct one);
   * starts the cache of {@link #services()} if needed, without waiting for it.
   */
  void addServicesListener(Consumer<Set<String>> listener, Executor executor);

  void removeServicesListener(Consumer<Set<String>> listener);

  /**
   * Closes every registration made through this registry (their nodes are deleted, see {@link
   * Registration#close()}) and every view it made, and stops the cache of service names.
   * Idempotent.
   */
  @Override
  void close();
}
