package dev.baton.testkit.contract;

import dev.baton.Coordinator;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the conformance suite ({@code *Contract}) needs from a backend: a running server, clients
 * whose link to it can be cut, and the backend's declarations. Each backend module implements it
 * once (usually by extending {@link ContractBackendExtension}) and runs every contract class over
 * it with a concrete {@code *ContractTest}.
 */
public interface ContractBackend {

  /** The backend's name as {@link Coordinator#backend()} gives it: {@code zookeeper}, {@code redis}. */
  String name();

  /**
   * The recipes this backend offers. Every other {@link Feature} is declared unsupported: the
   * suite expects asking for it to throw {@link UnsupportedOperationException} naming the backend
   * and the feature. Adding a feature here makes its contract run in full.
   */
  Set<Feature> features();

  /**
   * The cases of the contract this backend does not promise; the suite expects each one's declared
   * outcome (see {@link Promise}). Empty for a backend that promises everything.
   */
  Set<Promise> notPromised();

  /**
   * A new client of the server, connected through a link of its own that {@link #cutLink} can
   * cut, with a lease timeout of {@link #leaseTimeout()}. Closed by the fixture after the test.
   */
  default Coordinator newClient() {
    return newClient(leaseTimeout());
  }

  /**
   * As {@link #newClient()}, with a lease timeout of {@code leaseTimeout}: the cases that need a
   * link to come back "in time" use a long one, since how much of the timeout a backend dares to
   * vouch for once it hears nothing is its own (ZooKeeper's client: about a quarter of the session
   * timeout after the last contact it can prove).
   */
  Coordinator newClient(Duration leaseTimeout);

  /**
   * How long a client whose link is cut keeps its leases on the server: the session timeout on
   * ZooKeeper, the lease TTL on Redis. Short, so that expiry happens in test time.
   */
  Duration leaseTimeout();

  /** Cuts {@code client}'s link to the server: open connections are closed, new ones refused. */
  void cutLink(Coordinator client);

  /**
   * Makes every byte between {@code client} and the server wait {@code latency}, each way, until
   * {@link #restoreLink}: a slow link, on which a reply can be lost after the server applied the
   * request.
   */
  void delayLink(Coordinator client, Duration latency);

  /** Lets {@code client} reach the server again (no cut, no delay). */
  void restoreLink(Coordinator client);

  /**
   * Stops the server and starts it again on the same port, keeping what the backend's server keeps
   * across a restart (as it is configured for the suite). Returns when the server serves again.
   */
  void restartServer();

  /**
   * Whether {@link #cutLink}, {@link #delayLink} and {@link #restoreLink} work here: a chaos run
   * draws the faults that need them (link cuts, lost replies, paused holders) only where they do.
   * True for a fixture whose clients each talk through a proxy of their own.
   */
  default boolean canCutLinks() {
    return true;
  }

  /**
   * Whether {@link #restartServer()} works here: a chaos run draws server restarts only where it
   * does.
   */
  default boolean canRestartServer() {
    return true;
  }

  /**
   * Whether {@link #killConnections} can strike this backend: a chaos run draws that fault only
   * where it can.
   */
  default boolean canKillConnections() {
    return false;
  }

  /**
   * Has the server end every connection {@code client} has open to it, as an operator or a
   * server-side timeout does (on PostgreSQL: {@code pg_terminate_backend} of the client's
   * backends; on Redis: {@code CLIENT KILL ID} of each connection the client named), without touching the client's link: the client must notice on its next use and
   * reconnect.
   *
   * @return how many connections the server ended
   * @throws UnsupportedOperationException where {@link #canKillConnections()} is false
   */
  default int killConnections(Coordinator client) {
    throw new UnsupportedOperationException("the " + name() + " fixture cannot have the server kill a client's connections");
  }

  /**
   * Whether {@link #failOver()} promotes a replica (rather than restarting the one server) and can
   * be called again and again, each time with a new replica ready behind the new primary: a chaos
   * run draws failovers only where it can.
   */
  default boolean canFailOver() {
    return false;
  }

  /**
   * Whether {@link #deleteRecord} can strike the record of {@code feature} (a {@link
   * Feature#MUTEX}, {@link Feature#READ_WRITE_LOCK} or {@link Feature#SEMAPHORE}) here: a chaos run
   * draws record deletions only where it can, and deletes the records of those recipes it can.
   */
  default boolean canDeleteRecord(Feature feature) {
    return false;
  }

  /**
   * Deletes the server's record of one holder of the lock {@code name}, a {@code feature}, behind
   * its back, as an operator, an eviction or a careless neighbour would, without going through any
   * client's link: for a mutex, the holder's lock node on ZooKeeper, {@code DEL} of the lock key on
   * Redis, the holder's claim on the lock's row in SQL; for a read-write lock or a semaphore, the
   * first holder's node on ZooKeeper, the lock's hash or one permit's entry (the permit given back to
   * the count, as a sweep of an expired one does) on Redis, a holder's row in SQL. The holder must
   * be told its lease is lost before anyone else is granted what it held, or the chaos run counts a
   * loss told late or never (see {@link Promise#LOSS_TOLD_BEFORE_REGRANT_WHEN_KEY_DELETED}).
   *
   * @return whether there was a record to delete (no holder: nothing to delete)
   * @throws UnsupportedOperationException where {@link #canDeleteRecord} is false for {@code feature}
   */
  default boolean deleteRecord(Feature feature, String name) {
    throw new UnsupportedOperationException("the " + name() + " fixture cannot delete a " + feature.words() + "'s record");
  }

  /** Whether {@link #leftovers} can look into the store here. */
  default boolean canCountLeftovers() {
    return false;
  }

  /**
   * What the recipes named in {@code recipes} (each lock or latch by the feature it is) still hold
   * in the store, read straight from the server: one line for each node, key, hash field, permit
   * entry or row that still holds or waits for a grant (on ZooKeeper every node under the recipe's
   * path but the containers; elsewhere the records that have not expired). What a recipe keeps for
   * good by design is not listed: fencing counters, the header row of a name, a semaphore's count of
   * free permits. Once every client has closed, the list must become empty: a closing client
   * releases what it holds, and what it could not reach expires.
   *
   * @throws UnsupportedOperationException where {@link #canCountLeftovers()} is false
   */
  default List<String> leftovers(Map<Feature, String> recipes) {
    throw new UnsupportedOperationException("the " + name() + " fixture cannot look for leftovers");
  }

  /**
   * From now until {@link #failOver()}, writes reach the server clients talk to and nothing else,
   * as an asynchronous replica may lag behind its primary (on Redis: the replica's link to the
   * primary is cut). Returns once every earlier write has reached the replicas. A store with no
   * replica, or whose replicas confirm each write before it is acknowledged, has nothing to hold
   * back: the default does nothing.
   */
  default void holdBackReplication() {}

  /**
   * Makes the store fail over: the server clients talk to is lost, and what takes its place serves
   * them from then on (on Redis: the primary killed, its replica promoted, clients led to it by
   * Sentinel). Returns when the store serves again. The default, for a store of one server that
   * keeps what it wrote: {@link #restartServer()}.
   */
  default void failOver() {
    restartServer();
  }
}
