package dev.baton;

import dev.baton.ConnectStrings;
import dev.baton.atomic.Counter;
import dev.baton.barrier.Barrier;
import dev.baton.barrier.DoubleBarrier;
import dev.baton.cache.NodeCache;
import dev.baton.cache.TreeCache;
import dev.baton.internal.atomic.ZkCounter;
import dev.baton.internal.cache.ZkCache;
import dev.baton.internal.barrier.ZkBarrier;
import dev.baton.internal.barrier.ZkDoubleBarrier;
import dev.baton.internal.leader.ZkElectionQueue;
import dev.baton.internal.leadership.MutexLeaderLatch;
import dev.baton.internal.leadership.MutexLeaderSelector;
import dev.baton.internal.lock.Revocation;
import dev.baton.internal.multilock.MutexMultiLock;
import dev.baton.internal.lock.ZkMutex;
import dev.baton.internal.lock.ZkReadWriteLock;
import dev.baton.internal.observe.Observation;
import dev.baton.internal.queue.ZkQueue;
import dev.baton.internal.semaphore.ZkSemaphore;
import dev.baton.internal.session.ClientSettings;
import dev.baton.internal.session.GuardedLease;
import dev.baton.internal.session.NodeSizes;
import dev.baton.internal.session.RecipePaths;
import dev.baton.internal.session.Session;
import dev.baton.internal.session.Sessions;
import dev.baton.internal.session.Transactions;
import dev.baton.internal.session.ZkClientOptions;
import dev.baton.leader.LeaderLatch;
import dev.baton.leader.LeaderSelector;
import dev.baton.leader.LeaderTask;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseLostException;
import dev.baton.lock.LeaseState;
import dev.baton.lock.MultiLock;
import dev.baton.lock.Mutex;
import dev.baton.lock.MutexOptions;
import dev.baton.lock.ReadWriteLock;
import dev.baton.lock.RevocationListener;
import dev.baton.lock.Semaphore;
import dev.baton.queue.DistributedQueue;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * A client of a ZooKeeper ensemble: one ZooKeeper session, and the recipes that stand on it.
 * Thread-safe; meant to live as long as the process and be shared by all its threads.
 *
 * <pre>{@code
 * try (Baton baton = Baton.connect("zk1:2181,zk2:2181,zk3:2181")) {
 *   Mutex mutex = baton.mutex("/locks/sku-42");
 *   try (Lease lease = mutex.acquire(Duration.ofSeconds(5))) {
 *     stock.decrement(lease.fencingToken());
 *   }
 * }
 * }</pre>
 *
 * <p>Connection loss: operations that are safe to repeat are retried by the {@link RetryPolicy}
 * once the connection is back. Session expiry: the client opens a new session by itself and tells
 * {@link ConnectionStateListener}s {@link ConnectionState#LOST}, then {@link
 * ConnectionState#RECONNECTED}; leases of the old session are {@link LeaseState#LOST}.
 */
public final class Baton implements Coordinator {

  /** {@code zookeeper}. */
  @Override
  public String backend() {
    return "zookeeper";
  }

  static {
    // Recipes in modules of their own (the config center, the registry) stand on this client's
    // session; this is how they reach it without a public accessor on the client.
    Sessions.grantAccess(baton -> baton.session);
  }

  private final Session session;
  private final Observation observation; // null without an observer: nothing is wrapped

  private Baton(Session session, Observation observation) {
    this.session = session;
    this.observation = observation;
    if (observation != null) {
      addConnectionStateListener(observation::connectionStateChanged, Runnable::run);
    }
  }

  /**
   * Connects with default settings and waits for the session.
   *
   * @param connectString {@code host:port[,host:port...]}
   * @throws ConnectionException if no server answers within the connection timeout (15 s)
   */
  public static Baton connect(String connectString) {
    return builder().connectString(connectString).build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A reentrant mutex on {@code path}. Cheap: nothing is sent until it is used. */
  @Override
  public Mutex mutex(String path) {
    session.checkOpen();
    return observed("mutex", new ZkMutex(session, RecipePaths.check(session.settings(), path, "mutex path")));
  }

  /**
   * A reentrant mutex on {@code path} that hands the lock between this client's threads, or
   * keeps it cached, as {@code options} say. Clients using other options (or Curator) on the same
   * path are served correctly; see {@link MutexOptions} for the order this trades.
   */
  @Override
  public Mutex mutex(String path, MutexOptions options) {
    session.checkOpen();
    Objects.requireNonNull(options, "options must not be null");
    return observed("mutex", new ZkMutex(session, RecipePaths.check(session.settings(), path, "mutex path"), options));
  }

  /**
   * Several mutexes taken as one, all or nothing, in a global order so that multi-locks over
   * overlapping sets cannot deadlock. The mutexes may come from different clients.
   *
   * @throws IllegalArgumentException if no lock is given or one path appears twice
   */
  @Override
  public MultiLock multiLock(Mutex... locks) {
    session.checkOpen();
    Objects.requireNonNull(locks, "locks");
    return new MutexMultiLock(java.util.Arrays.asList(locks));
  }

  /**
   * Asks the current holder of {@code mutex} to release it (cooperative revocation, compatible with
   * Curator's {@code Revoker}): its {@link RevocationListener} is called if it made its lease
   * revocable; otherwise nothing happens. The request replaces the owner description in the lock
   * node's data. Retried on connection loss as the retry policy says.
   *
   * @return whether there was a holder to ask
   * @throws UnsupportedOperationException for a {@link #semaphoreMutex(String) semaphore mutex}
   */
  public boolean requestRevocation(Mutex mutex) {
    session.checkOpen();
    Objects.requireNonNull(mutex, "mutex");
    return Revocation.request(session, Observation.unwrap(mutex));
  }

  /**
   * A read-write lock on {@code path}, wire-compatible with Curator's
   * {@code InterProcessReadWriteLock}: many readers or one writer, reentrant, with write-to-read
   * downgrade. Cheap: nothing is sent until it is used. See {@link ReadWriteLock}.
   */
  @Override
  public ReadWriteLock readWriteLock(String path) {
    session.checkOpen();
    ReadWriteLock lock = new ZkReadWriteLock(session, RecipePaths.check(session.settings(), path, "read-write lock path"));
    return observation == null ? lock : observation.readWriteLock(lock);
  }

  /**
   * A distributed {@code long} at {@code path}, kept as text in one persistent node; a missing
   * node counts as 0 and is created by the first update (see {@link Counter}). Cheap: nothing is
   * sent until it is used.
   */
  @Override
  public Counter counter(String path) {
    session.checkOpen();
    return new ZkCounter(session, RecipePaths.check(session.settings(), path, "counter path"));
  }

  /**
   * A ZooKeeper {@code check} that the node {@code lease} stands on still exists, to run first in
   * one {@link #transaction} with the writes the lease protects: the ensemble then applies them
   * only while no one else can hold the lock, or fails the whole transaction with {@link
   * LeaseLostException}. This closes the gap {@link Lease#isValid()} leaves open (the lease can be
   * lost between the check and the write), for data kept in ZooKeeper:
   * <pre>{@code
   * baton.transaction(Baton.guard(lease), Op.setData("/orders/42", data, -1));
   * }</pre>
   * The operation names the node by its client path (without the namespace), as every path of
   * Baton's API; {@link #transaction} adds the namespace. Sent to ZooKeeper through another
   * handle, it needs the namespace added by hand. Makes no request; the same object every time.
   * It lives here, not on {@link Lease}, because only a ZooKeeper lease has a node to check.
   *
   * <p>With local hand-over or caching ({@link dev.baton.lock.MutexOptions}) the node outlives
   * its holder: the next holder of this client stands on it. So {@link #transaction} also
   * refuses, before sending anything, a guard whose lease is no longer HELD or SUSPECT (released,
   * or lost), and a released lease's node is handed on only once the replies of the guarded
   * transactions it had in flight are in; if one's outcome is unknown (connection lost, caller
   * interrupted) the node is given up instead of handed on. A guard sent through another handle
   * gets the ensemble's check only, which such a released holder passes.
   *
   * @throws IllegalStateException if the lease was closed
   * @throws UnsupportedOperationException if the lease stands on several nodes (a semaphore lease
   *     of several permits, a multi-lock lease of several locks): use {@link #guards(Lease)}
   * @throws IllegalArgumentException if the lease is not one of Baton's ZooKeeper recipes (a
   *     Redis lease, say)
   */
  public static org.apache.zookeeper.Op guard(Lease lease) {
    if (lease instanceof MultiLock.MultiLease && !(lease instanceof GuardedLease)) {
      java.util.List<org.apache.zookeeper.Op> all = guards(lease);
      if (all.size() > 1) {
        throw new UnsupportedOperationException("The lease on " + lease.path() + " stands on " + all.size()
            + " nodes, and one check cannot cover them all: use guards()");
      }
      return all.get(0);
    }
    return GuardedLease.of(lease).guard();
  }

  /**
   * One {@code check} per node {@code lease} stands on, to put before the writes of one {@link
   * #transaction}: the ensemble applies them only while every node exists, or fails the whole
   * transaction with {@link LeaseLostException} naming the first node found gone. A mutex or
   * read-write lease stands on one node (this is {@code List.of(Baton.guard(lease))}), a semaphore lease
   * on one node per permit, a multi-lock lease on one node per lock:
   * <pre>{@code
   * List<Op> ops = new ArrayList<>(Baton.guards(lease));
   * ops.add(Op.setData("/orders/42", data, -1));
   * baton.transaction(ops.toArray(Op[]::new));
   * }</pre>
   * The parts of a multi-lock may belong to different clients; their checks still hold on any
   * session, provided the transaction runs on a client with the same namespace. Paths and requests
   * as for {@link #guard(Lease)}.
   *
   * @throws IllegalStateException if the lease was closed
   * @throws IllegalArgumentException if the lease, or a part of it, is not one of Baton's
   *     ZooKeeper recipes
   */
  public static java.util.List<org.apache.zookeeper.Op> guards(Lease lease) {
    if (lease instanceof MultiLock.MultiLease multi && !(lease instanceof GuardedLease)) {
      // The backend-neutral multi-lock's lease: its parts are this client's (or another Baton's) leases.
      if (multi.state() == dev.baton.lock.LeaseState.RELEASED) {
        throw new IllegalStateException("The lease on " + lease.path() + " is released; a guard of it would"
            + " fail every transaction");
      }
      return multi.parts().stream().flatMap(part -> guards(part).stream()).toList();
    }
    return GuardedLease.of(lease).guards();
  }

  /**
   * Runs {@code ops} as one ZooKeeper transaction ({@code multi}) on this client's session: all
   * are applied, or none. Paths are client paths, as everywhere in Baton: the namespace is added
   * to each operation, and removed from the paths of created nodes in the results. Put a {@link
   * #guard(Lease)} first to write only while the lease's node exists.
   *
   * <p>While the connection is down it waits, as the {@link RetryPolicy} allows, before sending
   * (then {@link ConnectionException}: nothing was sent); it has no timeout of its own. Once sent
   * it is not retried: a transaction whose reply is lost may have been applied, so connection
   * loss (or session expiry) fails with {@link OutcomeUnknownException}. One whose writes carry
   * versions, or that a guard protects, fails harmlessly if run again after it was applied.
   *
   * @return ZooKeeper's result of each operation, in order
   * @throws LeaseLostException if a guard's lease node is gone, or its lease is no longer HELD
   *     or SUSPECT (nothing applied; in the second case nothing sent)
   * @throws TransactionFailedException naming the first failed operation and ZooKeeper's reason
   *     (a version conflict, a missing or existing node); nothing applied
   * @throws IllegalArgumentException if an operation is null, a read, or has an invalid path
   */
  public java.util.List<org.apache.zookeeper.OpResult> transaction(org.apache.zookeeper.Op... ops) {
    session.checkOpen();
    Objects.requireNonNull(ops, "ops");
    return Transactions.run(session, java.util.Arrays.asList(ops));
  }

  /**
   * A counting semaphore of {@code permits} on {@code path}, sharing its nodes with Curator's
   * {@code InterProcessSemaphoreV2}. Cheap: nothing is sent until it is used.
   *
   * @throws IllegalArgumentException naming the argument if the path is invalid or {@code
   *     permits} is below 1
   */
  @Override
  public Semaphore semaphore(String path, int permits) {
    session.checkOpen();
    Semaphore semaphore = new ZkSemaphore(session, RecipePaths.check(session.settings(), path, "semaphore path"), permits);
    return observation == null ? semaphore : observation.semaphore(semaphore);
  }

  /**
   * A non-reentrant mutex on {@code path}: a semaphore of one permit, as Curator's {@code
   * InterProcessSemaphoreMutex}. Its leases are bound to no thread; a thread that holds it and
   * asks again waits like anyone else.
   */
  public Mutex semaphoreMutex(String path) {
    session.checkOpen();
    return observed("semaphore-mutex", ZkSemaphore.mutex(session, RecipePaths.check(session.settings(), path, "semaphore mutex path")));
  }

  /**
   * A barrier on {@code path}: up while its node exists, wire-compatible with Curator's {@code
   * DistributedBarrier}; see {@link Barrier}. Cheap: nothing is sent until it is used.
   *
   * @throws IllegalArgumentException naming the argument if the path is invalid
   */
  public Barrier barrier(String path) {
    session.checkOpen();
    return new ZkBarrier(session, RecipePaths.check(session.settings(), path, "barrier path"));
  }

  /**
   * One member of the double barrier on {@code path} that opens once {@code members} members have
   * entered, wire-compatible with Curator's {@code DistributedDoubleBarrier}; see {@link
   * DoubleBarrier}. Make one per participant. Cheap: nothing is sent until it is used.
   *
   * @throws IllegalArgumentException naming the argument if the path is invalid or {@code members}
   *     is below 1
   */
  public DoubleBarrier doubleBarrier(String path, int members) {
    session.checkOpen();
    return new ZkDoubleBarrier(
        session, RecipePaths.check(session.settings(), path, "double barrier path"), members);
  }

  /**
   * A participant in the leader election on {@code path}, wire-compatible with Curator's {@code
   * LeaderLatch}; see {@link LeaderLatch}. Cheap: nothing is sent until {@link LeaderLatch#start()}.
   *
   * @param participantId what other participants see of this one ({@link LeaderLatch#leaderId()})
   * @throws IllegalArgumentException naming the argument if the path is invalid or the id blank
   */
  @Override
  public LeaderLatch leaderLatch(String path, String participantId) {
    session.checkOpen();
    LeaderLatch latch = new MutexLeaderLatch(ZkElectionQueue.latch(session,
        RecipePaths.check(session.settings(), path, "leader latch path", NodeSizes.utf8Length(participantId))),
        participantId);
    return observation == null ? latch : observation.leaderLatch(latch);
  }

  /**
   * A participant in the leader election on {@code path} that runs {@code task} while it leads,
   * wire-compatible with Curator's {@code LeaderSelector}; see {@link LeaderSelector}. Cheap:
   * nothing is sent until {@link LeaderSelector#start()}.
   *
   * @throws IllegalArgumentException naming the argument if the path is invalid or the id blank
   */
  @Override
  public LeaderSelector leaderSelector(String path, String participantId, LeaderTask task) {
    session.checkOpen();
    LeaderSelector selector = new MutexLeaderSelector(ZkElectionQueue.selector(session,
        RecipePaths.check(session.settings(), path, "leader selector path", NodeSizes.utf8Length(participantId))),
        participantId, task);
    return observation == null ? selector : observation.leaderSelector(selector);
  }

  /**
   * A FIFO queue on {@code path} whose items stay in the queue until a consumer acknowledges
   * them, and go to another consumer if it dies first; items are {@code queue-<sequence>} nodes
   * as in Curator's {@code DistributedQueue}. See {@link DistributedQueue}. Cheap: nothing is
   * sent until it is used.
   *
   * @throws IllegalArgumentException naming the argument if the path is invalid
   * @throws NullPointerException naming {@code codec} if it is null
   */
  public <T> DistributedQueue<T> queue(String path, Codec<T> codec) {
    session.checkOpen();
    String checked = RecipePaths.check(session.settings(), path, "queue path");
    return new ZkQueue<>(session, checked, codec, observation == null ? event -> { } : observation.queue(checked));
  }

  /**
   * A local copy of the node at {@code path} and every node below it, kept current by one
   * persistent recursive watch, as Curator's {@code CuratorCache}; see {@link TreeCache}. The path
   * need not exist. Add listeners, then {@link TreeCache#start()}; close it when done. The root
   * {@code /} is allowed (a cache creates nothing): it copies the whole tree, or the namespace's.
   *
   * @throws IllegalArgumentException naming the argument if the path is invalid
   */
  public TreeCache cache(String path) {
    session.checkOpen();
    return ZkCache.tree(session, "/".equals(path) ? path : RecipePaths.check(session.settings(), path, "cache path"));
  }

  /**
   * A local copy of the node at {@code path} alone (its children are not watched), kept current
   * by one persistent watch; see {@link NodeCache}. The node need not exist.
   *
   * @throws IllegalArgumentException naming the argument if the path is invalid or the root
   */
  public NodeCache nodeCache(String path) {
    session.checkOpen();
    return ZkCache.node(session, RecipePaths.check(session.settings(), path, "node cache path"));
  }

  // Recipe factories: each recipe adds its method above this line.

  private Mutex observed(String recipe, Mutex mutex) {
    return observation == null ? mutex : observation.mutex(recipe, mutex);
  }

  @Override
  public ConnectionState connectionState() {
    return session.state();
  }

  /** The connect string this client was built with. */
  public String connectString() {
    return session.settings().connectString();
  }

  /** The session timeout the ensemble granted (it may differ from the one asked for). */
  public Duration sessionTimeout() {
    return session.negotiatedSessionTimeout();
  }

  /**
   * The current session's id; it changes when the client opens a new session after expiry. While
   * that new session is being set up (after expiry, until the ensemble answers) it is 0.
   */
  public long sessionId() {
    return session.sessionId();
  }

  /**
   * Calls {@code listener} for every later change of state on the client's notice thread, where
   * lease and leadership listeners run by default (and no async result completes, so user code
   * chained on one cannot delay a notice): it hears a change before those listeners hear what the
   * change did to their recipe (see {@link ConnectionStateListener} for the order).
   */
  @Override
  public void addConnectionStateListener(ConnectionStateListener listener) {
    session.addStateListener(Objects.requireNonNull(listener, "listener"), session.noticeExecutor());
  }

  /**
   * Calls {@code listener} on {@code executor} for every later change of state. The order with
   * recipe listeners holds only if both run on one single-threaded executor ({@link
   * ConnectionStateListener}).
   */
  @Override
  public void addConnectionStateListener(ConnectionStateListener listener, Executor executor) {
    session.addStateListener(
        Objects.requireNonNull(listener, "listener"), Objects.requireNonNull(executor, "executor"));
  }

  @Override
  public void removeConnectionStateListener(ConnectionStateListener listener) {
    session.removeStateListener(listener);
  }

  /**
   * Closes the session: every lease this client holds is released (its nodes go with the
   * session), waiters fail with {@link ClientClosedException}, and the client's threads stop.
   * Idempotent.
   */
  @Override
  public void close() {
    session.close();
  }

  /** Settings of a client; each is checked as it is set. {@link #build()} connects. */
  public static final class Builder {
    private String connectString;
    private Duration sessionTimeout = Duration.ofSeconds(30);
    private Duration connectionTimeout = Duration.ofSeconds(15);
    private RetryPolicy retryPolicy = RetryPolicy.standard();
    private String namespace = "";
    private String authUser;
    private String authPassword;
    private Executor eventExecutor;
    private boolean connectInBackground;
    private AclProvider aclProvider = AclProvider.open();
    private final ZkClientOptions zkClient = new ZkClientOptions();
    private BatonObserver observer;

    private Builder() {}

    /**
     * Tells {@code observer} what this client's locks and connection do (for metrics: {@code
     * baton-micrometer}'s {@code MicrometerObserver}). None by default, and then nothing is wrapped.
     */
    public Builder observer(BatonObserver observer) {
      this.observer = Objects.requireNonNull(observer, "observer");
      return this;
    }

    /** {@code host:port[,host:port...]}; required. */
    public Builder connectString(String connectString) {
      Objects.requireNonNull(connectString, "connectString");
      if (connectString.isBlank()) {
        throw new IllegalArgumentException("connectString must name at least one host:port, was blank");
      }
      if (connectString.contains("/")) {
        throw new IllegalArgumentException(
            "connectString '" + connectString + "' contains a path; use namespace(...) for a chroot");
      }
      this.connectString = ConnectStrings.validate(connectString.trim());
      return this;
    }

    /**
     * How long the ensemble keeps the session (and its locks) after it last heard from the
     * client. The ensemble clamps it to between 2 and 20 of its ticks. Default 30 s.
     */
    public Builder sessionTimeout(Duration sessionTimeout) {
      positive(sessionTimeout, "sessionTimeout");
      if (sessionTimeout.compareTo(Duration.ofMillis(Integer.MAX_VALUE)) > 0) {
        throw new IllegalArgumentException(
            "sessionTimeout must be at most " + Integer.MAX_VALUE + " ms (ZooKeeper's limit), was " + sessionTimeout);
      }
      this.sessionTimeout = sessionTimeout;
      return this;
    }

    /** How long {@link #build()} waits for the first connection. Default 15 s. */
    public Builder connectionTimeout(Duration connectionTimeout) {
      this.connectionTimeout = positive(connectionTimeout, "connectionTimeout");
      return this;
    }

    public Builder retryPolicy(RetryPolicy retryPolicy) {
      this.retryPolicy = Objects.requireNonNull(retryPolicy, "retryPolicy");
      return this;
    }

    /**
     * A path under which every path of this client lives ({@code "/apps/shop"}: the mutex
     * {@code "/locks/a"} is then {@code /apps/shop/locks/a} on the ensemble). Created on demand.
     */
    public Builder namespace(String namespace) {
      Objects.requireNonNull(namespace, "namespace");
      this.namespace = namespace.isEmpty() ? "" : ZkPaths.validate(namespace, "namespace");
      if (ZkPaths.isReserved(this.namespace)) {
        throw new IllegalArgumentException("namespace " + ZkPaths.describe(namespace) + " lies in ZooKeeper's"
            + " reserved " + ZkPaths.RESERVED + " tree, where the server keeps its own nodes; choose another");
      }
      if (this.namespace.equals("/")) {
        this.namespace = "";
      }
      return this;
    }

    /** Authenticates the session with ZooKeeper's digest scheme as {@code user:password}. */
    public Builder digestAuth(String user, String password) {
      Objects.requireNonNull(user, "user");
      Objects.requireNonNull(password, "password");
      if (user.isEmpty() || user.contains(":")) {
        throw new IllegalArgumentException("digest user must be non-empty and without ':', was '" + user + "'");
      }
      this.authUser = user;
      this.authPassword = password;
      return this;
    }

    /**
     * The ACL of every node this client creates, chosen by path (see {@link AclProvider}: which
     * permission each operation needs, and what a lock's ACL protects). Default: {@link
     * AclProvider#open()}. For locks that other identities can see but not take, delete or
     * write: {@code digestAuth(user, password).aclProvider(AclProvider.creatorAllOthersRead())}.
     */
    public Builder aclProvider(AclProvider aclProvider) {
      this.aclProvider = Objects.requireNonNull(aclProvider, "aclProvider");
      return this;
    }

    /**
     * The same ACL for every node this client creates; shorthand for {@code
     * aclProvider(AclProvider.of(acl))}.
     *
     * @throws IllegalArgumentException if {@code acl} is empty or holds null
     */
    public Builder acl(java.util.List<org.apache.zookeeper.data.ACL> acl) {
      return aclProvider(AclProvider.of(acl));
    }

    /**
     * Connects with TLS, to the servers' secure client port ({@code secureClientPort}; the
     * connect string must name those ports), through ZooKeeper's Netty client. The servers'
     * certificates are checked against {@code trustStore} (a {@code .jks}, {@code .p12}, {@code
     * .pem} or {@code .bcfks} file), and must name the host as the connect string writes it
     * (an IP address needs an IP subject alternative name). Set for this client only, never
     * through JVM-wide system properties. If the handshake fails (a plain port, an untrusted
     * certificate, a client certificate required but missing), {@link #build()} fails with
     * {@link ConnectionException} after the connection timeout.
     *
     * @throws IllegalArgumentException if {@code trustStore} is not a readable file
     */
    public Builder tls(java.nio.file.Path trustStore, String trustStorePassword) {
      zkClient.trustStore(trustStore, trustStorePassword);
      return this;
    }

    /**
     * With {@link #tls}, presents the certificate in {@code keyStore} to the servers: needed when
     * they require client certificates ({@code ssl.clientAuth=need}, ZooKeeper's default for a
     * secure port), and then the session's {@code x509} identity in ACLs (with {@link
     * AclProvider#creatorAllOthersRead()}, as {@link #digestAuth} is).
     *
     * @throws IllegalArgumentException if {@code keyStore} is not a readable file
     */
    public Builder tlsClientCertificate(java.nio.file.Path keyStore, String keyStorePassword) {
      zkClient.keyStore(keyStore, keyStorePassword);
      return this;
    }

    /**
     * One property of ZooKeeper's client ({@code ZKClientConfig}) for this client only, applied
     * after Baton's own: e.g. {@code zookeeper.ssl.keyStore.type}, {@code
     * zookeeper.ssl.enabledProtocols}, {@code zookeeper.ssl.hostnameVerification}. Without it,
     * ZooKeeper's JVM-wide system properties apply, as for any ZooKeeper client.
     */
    public Builder zkClientProperty(String key, String value) {
      zkClient.property(key, value);
      return this;
    }

    /**
     * Where async results ({@code acquireAsync()} and the like) complete, and where data listeners
     * (caches, the config center, the registry) and revocation requests run by default. By
     * default a single thread of the client's own, so listeners see events in order. Connection-
     * state, lease and leadership listeners do not run here by default but on a notice thread of
     * the client's own that no async result completes on: a slow {@code thenAccept} on this
     * executor then cannot delay a SUSPECT or LOST notice past the moment another client can be
     * granted the lock.
     */
    public Builder eventExecutor(Executor eventExecutor) {
      this.eventExecutor = Objects.requireNonNull(eventExecutor, "eventExecutor");
      return this;
    }

    /**
     * Makes {@link #build()} return at once instead of waiting for the first connection, so a
     * process can start while the ensemble is down (and serve its config from a snapshot file: see
     * the config center's options). The client then connects in the background
     * for as long as it takes; {@link Baton#connectionState()} is {@link ConnectionState#SUSPENDED}
     * until it does, when listeners hear {@link ConnectionState#CONNECTED}. Meanwhile operations
     * wait for the connection as the {@link RetryPolicy} allows, as after any disconnection. The
     * connection timeout then plays no part.
     */
    public Builder connectInBackground() {
      this.connectInBackground = true;
      return this;
    }

    /**
     * Connects and waits for the session (unless {@link #connectInBackground()}).
     *
     * @throws ConnectionException naming the connect string if no server answers in time, or if
     *     a host name cannot be resolved
     */
    public Baton build() {
      if (connectString == null) {
        throw new IllegalStateException("connectString is required: Baton.builder().connectString(\"host:2181\")");
      }
      if (aclProvider instanceof dev.baton.FixedAcl fixed && fixed.needsIdentity()
          && authUser == null && !zkClient.hasClientCertificate()) {
        throw new IllegalStateException("The ACL " + aclProvider + " grants rights to the creator's"
            + " identity, and this client has none, so ZooKeeper would refuse every create: add"
            + " digestAuth(user, password) or a TLS client certificate");
      }
      ClientSettings settings = new ClientSettings(
          connectString, sessionTimeout, connectionTimeout, retryPolicy, namespace, authUser,
          authPassword, aclProvider, zkClient.toProperties());
      return new Baton(connectInBackground
          ? Session.openInBackground(settings, eventExecutor) : Session.open(settings, eventExecutor),
          Observation.of(observer));
    }

    private static Duration positive(Duration value, String name) {
      Objects.requireNonNull(value, name);
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(name + " must be positive, was " + value);
      }
      return value;
    }
  }
}
