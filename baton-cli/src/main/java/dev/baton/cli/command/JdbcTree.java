package dev.baton.cli.command;

import dev.baton.jdbc.JdbcBaton;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * What {@code baton tree --jdbc} lists: the rows of the lock table, one per lock name ever taken
 * (a row is kept after release: it is the lock's fencing counter), each with its holder as
 * baton-jdbc reads it (a row whose lease expired counts as free).
 */
final class JdbcTree {
  private JdbcTree() {}

  /** One row: the lock's name, and its holder or that it is free with the last token granted. */
  record Row(String name, String detail) {}

  static List<Row> list(JdbcBaton baton, JdbcConnectOptions options, int timeoutSeconds, String pattern) {
    Pattern wanted = RedisTree.glob(pattern);
    Properties credentials = new Properties();
    if (options.user != null) {
      credentials.setProperty("user", options.user);
    }
    if (options.password != null) {
      credentials.setProperty("password", options.password);
    }
    List<String[]> names = new ArrayList<>();
    DriverManager.setLoginTimeout(timeoutSeconds);
    // The table's name is the client's own (prefix included), a plain SQL name it checked.
    try (Connection c = DriverManager.getConnection(options.url, credentials);
        PreparedStatement s = c.prepareStatement("SELECT name, token FROM " + baton.table() + " ORDER BY name")) {
      s.setQueryTimeout(timeoutSeconds);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          names.add(new String[] {rs.getString(1), Long.toString(rs.getLong(2))});
        }
      }
    } catch (SQLException e) {
      throw new CliException("Could not read the lock table " + baton.table() + " of "
          + JdbcConnectOptions.redacted(options.url) + ": " + e.getMessage(), e);
    }
    List<Row> rows = new ArrayList<>();
    for (String[] row : names) {
      if (wanted.matcher(row[0]).matches()) {
        String detail = baton.mutex(row[0]).holder().map(h -> "held by " + RedisTree.owner(h))
            .orElse("free (last token " + row[1] + ")");
        rows.add(new Row(row[0], detail));
      }
    }
    return rows;
  }
}
