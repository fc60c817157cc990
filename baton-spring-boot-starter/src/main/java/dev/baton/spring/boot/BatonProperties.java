package dev.baton.spring.boot;

import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the ZooKeeper client that {@link BatonAutoConfiguration} builds, under {@code
 * baton.*} (relaxed binding: {@code baton.connect-string}, {@code BATON_CONNECTSTRING}, ...). The
 * client is built only when {@code baton.connect-string} is set.
 */
@ConfigurationProperties(prefix = "baton")
public class BatonProperties {
  /**
   * The one store the application coordinates on: "zookeeper" (the client of baton.connect-string),
   * "redis" (the client of baton.redis.uri) or "jdbc" (the SQL client of baton.jdbc.url, or of the
   * application's DataSource). The other clients are then not built, and the one built is the
   * application's {@code dev.baton.Coordinator}. Unset: each of the ZooKeeper and Redis clients
   * whose settings are present is built; the SQL client only when named here.
   */
  private Backend backend;

  /** The ensemble, as host:port[,host:port...]. Setting it switches the ZooKeeper client on. */
  private String connectString;

  /** The session timeout to ask the ensemble for; the client's default (30 s) if unset. */
  private Duration sessionTimeout;

  /** How long start-up waits for the first connection; the client's default (15 s) if unset. */
  private Duration connectionTimeout;

  /** A path prefix every path of this client lives under, such as "/shop" for /shop/...; none if unset. */
  private String namespace;

  /** Start even while the ensemble is down, connecting in the background. */
  private boolean connectInBackground;

  private final Auth auth = new Auth();

  private final Tls tls = new Tls();

  private final LockRegistry lockRegistry = new LockRegistry();

  private final Shedlock shedlock = new Shedlock();

  private final Metrics metrics = new Metrics();
  private final Tracing tracing = new Tracing();

  public Backend getBackend() {
    return backend;
  }

  public void setBackend(Backend backend) {
    this.backend = backend;
  }

  /** The stores {@code baton.backend} can name. */
  public enum Backend {
    /** The ZooKeeper client, from {@code baton.connect-string}. */
    ZOOKEEPER,
    /** The Redis client, from {@code baton.redis.uri} (needs baton-redis on the classpath). */
    REDIS,
    /**
     * The SQL client (PostgreSQL, MySQL, MariaDB), from {@code baton.jdbc.url} or else the
     * application's {@code DataSource} (needs baton-jdbc on the classpath).
     */
    JDBC
  }

  public String getConnectString() {
    return connectString;
  }

  public void setConnectString(String connectString) {
    this.connectString = connectString;
  }

  public Duration getSessionTimeout() {
    return sessionTimeout;
  }

  public void setSessionTimeout(Duration sessionTimeout) {
    this.sessionTimeout = sessionTimeout;
  }

  public Duration getConnectionTimeout() {
    return connectionTimeout;
  }

  public void setConnectionTimeout(Duration connectionTimeout) {
    this.connectionTimeout = connectionTimeout;
  }

  public String getNamespace() {
    return namespace;
  }

  public void setNamespace(String namespace) {
    this.namespace = namespace;
  }

  public boolean isConnectInBackground() {
    return connectInBackground;
  }

  public void setConnectInBackground(boolean connectInBackground) {
    this.connectInBackground = connectInBackground;
  }

  public Auth getAuth() {
    return auth;
  }

  public Tls getTls() {
    return tls;
  }

  public LockRegistry getLockRegistry() {
    return lockRegistry;
  }

  public Shedlock getShedlock() {
    return shedlock;
  }

  public Metrics getMetrics() {
    return metrics;
  }

  public Tracing getTracing() {
    return tracing;
  }

  /** OpenTelemetry spans of the client's locks, made when baton-opentelemetry and an OpenTelemetry bean are present. */
  public static class Tracing {
    /** Whether to record spans of the client's lock waits and holds, lease losses and leadership terms. */
    private boolean enabled = true;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }
  }

  /** Micrometer meters of the ZooKeeper client, made when baton-micrometer and a MeterRegistry are present. */
  public static class Metrics {
    /** Whether to record the client's lock and session meters. */
    private boolean enabled = true;

    /** How many leading path segments a path tag keeps (/locks/sku-42 is /locks at 1). */
    private int pathDepth = 1;

    /** How many different path tags at most; later prefixes are tagged "other". */
    private int maxPathTags = 100;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public int getPathDepth() {
      return pathDepth;
    }

    public void setPathDepth(int pathDepth) {
      this.pathDepth = pathDepth;
    }

    public int getMaxPathTags() {
      return maxPathTags;
    }

    public void setMaxPathTags(int maxPathTags) {
      this.maxPathTags = maxPathTags;
    }
  }

  /** The ShedLock LockProvider, made when baton-shedlock is on the classpath. */
  public static class Shedlock {
    /** Whether to make a LockProvider bean. */
    private boolean enabled = true;

    /** The parent of the job locks: a path on ZooKeeper (default /shedlock), a key prefix on Redis (default shedlock:). */
    private String root;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public String getRoot() {
      return root;
    }

    public void setRoot(String root) {
      this.root = root;
    }
  }

  /** ZooKeeper digest authentication: both or neither. */
  public static class Auth {
    /** The digest user this client authenticates as. */
    private String user;

    /** The digest user's password. */
    private String password;

    public String getUser() {
      return user;
    }

    public void setUser(String user) {
      this.user = user;
    }

    public String getPassword() {
      return password;
    }

    public void setPassword(String password) {
      this.password = password;
    }
  }

  /** TLS to the ensemble: a trust store switches it on; a key store adds a client certificate. */
  public static class Tls {
    /** The trust store (PKCS12 or JKS) holding the servers' CA. */
    private Path trustStore;

    /** The trust store's password. */
    private String trustStorePassword;

    /** The key store with this client's certificate, for servers that ask for one. */
    private Path keyStore;

    /** The key store's password. */
    private String keyStorePassword;

    public Path getTrustStore() {
      return trustStore;
    }

    public void setTrustStore(Path trustStore) {
      this.trustStore = trustStore;
    }

    public String getTrustStorePassword() {
      return trustStorePassword;
    }

    public void setTrustStorePassword(String trustStorePassword) {
      this.trustStorePassword = trustStorePassword;
    }

    public Path getKeyStore() {
      return keyStore;
    }

    public void setKeyStore(Path keyStore) {
      this.keyStore = keyStore;
    }

    public String getKeyStorePassword() {
      return keyStorePassword;
    }

    public void setKeyStorePassword(String keyStorePassword) {
      this.keyStorePassword = keyStorePassword;
    }
  }

  /** The Spring Integration lock registry, made when Spring Integration is on the classpath. */
  public static class LockRegistry {
    /** Whether to make a LockRegistry bean. */
    private boolean enabled = true;

    /** Where lock keys live: "baton" (root/encoded-key) or "zookeeper-lock-registry" (Spring's own layout). */
    private LockRegistryLayout layout = LockRegistryLayout.BATON;

    /** The parent of the locks: a path on ZooKeeper, a key prefix on Redis. The layout's own default if unset. */
    private String root;

    /** Which client backs the registry when both are configured: "zookeeper" or "redis". */
    private LockRegistryBackend backend;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public LockRegistryLayout getLayout() {
      return layout;
    }

    public void setLayout(LockRegistryLayout layout) {
      this.layout = layout;
    }

    public String getRoot() {
      return root;
    }

    public void setRoot(String root) {
      this.root = root;
    }

    public LockRegistryBackend getBackend() {
      return backend;
    }

    public void setBackend(LockRegistryBackend backend) {
      this.backend = backend;
    }
  }

  /** Where a registry's lock keys live. */
  public enum LockRegistryLayout {
    /** {@code <root>/<key, URL-encoded>}; root {@code /locks} on ZooKeeper, {@code locks:} on Redis. */
    BATON,
    /** Spring Integration's own registries' layout: {@code /SpringIntegration-LockRegistry/<key>} on ZooKeeper. */
    ZOOKEEPER_LOCK_REGISTRY
  }

  /** The client a registry stands on. */
  public enum LockRegistryBackend {
    ZOOKEEPER,
    REDIS
  }
}
