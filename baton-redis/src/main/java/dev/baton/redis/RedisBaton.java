package dev.baton.redis;

import dev.baton.ClientClosedException;
import dev.baton.ConnectionException;
import dev.baton.internal.redis.RedisLockMutex;
import dev.baton.internal.redis.RedisSession;
import dev.baton.internal.redis.RedisSettings;
import dev.baton.lock.Mutex;
import java.time.Duration;
import java.util.Objects;

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
 * {@code validUntil()} without a renewal. Read the package's documentation for what this backend
 * cannot promise that ZooKeeper can.
 *
 * <p><b>Connection loss</b>: the client reconnects by itself. Commands sent while it is
 * disconnected fail at once rather than queue; waiters keep their place in the queue for the
 * {@link Builder#waiterLease waiter lease} and try again when the connection is back. In a
 * cluster each master has a connection of its own: while one master is unreachable, the leases
 * of this client may turn {@code SUSPECT} until their next renewal, those on that master go on to
 * {@code LOST} if it stays away past their validity, and locks on the other masters go on.
 */
public final class RedisBaton implements AutoCloseable {
  private final RedisSession session;

  private RedisBaton(RedisSession session) {
    this.session = session;
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
  public Mutex mutex(String name) {
    return mutex(name, RedisMutexOptions.defaults());
  }

  /** A mutex on {@code name} kept as {@code options} say; see {@link #mutex(String)}. */
  public Mutex mutex(String name, RedisMutexOptions options) {
    Objects.requireNonNull(options, "options");
    session.checkOpen();
    return new RedisLockMutex(session, name, options);
  }

  /** The server's address as given, without its password. */
  public String address() {
    return session.address();
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

    private Builder() {}

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
     * long at most; 30 s by default. At least twice the renewal period.
     */
    public Builder leaseTtl(Duration ttl) {
      this.leaseTtl = positive(ttl, "leaseTtl");
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
      if (renew.isZero()) {
        throw new IllegalArgumentException("leaseTtl " + leaseTtl.toMillis() + " ms is too short to renew;"
            + " give at least 3 ms");
      }
      if (leaseTtl.compareTo(renew.multipliedBy(2)) < 0) {
        throw new IllegalArgumentException("leaseTtl (" + leaseTtl.toMillis() + " ms) must be at least"
            + " twice renewEvery (" + renew.toMillis() + " ms), so that one late renewal does not lose the lease");
      }
      RedisSettings settings = new RedisSettings(uri, user, password, tls, trustStore, trustStorePassword,
          connectTimeout, commandTimeout, leaseTtl, renew, waiterLease);
      return new RedisBaton(RedisSession.open(settings));
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
