package dev.baton.jdbc.contract;

import dev.baton.testkit.contract.Feature;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the chaos run reads and deletes in the SQL backend's tables, straight on a connection of the
 * fixture's, for PostgreSQL and MySQL alike: the statements differ only in how they read the
 * database's clock ({@code now} here), which judges every expiry.
 */
final class SqlRecords {
  private SqlRecords() {}

  /** The table of a read-write lock's or a semaphore's rows: one row per holder or waiter, and a header row. */
  private static String table(Feature feature) {
    return switch (feature) {
      case READ_WRITE_LOCK -> "baton_rwlock";
      case SEMAPHORE -> "baton_semaphore";
      default -> throw new IllegalArgumentException("a " + feature.words() + " has no rows of holders");
    };
  }

  /**
   * Deletes the row of one holder of the read-write lock or semaphore {@code name} (the one granted
   * first), as an operator freeing it by hand would; the header row, the fencing counter, stays.
   *
   * @return whether a holder's row was there
   */
  static boolean deleteHolderRow(Connection c, Feature feature, String name) throws SQLException {
    String owner;
    try (PreparedStatement ps = c.prepareStatement("SELECT owner FROM " + table(feature)
        + " WHERE name = ? AND owner <> '' AND granted ORDER BY acquired_at")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return false;
        }
        owner = rs.getString(1);
      }
    }
    try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table(feature) + " WHERE name = ? AND owner = ?")) {
      ps.setString(1, name);
      ps.setString(2, owner);
      return ps.executeUpdate() > 0;
    }
  }

  /**
   * The claims still in force of the recipes named: a mutex's or leader latch's row that names an
   * owner and has not expired, and a read-write lock's or semaphore's rows of holders or waiters that
   * have not expired. Rows kept for good (a free lock's row, a header row: fencing counters) are not
   * claims.
   */
  static List<String> leftovers(Connection c, String now, Map<Feature, String> recipes) throws SQLException {
    List<String> left = new ArrayList<>();
    for (Map.Entry<Feature, String> recipe : recipes.entrySet()) {
      String sql = switch (recipe.getKey()) {
        case MUTEX, LEADER_LATCH -> "SELECT 'baton_lock', owner FROM baton_lock WHERE name = ? AND owner IS NOT NULL"
            + " AND expires_at > " + now;
        case READ_WRITE_LOCK, SEMAPHORE -> "SELECT '" + table(recipe.getKey()) + "', owner FROM " + table(recipe.getKey())
            + " WHERE name = ? AND owner <> '' AND expires_at > " + now;
        default -> throw new IllegalArgumentException("no leftovers to look for of a " + recipe.getKey().words());
      };
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setString(1, recipe.getValue());
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            left.add(rs.getString(1) + " row " + recipe.getValue() + " owned by " + rs.getString(2));
          }
        }
      }
    }
    return left;
  }
}
