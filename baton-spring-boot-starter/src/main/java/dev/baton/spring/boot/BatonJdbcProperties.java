package dev.baton.spring.boot;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the SQL client that {@link BatonJdbcAutoConfiguration} builds when {@code
 * baton.backend=jdbc}, under {@code baton.jdbc.*}. Without {@code baton.jdbc.url} the client
 * borrows connections from the application's {@code DataSource} (Spring Boot's from {@code
 * spring.datasource.*}); unset durations keep the client's defaults.
 */
@ConfigurationProperties(prefix = "baton.jdbc")
public class BatonJdbcProperties {
  /**
   * A JDBC URL (jdbc:postgresql://..., jdbc:mariadb://..., jdbc:mysql://...) for a pool of the
   * client's own (HikariCP, which must be on the classpath); unset: the application's DataSource.
   */
  private String url;

  /** The user for baton.jdbc.url. */
  private String user;

  /** The password for baton.jdbc.url. */
  private String password;

  /** How long a lease's row lives without renewal, by the database's clock; the client's default (30 s) if unset. */
  private Duration leaseTtl;

  /** How often a held lease is renewed; a third of the lease TTL if unset. */
  private Duration renewEvery;

  /** How long start-up waits for a first connection of baton.jdbc.url's pool; the client's default (10 s) if unset. */
  private Duration connectTimeout;

  /** Create the lock tables (CREATE TABLE IF NOT EXISTS) at start-up, for development; off by default. */
  private boolean createSchema;

  /** The lock tables are named <prefix>lock, <prefix>fence, ...: "baton_" if unset; "schema.prefix_" names a schema. */
  private String tablePrefix;

  /**
   * Keep mutexes in ShedLock's table of this name (name, lock_until, locked_at, locked_by), so that
   * they and ShedLock's JdbcTemplateLockProvider exclude each other on the same names. PostgreSQL only.
   */
  private String shedlockTable;

  /** What lock rows name as the holder's host; the host name if unset. */
  private String owner;

  public String getUrl() {
    return url;
  }

  public void setUrl(String url) {
    this.url = url;
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

  public Duration getConnectTimeout() {
    return connectTimeout;
  }

  public void setConnectTimeout(Duration connectTimeout) {
    this.connectTimeout = connectTimeout;
  }

  public boolean isCreateSchema() {
    return createSchema;
  }

  public void setCreateSchema(boolean createSchema) {
    this.createSchema = createSchema;
  }

  public String getTablePrefix() {
    return tablePrefix;
  }

  public void setTablePrefix(String tablePrefix) {
    this.tablePrefix = tablePrefix;
  }

  public String getShedlockTable() {
    return shedlockTable;
  }

  public void setShedlockTable(String shedlockTable) {
    this.shedlockTable = shedlockTable;
  }

  public String getOwner() {
    return owner;
  }

  public void setOwner(String owner) {
    this.owner = owner;
  }
}
