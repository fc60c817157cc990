package dev.baton.redis;

import dev.baton.BatonObserver;
import dev.baton.ClientClosedException;
import dev.baton.ConnectionException;
import dev.baton.ConnectionState;
import dev.baton.ConnectionStateListener;
import dev.baton.Coordinator;
import dev.baton.atomic.Counter;
import dev.baton.internal.redis.atomic.RedisCounter;
import dev.baton.internal.leadership.MutexLeaderLatch;
import dev.baton.internal.leadership.MutexLeaderSelector;
import dev.baton.internal.multilock.MutexMultiLock;
import dev.baton.internal.observe.Observation;
import dev.baton.internal.redis.fence.RedisFence;
import dev.baton.internal.redis.rwlock.RedisReadWriteLock;
import dev.baton.internal.redis.semaphore.RedisSemaphore;
import dev.baton.internal.redis.mutex.RedisLockMutex;
import dev.baton.internal.redis.RedisSession;
import dev.baton.internal.redis.RedisSettings;
import dev.baton.leader.LeaderLatch;
import dev.baton.leader.LeaderSelector;
import dev.baton.leader.LeaderTask;
import dev.baton.lock.MultiLock;
import dev.baton.lock.Mutex;
import dev.baton.lock.MutexOptions;
import dev.baton.lock.ReadWriteLock;
import dev.baton.lock.Semaphore;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;

/**
 * A client of one Redis server, a Sentinel-watched master, or a Redis Cluster, that hands out the same {@link Mutex}
 * and {@link dev.baton.lock.Lease} as the ZooKeeper client: code written against those interfaces
 * runs on either backend. Thread-safe; one per process and server is plenty.
 *
 * <pre>{@code
 * try (RedisBaton redis = RedisBaton.connect("redis://127.0.0.1:6379")) {
 *   Mutex orders = redis.mutex("orders");
 *   try (Lease lease = orders.acquire(Duration.ofSeconds(5))) {
 *     writeOrder(lease.fencingToken());
 *   }
 * }
 * }</pre>
 *
 * <p><b>Leases</b> live by a TTL ({@link Builder#leaseTtl}, 30 s by default) that the client renews
 * every {@link Builder#renewEvery renewal period} while the lease is held. A renewal that fails
 * (Redis unreachable, or no reply within the command timeout) turns the lease {@code SUSPECT};
 * one that finds the lock gone or someone else's turns it {@code LOST}, and so does reaching
 * {@code validUntil()} without a renewal (to the moment: that check runs on the client's own
 * timer). Read the package's documentation for what this backend cannot promise that ZooKeeper can.
 *
 * <p><b>Timeouts</b>: a renewal period or an acquire timeout of a second or more waits on
 * Lettuce's timer wheel, which costs the lock no thread wake-up, and may end up to 100 ms late;
 * shorter ones are kept exactly.
 *
 * <p><b>Connection loss</b>: the client reconnects by itself, and says so through {@link
 * #connectionState()} and its listeners (SUSPENDED at once, LOST after the lease TTL, RECONNECTED
 * once back). Commands sent while it is
 * disconnected fail at once rather than queue; waiters keep their place in the queue for the
 * {@link Builder#waiterLease waiter lease} and try again when the connection is back. In a
 * cluster each master has a connection of its own: while one master is unreachable, the leases
 * of this client may turn {@code SUSPECT} until their next renewal, those on that master go on to
 * {@code LOST} if it stays away past their validity, and locks on the other masters go on.
 */
public final class RedisBaton implements Coordinator {
  /**
   * The shortest lease time a client or an acquisition may ask for: 10 ms. What a lease keeps back for
   * clock drift (1% plus 2 ms) must leave it valid for longer than a renewal period.
   */
  public static final Duration MIN_LEASE_TTL = Duration.ofMillis(10);

  private final RedisSession session;
  private final Observation observation; // null without an observer: nothing is wrapped

  private RedisBaton(RedisSession session, Observation observation) {
    this.session = session;
    this.observation = observation;
    if (observation != null) {
      session.addStateListener(observation::connectionStateChanged, Runnable::run);
    }
  }

  /**
   * Connects to the server at {@code uri}, as Lettuce reads it: {@code redis://[user:password@]host:port[/db]},
   * {@code rediss://} for TLS, {@code redis-sentinel://host:26379[,host2:26379]/db#master} for a
   * master that Sentinel watches, {@code redis-cluster://host:7000[,host2:7001]} for a Redis
   * Cluster found from any of those seed nodes ({@code rediss-cluster://} for TLS). Default
   * settings otherwise.
   *
   * @throws ConnectionException if the server (for a cluster: every seed) does not answer within
   *     the connect timeout (10 s), naming the address
   * @throws IllegalArgumentException if {@code uri} cannot be read, naming it
   */
  public static RedisBaton connect(String uri) {
    return builder().uri(uri).build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * A mutex on {@code name} in the {@link RedisLockLayout#PLAIN plain layout}: the lock is the key
   * {@code name}. Cheap: no request is sent until it is used.
   *
   * @throws IllegalArgumentException if {@code name} is empty or longer than 1,024 bytes in UTF-8,
   *     or, on a Redis Cluster, has braces that would spread the lock's keys over several slots
   *     (such as <code>a&#123;b</code>: use no braces, or one non-empty {@code {hash tag}})
   * @throws ClientClosedException if this client is closed
   */
  /** {@code redis}. */
  @Override
  public String backend() {
    return "redis";
  }

  @Override
  public Mutex mutex(String name) {
    return mutex(name, RedisMutexOptions.defaults());
  }

  /**
   * A mutex on {@code name} with the backend-neutral {@code options}: local hand-over ({@link
   * MutexOptions#withLocalHandOver}) as {@link RedisMutexOptions} describes it, in the plain
   * layout. Connection loss and timeouts as {@link #mutex(String)}.
   *
   * @throws UnsupportedOperationException for caching, which a Redis lock cannot keep without a
   *     way to learn at once that another client wants it, and for lock-delay, which needs a record
   *     of a lost holder that the lock's key does not keep
   * @throws IllegalArgumentException as {@link #mutex(String)}
   * @throws NullPointerException if {@code options} is null
   */
  @Override
  public Mutex mutex(String name, MutexOptions options) {
    Objects.requireNonNull(options, "options must not be null");
    if (!options.cacheIdle().isZero()) {
      throw new UnsupportedOperationException("The " + backend() + " backend has no lock caching"
          + " (MutexOptions.withCaching); local hand-over (MutexOptions.withLocalHandOver) it has");
    }
    if (!options.lockDelay().isZero()) {
      throw new UnsupportedOperationException("The " + backend() + " backend has no lock-delay"
          + " (MutexOptions.withLockDelay): the lock's key keeps no record of a lost holder");
    }
    return mutex(name, RedisMutexOptions.defaults().withLocalHandOver(options.localHandOvers()));
  }

  /** A mutex on {@code name} kept as {@code options} say; see {@link #mutex(String)}. */
  public Mutex mutex(String name, RedisMutexOptions options) {
    Objects.requireNonNull(options, "options");
    session.checkOpen();
    Mutex mutex = new RedisLockMutex(session, name, options);
    return observation == null ? mutex : observation.mutex("mutex", mutex);
  }

  /**
   * The {@code locks} taken as one, all or nothing, in the order of their names (see {@link
   * MultiLock}); they may be mutexes of this client or of others, on the same Redis or not, and
   * each part is held, renewed and lost as that mutex's leases are. Cheap: no request is sent
   * until it is used.
   *
   * <p><b>Connection loss</b>: a part awaited keeps its place in its lock's queue and goes on once
   * the connection is back, as {@link Mutex} says; a part already taken turns {@code SUSPECT}, and
   * {@code LOST} once its TTL has passed without a renewal, in which case the multi-lock gives back
   * what it holds and starts over within the same timeout (an {@code acquireAsync} at once, a
   * blocking acquire once it has the lock it was waiting for). The lease it hands out is {@code
   * HELD} only while every part is. <b>Timeout</b>: the timeout is the total for all locks; when
   * it passes, the locks already taken are released (their keys deleted) and the waiter is
   * withdrawn from the queue of the lock it waited for, before the call returns.
   *
   * @throws IllegalArgumentException if no lock is given, or one name is given twice
   * @throws NullPointerException if {@code locks} is or holds null
   * @throws ClientClosedException if this client is closed
   */
  @Override
  public MultiLock multiLock(Mutex... locks) {
    Objects.requireNonNull(locks, "locks");
    session.checkOpen();
    return new MutexMultiLock(Arrays.asList(locks));
  }

  /**
   * A participant {@code participantId} in the election of {@code name}, not yet started: the
   * leader is the holder of the {@linkplain #mutex(String) mutex} on {@code name}, and leadership
   * is that mutex's lease, with its fencing token (a deposed leader's token is smaller than its
   * successor's). Waiting participants queue in Redis, FIFO, holding no thread. {@link
   * LeaderLatch#leaderId()} and {@link LeaderLatch#participants()} read the lock's holder and
   * queue (one or two commands, within the command timeout, else {@link ConnectionException});
   * the id is recorded as the name of the thread that queued, which Redis keeps to 128
   * characters, so a longer id is shown shortened.
   *
   * <p><b>Connection loss</b>: when a renewal fails the lease turns {@code SUSPECT} and the latch
   * is no longer leader (listeners told); if a renewal succeeds again in time it leads again with
   * the same lease; once the lease TTL passes without one it is {@code LOST}, listeners are told
   * before the key expires in Redis (so before another participant can lead), and the latch
   * queues again, at the back, retrying every few seconds at most while Redis is unreachable.
   * Only closing this client ends it ({@link LeaderLatch#failure()}). <b>Timeouts</b>: {@link
   * LeaderLatch#await(java.time.Duration)} returns false when its timeout passes; nothing else
   * waits. Listeners added without an executor run on the thread that reports the change: this
   * client's event thread for grants and lease changes, the caller's thread when it closes the
   * latch or its leadership lease (the loss is told before the key is deleted). Failure listeners
   * run on the thread that found the failure (or the caller's, if it was found already).
   *
   * @throws IllegalArgumentException if {@code name} is not a valid lock name (see {@link
   *     #mutex(String)}) or {@code participantId} is blank
   * @throws ClientClosedException if this client is closed
   */
  @Override
  public LeaderLatch leaderLatch(String name, String participantId) {
    return new MutexLeaderLatch(mutex(name), participantId, Runnable::run, session::checkOpen);
  }

  /**
   * A participant that runs {@code task} on a thread of its own each time it leads the election of
   * {@code name}, and gives up the lead (deletes the lock's key) when the task returns; not yet
   * started. Leadership is held as in {@link #leaderLatch}: the lease of the {@linkplain
   * #mutex(String) mutex} on {@code name}, with the same ids, queue and listeners.
   *
   * <p><b>Connection loss</b>: when the lease turns {@code SUSPECT} (a renewal failed) or {@code
   * LOST} (the TTL passed without one), listeners are told and then the task's thread is
   * interrupted. After {@code SUSPECT} the key stays until the task returns, so no one else leads
   * meanwhile unless the TTL runs out; after {@code LOST} the key has expired and the next
   * participant may lead while the task is still stopping: pass the lease's fencing token to what
   * the task writes. <b>Timeouts</b>: none; the task runs as long as it likes while the lease is
   * renewed.
   *
   * @throws IllegalArgumentException if {@code name} is not a valid lock name or {@code
   *     participantId} is blank
   * @throws NullPointerException if {@code task} is null
   * @throws ClientClosedException if this client is closed
   */
  @Override
  public LeaderSelector leaderSelector(String name, String participantId, LeaderTask task) {
    return new MutexLeaderSelector(mutex(name), participantId, task, Runnable::run, session::checkOpen);
  }

  /**
   * The connection's state, in the ZooKeeper client's words: {@link ConnectionState#CONNECTED}
   * from the start; {@link ConnectionState#SUSPENDED} as soon as a connection that carries lock
   * commands drops (on a cluster, any master's), while Lettuce reconnects by itself and held leases
   * turn {@code SUSPECT}; {@link ConnectionState#LOST} once it has stayed down for the {@link
   * Builder#leaseTtl lease TTL}, when no lease of this client can still be valid; {@link
   * ConnectionState#RECONNECTED} when every such connection is back (leases still in Redis turn
   * {@code HELD} again at their next renewal, the others {@code LOST}). Reading it sends nothing.
   * A server that stops answering without closing the connection (paused, or a link that drops
   * packets) is not a drop to Lettuce: the leases see it first, turning {@code SUSPECT} when a
   * renewal times out, while this still reads {@code CONNECTED}.
   */
  @Override
  public ConnectionState connectionState() {
    return session.connectionState();
  }

  /** Since when the connection has been down (SUSPENDED or LOST), or empty while it is up. */
  public Optional<Instant> disconnectedSince() {
    return session.disconnectedSince();
  }

  /**
   * Tells {@code listener} each change of {@link #connectionState()}, in order, on the client's
   * event thread (which also runs lease listeners: a connection-state listener hears a change
   * before any lease listener hears its consequence). Keep it short: it delays the others.
   */
  @Override
  public void addConnectionStateListener(ConnectionStateListener listener) {
    addConnectionStateListener(listener, null);
  }

  /** As {@link #addConnectionStateListener(ConnectionStateListener)}, on {@code executor}. */
  @Override
  public void addConnectionStateListener(ConnectionStateListener listener, Executor executor) {
    session.addStateListener(Objects.requireNonNull(listener, "listener"), executor);
  }

  @Override
  public void removeConnectionStateListener(ConnectionStateListener listener) {
    session.removeStateListener(listener);
  }

  /**
   * A read-write lock on {@code name} in Redisson's {@code RReadWriteLock} layout: the hash {@code
   * name} (field {@code mode} = {@code read}/{@code write}, a field per holder), readers' {@code
   * {name}:<owner>:rwlock_timeout:<n>} keys and the channel {@code redisson_rwlock:{name}}, so a
   * Redisson client and a Baton client on the same name exclude each other both ways and hear each
   * other's releases. Cheap: no request is sent until it is used.
   *
   * <ul>
   *   <li><b>Order.</b> Among Baton's clients, first come first served through a queue beside the
   *       hash ({@code baton_rwlock_queue:{name}}), and a waiting writer keeps the readers that come
   *       after it out, so readers do not starve a writer. Redisson's clients do not queue (Redisson's
   *       lock is not fair): a Redisson reader may still pass a waiting Baton writer, and a Redisson
   *       writer gets the lock whenever it finds it free, wherever Baton's queue stands.
   *   <li><b>Reentrancy, downgrade, no upgrade</b> as {@link dev.baton.lock.ReadWriteLock} says: a
   *       thread holding the write lock gets the read lock at once (in Redis as a reader's field beside
   *       the writer's, as Redisson's downgrade does), may then release the write lock and keep
   *       reading; a thread holding only the read lock that asks for the write lock gets an {@link
   *       IllegalStateException} at once.
   *   <li><b>Fencing tokens</b> from a counter of their own ({@code baton_rwlock_token:{name}}), drawn
   *       by every grant as the mutex's are: strictly growing from one writer to the next, a reader's
   *       larger than every earlier writer's and smaller than every later writer's; a downgraded
   *       read lease carries its write lease's token. Redisson's holders draw none.
   *   <li><b>Leases</b> live by the client's {@link Builder#leaseTtl lease TTL}, renewed while held
   *       (a reader's timeout key and the hash; the writer's hash): the lease turns {@code SUSPECT}
   *       when a renewal fails (connection loss, no reply within the command timeout) and {@code
   *       LOST} when one finds its hold gone (the hash deleted, {@link #forceUnlock}) or its validity
   *       passes without one. A crashed reader's field is swept by the next writer's attempt once its
   *       timeout keys have expired.
   *   <li><b>Waiting</b> costs no thread and no polling: waiters hear releases on the channel (a
   *       release by Baton publishes Redisson's {@code 1}, which wakes every waiter) and re-check every
   *       third of the {@link Builder#waiterLease waiter lease}; a timeout or a cancel takes the waiter
   *       out of the queue, leaving nothing behind. While the connection is down, waiters keep their
   *       place for the waiter lease and try again once it is back.
   * </ul>
   *
   * @throws IllegalArgumentException if {@code name} is empty or longer than 1,024 bytes in UTF-8, or
   *     on a Redis Cluster has braces that would spread its keys over several slots
   * @throws ClientClosedException if this client is closed
   */
  @Override
  public ReadWriteLock readWriteLock(String name) {
    session.checkOpen();
    ReadWriteLock lock = new RedisReadWriteLock(session, name);
    return observation == null ? lock : observation.readWriteLock(lock);
  }

  /**
   * A counting semaphore on {@code name} with {@code permits} permits, in Redisson's {@code
   * RPermitExpirableSemaphore} layout: the count of available permits in the key {@code name} (set to
   * {@code permits}, less those held, by the first acquisition that finds none), each permit held in
   * {@code {name}:timeout} scored by when it expires, the count of permits left free published on
   * {@code redisson_sc:{name}}; Baton and Redisson clients share the permits. Cheap: no request is sent until it is used.
   *
   * <ul>
   *   <li><b>Permits expire with their holder</b>: each lease's permits are renewed while it is held
   *       (the lease TTL; {@code SUSPECT} when a renewal fails, {@code LOST} when one finds a permit
   *       gone or expired), so a crashed client's permits come back within the TTL.
   *   <li><b>All or nothing</b>: {@link Semaphore#acquire(int, Duration)} takes its permits in one
   *       script or none, so two clients each asking for several cannot each hold a part.
   *   <li><b>Order</b>: first come first served among Baton's clients (a queue beside the count; the
   *       first in line is served first, even when a later waiter asks for fewer permits). Redisson's
   *       clients do not queue and may come first.
   *   <li><b>Waiting</b> costs no thread and no polling: a release (or a waiter's withdrawal) grants
   *       the permits it frees to the first in line in the same script and tells it on {@code
   *       baton_sem_grant:{name}}, so the waiter sends nothing to take them; Redisson's releases, heard
   *       on Redisson's channel, wake one waiter per client, which hands the wake-up on to the first in
   *       line if that is of its client. Waiters re-check every third of the {@link Builder#waiterLease
   *       waiter lease}; a timeout, a cancel or an interrupt leaves nothing behind (permits granted to
   *       a waiter that has just given up are given back; permits granted to a waiter whose client
   *       died expire with that client's lease TTL). While the connection is down, waiters keep their
   *       place for the waiter lease and try again once it is back (a grant told while it was down is
   *       found then).
   *   <li>Every grant draws a fencing token from {@code baton_sem_token:{name}}, growing as the
   *       mutex's do. Clients must agree on {@code permits}: the count is set once and not adjusted.
   *       Expiry of a permit is judged by the server's clock here, by Redisson's client clock there.
   * </ul>
   *
   * @throws IllegalArgumentException if {@code permits} is less than 1, or {@code name} is empty or
   *     longer than 1,024 bytes in UTF-8
   * @throws ClientClosedException if this client is closed
   */
  @Override
  public Semaphore semaphore(String name, int permits) {
    session.checkOpen();
    Semaphore semaphore = new RedisSemaphore(session, name, permits);
    return observation == null ? semaphore : observation.semaphore(semaphore);
  }

  /**
   * A shared {@code long} on {@code name}, kept as Redisson's {@code RAtomicLong} keeps it: the decimal
   * text of the number in the plain string key {@code name}, so {@code INCRBY}, {@code GET}, {@code
   * redis-cli} and a Redisson client on the same name all share it. A missing key reads 0; the first
   * update creates it (without an expiry; {@link Counter#set} and a compare-and-set remove any expiry
   * the key had, as Redisson's do). Cheap: no request is sent until it is used.
   *
   * <ul>
   *   <li><b>Updates</b>: {@link Counter#addAndGet} is one {@code INCRBY}, atomic on the server, so no
   *       update is lost and every caller gets a value of its own, however many threads and clients
   *       add at once; compare-and-set is one script that sets the update only if the key's text is
   *       the expected number. Overflow throws {@link ArithmeticException}; a key that holds
   *       something other than a decimal {@code long} (or another type) throws {@link
   *       dev.baton.BatonException} naming the key, and nothing is written.
   *   <li><b>Consistency</b>: every command goes to the master (the server, Sentinel's master, or the
   *       key's cluster master), so a read sees every update acknowledged before it. On a failover, an
   *       update the old master acknowledged but had not replicated yet is lost, as any Redis write
   *       is; and a server without persistence (RDB or AOF) that restarts comes back empty, the
   *       counter at 0. Unlike a lock's key, which only needs to outlive its holder, a counter is
   *       exactly as durable as the server's persistence: run it with AOF where updates must last.
   *   <li><b>Connection loss and timeouts</b>: each call waits for one reply, up to the {@link
   *       Builder#commandTimeout command timeout}; nothing is sent again. While the connection is down
   *       every call fails at once with {@link ConnectionException} and nothing was applied. A read or
   *       a {@code set} that gets no reply in time throws {@link ConnectionException} (safe to call
   *       again). An add or compare-and-set whose reply is lost (no reply in time, the connection
   *       dropped while it was out, or the caller interrupted meanwhile) throws {@link
   *       dev.baton.OutcomeUnknownException}: it may have been applied, once at most; read the value
   *       to decide. Lettuce's own exceptions never reach the caller.
   * </ul>
   *
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if {@code name} is blank or longer than 1,024 bytes in UTF-8
   * @throws ClientClosedException if this client is closed (and each call on the counter once it is)
   */
  @Override
  public Counter counter(String name) {
    session.checkOpen();
    return new RedisCounter(session, name);
  }

  /**
   * A countdown latch on {@code name} in Redisson's {@code RCountDownLatch} layout (the count in the
   * key {@code name}, a zero told on <code>redisson_countdownlatch__channel__{name}</code>), shared with
   * Redisson's clients on the same name; see {@link RedisCountDownLatch} for what happens on connection
   * loss and on timeout. Cheap: no request is sent until it is used.
   *
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if {@code name} is blank or longer than 1,024 bytes in UTF-8
   * @throws ClientClosedException if this client is closed
   */
  public RedisCountDownLatch countDownLatch(String name) {
    session.checkOpen();
    return new dev.baton.internal.redis.latch.RedisLatch(session, name);
  }

  /** The server's address as given, without its password. */
  public String address() {
    return session.address();
  }

  /**
   * Whether the lock {@code name} is held by anyone: a mutex of either {@link RedisLockLayout}, taken by
   * Baton or by Redisson, or Redisson's read-write lock (Redisson's {@code RLock.isLocked()}). One
   * {@code TYPE} command; the answer may be stale as soon as it arrives, so decide nothing on it that
   * a lease or a fencing token should decide. Here rather than on {@link Mutex}, which every backend
   * implements the same way.
   *
   * @throws IllegalArgumentException if {@code name} is empty or longer than 1,024 bytes in UTF-8
   * @throws dev.baton.BatonException if the key {@code name} holds something that is not a lock, naming it
   * @throws ConnectionException if the connection is down, or the server does not answer within the
   *     command timeout
   * @throws ClientClosedException if this client is closed
   */
  public boolean isLocked(String name) {
    return RedisLockMutex.isLocked(session, name);
  }

  /**
   * An operator's forced release (Redisson's {@code forceUnlock()}): deletes the lock {@code name}
   * whoever holds it (either layout, Baton or Redisson, or Redisson's read-write lock), wakes its
   * waiters, and logs at WARN which holder it removed. The fencing counter is kept: the next holder's
   * token is larger than the old holder's, so writes fenced with the old token ({@link #fencedSet},
   * {@link dev.baton.lock.FencedResource}) are refused as stale. The old holder is not told at once:
   * its lease turns {@code LOST} at its next renewal, which finds the key gone (or someone else's).
   * Meant for a holder that is stuck, not for normal releases.
   *
   * @return whether there was a lock to release
   * @throws IllegalArgumentException if {@code name} is empty or longer than 1,024 bytes in UTF-8
   * @throws dev.baton.BatonException if the key holds something that is not a lock, naming it (it is kept)
   * @throws ConnectionException if the connection is down, or no reply came within the command
   *     timeout: the lock may or may not have been released; calling again is safe
   * @throws ClientClosedException if this client is closed
   */
  public boolean forceUnlock(String name) {
    session.checkOpen();
    return RedisLockMutex.forceUnlock(session, name);
  }

  /**
   * A fenced write on Redis itself: sets the string {@code key} to {@code value} only if {@code
   * token} (a lease's {@link dev.baton.lock.Lease#fencingToken()}) is not lower than the highest token
   * a fenced write to {@code key} carried before, checked and written in one script. That highest
   * token is kept in {@code baton_fence:{key}} for good (delete it with the key when the key is retired).
   * An equal token passes: one holder may write many times. Like {@code SET}, it replaces any expiry
   * of {@code key}. Writes to {@code key} made without this method are not checked.
   *
   * @throws dev.baton.lock.StaleTokenException if {@code token} is lower, naming both tokens; nothing
   *     was written
   * @throws IllegalArgumentException if {@code key} is empty or over 1,024 bytes, or {@code token} is negative
   * @throws dev.baton.BatonException if {@code key} holds something other than a string, or its fence
   *     something other than a token, naming that key; nothing was written
   * @throws ConnectionException if the connection is down, or no reply came within the command
   *     timeout: the write may or may not have been applied; sending it again with the same token is safe
   * @throws ClientClosedException if this client is closed
   */
  public void fencedSet(String key, String value, long token) {
    RedisFence.set(session, key, value, token);
  }

  /**
   * Releases every lease this client holds (their keys are deleted, as far as the connection
   * allows within the command timeout), fails every waiter with {@link ClientClosedException} and
   * closes the connections. Idempotent.
   */
  @Override
  public void close() {
    session.close();
  }

  /** Settings of a client; {@link #build()} checks them together and connects. */
  public static final class Builder {
    private String uri;
    private String user;
    private char[] password;
    private boolean tls;
    private java.nio.file.Path trustStore;
    private String trustStorePassword;
    private Duration connectTimeout = Duration.ofSeconds(10);
    private Duration commandTimeout = Duration.ofSeconds(5);
    private Duration leaseTtl = Duration.ofSeconds(30);
    private Duration renewEvery;
    private Duration waiterLease = Duration.ofSeconds(10);
    private BatonObserver observer;

    private Builder() {}

    /**
     * Tells {@code observer} what this client's locks and connection do, as {@code
     * Baton.Builder.observer} does for ZooKeeper (the same recipe names: a Redis mutex is {@code
     * "mutex"}): acquire waits, holds, local hand-overs, leases turning SUSPECT or LOST, and
     * changes of {@link RedisBaton#connectionState()}.
     */
    public Builder observer(BatonObserver observer) {
      this.observer = Objects.requireNonNull(observer, "observer");
      return this;
    }

    /** The server, Sentinel or cluster, as {@link RedisBaton#connect(String)} reads it; required. */
    public Builder uri(String uri) {
      Objects.requireNonNull(uri, "uri must not be null");
      if (uri.isBlank()) {
        throw new IllegalArgumentException("uri must name a Redis server, such as redis://127.0.0.1:6379; was blank");
      }
      this.uri = uri;
      return this;
    }

    /** An ACL user name (Redis 6); with {@link #password} only, the server's {@code requirepass}. */
    public Builder user(String user) {
      this.user = Objects.requireNonNull(user, "user must not be null");
      return this;
    }

    /** The password for {@code AUTH}. */
    public Builder password(String password) {
      this.password = Objects.requireNonNull(password, "password must not be null").toCharArray();
      return this;
    }

    /** Whether to connect over TLS (as {@code rediss://} does). */
    public Builder tls(boolean tls) {
      this.tls = tls;
      return this;
    }

    /**
     * The certificates to trust for TLS, as a PKCS#12 or JKS trust store; without it the JVM's
     * default trust applies. Turns TLS on.
     */
    public Builder trustStore(java.nio.file.Path file, String password) {
      this.trustStore = Objects.requireNonNull(file, "trustStore must not be null");
      if (!java.nio.file.Files.isReadable(file)) {
        throw new IllegalArgumentException("trustStore " + file + " is not a readable file");
      }
      this.trustStorePassword = Objects.requireNonNull(password, "trust store password must not be null");
      this.tls = true;
      return this;
    }

    /** How long {@link #build()} waits for the server; 10 s by default. */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = positive(timeout, "connectTimeout");
      return this;
    }

    /**
     * How long any one command may take before it counts as failed (a lease being renewed turns
     * {@code SUSPECT}); 5 s by default.
     */
    public Builder commandTimeout(Duration timeout) {
      this.commandTimeout = positive(timeout, "commandTimeout");
      return this;
    }

    /**
     * How long a lock lives in Redis without renewal: a holder that crashes blocks others this
     * long at most; 30 s by default. At least {@link RedisBaton#MIN_LEASE_TTL} (10 ms) and twice
     * the renewal period. Redis keeps expiries in whole milliseconds: a fraction is cut off there,
     * and the drift margin the lease keeps back covers it.
     *
     * @throws IllegalArgumentException if {@code ttl} is shorter than {@link RedisBaton#MIN_LEASE_TTL}, naming it
     */
    public Builder leaseTtl(Duration ttl) {
      this.leaseTtl = checkLeaseTtl(positive(ttl, "leaseTtl"), "leaseTtl");
      return this;
    }

    /** How often a held lock's TTL is renewed; a third of the TTL by default. */
    public Builder renewEvery(Duration period) {
      this.renewEvery = positive(period, "renewEvery");
      return this;
    }

    /**
     * How long a waiter keeps its place in the queue without refreshing it; 10 s by default. A
     * waiter of a crashed client holds up those behind it this long at most; live waiters refresh
     * every third of it.
     */
    public Builder waiterLease(Duration lease) {
      this.waiterLease = positive(lease, "waiterLease");
      return this;
    }

    /**
     * Connects.
     *
     * @throws IllegalArgumentException if the settings do not fit together (a TTL shorter than
     *     twice the renewal period) or the URI cannot be read, naming what is wrong
     * @throws ConnectionException if the server cannot be reached within the connect timeout
     */
    public RedisBaton build() {
      if (uri == null) {
        throw new IllegalArgumentException("uri is required, such as redis://127.0.0.1:6379");
      }
      Duration renew = renewEvery != null ? renewEvery : leaseTtl.dividedBy(3);
      if (leaseTtl.compareTo(renew.multipliedBy(2)) < 0) {
        throw new IllegalArgumentException("leaseTtl (" + leaseTtl.toMillis() + " ms) must be at least"
            + " twice renewEvery (" + renew.toMillis() + " ms), so that one late renewal does not lose the lease");
      }
      RedisSettings settings = new RedisSettings(uri, user, password, tls, trustStore, trustStorePassword,
          connectTimeout, commandTimeout, leaseTtl, renew, waiterLease);
      return new RedisBaton(RedisSession.open(settings), Observation.of("redis", observer, RedisLockMutex::handedOver));
    }

    /**
     * Refuses a lease time under the floor: below it, what the lease keeps back for clock drift (1%
     * plus 2 ms) would leave it valid for less than a renewal period, or for nothing at all, and
     * every lease would turn LOST as soon as it is granted.
     */
    static Duration checkLeaseTtl(Duration ttl, String name) {
      if (ttl.compareTo(MIN_LEASE_TTL) < 0) {
        throw new IllegalArgumentException(name + " must be at least " + MIN_LEASE_TTL.toMillis() + " ms, was "
            + describe(ttl) + ": the lease keeps back 1% plus 2 ms of it for clock drift, and what is left must"
            + " outlast a renewal period");
      }
      return ttl;
    }

    private static String describe(Duration d) {
      return d.toNanos() % 1_000_000 == 0 ? d.toMillis() + " ms" : d.toNanos() / 1000.0 + " µs";
    }

    private static Duration positive(Duration value, String name) {
      Objects.requireNonNull(value, name + " must not be null");
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(name + " must be positive, was " + value);
      }
      return value;
    }
  }
}
