package dev.baton.cli.command;

import dev.baton.BatonException;
import dev.baton.ConnectionException;
import dev.baton.cli.BatonCommand;
import dev.baton.jdbc.JdbcBaton;
import java.time.Duration;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The options of commands that can work on the lock table of a SQL database instead of
 * ZooKeeper. The password can come from the environment, to keep it out of the process list and
 * the shell's history.
 */
public final class JdbcConnectOptions {
  @Option(names = "--jdbc", paramLabel = "URL",
      description = "Use the lock table (baton_lock) of this database instead of ZooKeeper:"
          + " jdbc:postgresql://host:5432/db, jdbc:mariadb://host:3306/db. <path> is then the lock row's name.")
  String url;

  @Option(names = "--jdbc-user", paramLabel = "USER", defaultValue = "${env:BATON_JDBC_USER}",
      description = "The database user (or set BATON_JDBC_USER).")
  String user;

  @Option(names = "--jdbc-password", paramLabel = "PASSWORD", defaultValue = "${env:BATON_JDBC_PASSWORD}",
      description = "The database password (or set BATON_JDBC_PASSWORD).")
  String password;

  boolean given() {
    return url != null;
  }

  /**
   * Connects, turning a URL that is no JDBC URL into a usage error naming the option, and no
   * answer or a missing table into a failure naming the database (never its password).
   *
   * @param createSchema whether to create the lock table if it is missing (the commands that take a lock)
   */
  JdbcBaton open(Duration connectTimeout, boolean createSchema, CommandSpec spec) {
    checkUrl(url, spec);
    JdbcBaton.Builder builder = JdbcBaton.builder().url(url).connectTimeout(connectTimeout).createSchema(createSchema);
    if (user != null) {
      builder.user(user);
    }
    if (password != null) {
      builder.password(password);
    }
    try {
      return builder.build();
    } catch (ConnectionException e) {
      throw new CliException(BatonCommand.describe(e) + " (--connect-timeout waits longer)", e);
    } catch (BatonException | IllegalArgumentException e) {
      throw new CliException("Database " + redacted(url) + ": " + BatonCommand.describe(e), e);
    }
  }

  static void checkUrl(String url, CommandSpec spec) {
    if (!url.startsWith("jdbc:") || url.indexOf(':', "jdbc:".length()) < 0) {
      throw new ParameterException(spec.commandLine(), "--jdbc must be a JDBC URL such as"
          + " jdbc:postgresql://127.0.0.1:5432/app, was '" + redacted(url) + "'");
    }
  }

  /** The URL without its parameters and credentials, which may hold a password. */
  static String redacted(String url) {
    int q = url.indexOf('?');
    String base = q < 0 ? url : url.substring(0, q);
    return base.replaceAll("//[^/@]*@", "//");
  }
}
