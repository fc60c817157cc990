package dev.baton.spring.boot;

import dev.baton.jdbc.JdbcBaton;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * A {@link JdbcBaton} when {@code baton.backend=jdbc}, {@code baton-jdbc} is on the classpath and
 * the application defines no {@code JdbcBaton} of its own: on a pool of its own when {@code
 * baton.jdbc.url} is set, else on the application's one {@code DataSource} (which it borrows and
 * never closes). Only on that explicit choice: nearly every application has a DataSource, and a
 * lock table should not appear in a database because a jar was on the classpath.
 *
 * <p>Start-up connects and checks the lock table: it fails with {@code ConnectionException} naming
 * the URL if no connection comes within the connect timeout, and with {@code JdbcSchemaException}
 * naming a missing table and the DDL to run (or set {@code baton.jdbc.create-schema=true}). The
 * client is closed with the context, freeing the rows of the leases it holds.
 */
@AutoConfiguration(afterName = {
    // Boot 3's and Boot 4's places for it: the client borrows the DataSource that one makes.
    "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
    "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"})
@ConditionalOnClass(JdbcBaton.class)
@ConditionalOnProperty(prefix = "baton", name = "backend", havingValue = "jdbc")
@EnableConfigurationProperties(BatonJdbcProperties.class)
public class BatonJdbcAutoConfiguration {

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public JdbcBaton jdbcBaton(BatonJdbcProperties properties, ObjectProvider<DataSource> dataSources,
      ObjectProvider<JdbcBatonBuilderCustomizer> customizers) {
    JdbcBaton.Builder builder = JdbcBaton.builder();
    if (properties.getUrl() != null) {
      builder.url(properties.getUrl()).user(properties.getUser()).password(properties.getPassword());
    } else {
      DataSource dataSource = dataSources.getIfUnique();
      if (dataSource == null) {
        throw new IllegalStateException("baton.backend=jdbc needs baton.jdbc.url (jdbc:postgresql://..."
            + " or jdbc:mariadb://...) or exactly one DataSource bean (spring.datasource.url); found "
            + (dataSources.stream().findAny().isPresent() ? "several DataSource beans" : "neither"));
      }
      builder.dataSource(dataSource);
    }
    if (properties.getLeaseTtl() != null) {
      builder.leaseTtl(properties.getLeaseTtl());
    }
    if (properties.getRenewEvery() != null) {
      builder.renewEvery(properties.getRenewEvery());
    }
    if (properties.getConnectTimeout() != null) {
      builder.connectTimeout(properties.getConnectTimeout());
    }
    if (properties.getTablePrefix() != null) {
      builder.tablePrefix(properties.getTablePrefix());
    }
    if (properties.getShedlockTable() != null) {
      builder.shedLockTable(properties.getShedlockTable());
    }
    if (properties.getOwner() != null) {
      builder.owner(properties.getOwner());
    }
    builder.createSchema(properties.isCreateSchema());
    customizers.orderedStream().forEach(c -> c.customize(builder));
    return builder.build();
  }
}
