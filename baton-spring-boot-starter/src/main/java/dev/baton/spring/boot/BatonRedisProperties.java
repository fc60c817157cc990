package dev.baton.spring.boot;

import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the Redis client that {@link BatonRedisAutoConfiguration} builds, under {@code
 * baton.redis.*}; built only when {@code baton-redis} is on the classpath and {@code
 * baton.redis.uri} is set. Unset values keep {@code RedisBaton}'s defaults.
 */
@ConfigurationProperties(prefix = "baton.redis")
public class BatonRedisProperties {
  /** The server: redis://[user:password@]host:port[/db], rediss:// for TLS, or redis-sentinel://host:26379/db#master. */
  private String uri;

  /** An ACL user name (Redis 6 and later). */
  private String user;

  /** The password (of the ACL user, or the server's requirepass). */
  private String password;

  /** Use TLS even if the URI says redis://. */
  private boolean tls;

  /** A trust store (PKCS12 or JKS) for the server's certificate. */
  private Path trustStore;

  /** The trust store's password. */
  private String trustStorePassword;

  /** How long start-up waits for the server (default 10 s). */
  private Duration connectTimeout;

  /** How long one command may take before it counts as failed (default 5 s). */
  private Duration commandTimeout;

  /** How long a lock lives without renewal: a crashed holder blocks others this long at most (default 30 s). */
  private Duration leaseTtl;

  /** How often a held lock's TTL is renewed (default a third of the TTL). */
  private Duration renewEvery;

  /** How long a waiter keeps its place in the queue without refreshing it (default 10 s). */
  private Duration waiterLease;

  public String getUri() {
    return uri;
  }

  public void setUri(String uri) {
    this.uri = uri;
  }

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

  public boolean isTls() {
    return tls;
  }

  public void setTls(boolean tls) {
    this.tls = tls;
  }

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

  public Duration getConnectTimeout() {
    return connectTimeout;
  }

  public void setConnectTimeout(Duration connectTimeout) {
    this.connectTimeout = connectTimeout;
  }

  public Duration getCommandTimeout() {
    return commandTimeout;
  }

  public void setCommandTimeout(Duration commandTimeout) {
    this.commandTimeout = commandTimeout;
  }

  public Duration getLeaseTtl() {
    return leaseTtl;
  }

  public void setLeaseTtl(Duration leaseTtl) {
    this.leaseTtl = leaseTtl;
  }

  public Duration getRenewEvery() {
    return renewEvery;
  }

  public void setRenewEvery(Duration renewEvery) {
    this.renewEvery = renewEvery;
  }

  public Duration getWaiterLease() {
    return waiterLease;
  }

  public void setWaiterLease(Duration waiterLease) {
    this.waiterLease = waiterLease;
  }
}
