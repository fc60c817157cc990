package dev.baton;

/**
 * Checks a connect string's form ({@code host[:port][,host[:port]...]}) where it is set, so a
 * typo is reported as such rather than as an ensemble that cannot be reached. {@link
 * Baton.Builder#connectString} applies it; tools may too, before they connect.
 */
public final class ConnectStrings {
  private ConnectStrings() {}

  /** Returns {@code connectString}, or throws naming it and the entry at fault. */
  public static String validate(String connectString) {
    for (String raw : connectString.split(",", -1)) {
      String entry = raw.trim();
      if (entry.isEmpty()) {
        throw invalid(connectString, "an empty host entry");
      }
      String port = port(entry);
      if (port != null) {
        int number;
        try {
          number = Integer.parseInt(port);
        } catch (NumberFormatException e) {
          throw invalid(connectString, "port '" + port + "' of '" + entry + "' is not a number");
        }
        if (number < 1 || number > 65535) {
          throw invalid(connectString, "port " + number + " of '" + entry + "' is not between 1 and 65535");
        }
      }
      if (host(entry).isEmpty()) {
        throw invalid(connectString, "'" + entry + "' has no host");
      }
    }
    return connectString;
  }

  /** The host of one entry: {@code zk1:2181 -> zk1}, {@code [::1]:2181 -> ::1}. */
  public static String host(String entry) {
    if (entry.startsWith("[")) {
      int close = entry.indexOf(']');
      return close < 0 ? entry.substring(1) : entry.substring(1, close);
    }
    int colon = entry.lastIndexOf(':');
    return colon < 0 ? entry : entry.substring(0, colon);
  }

  private static String port(String entry) {
    int colon = entry.startsWith("[") ? entry.indexOf(':', Math.max(entry.indexOf(']'), 0)) : entry.lastIndexOf(':');
    return colon < 0 ? null : entry.substring(colon + 1);
  }

  private static IllegalArgumentException invalid(String connectString, String why) {
    return new IllegalArgumentException(
        "connectString '" + connectString + "' is not of the form host:port[,host:port...]: " + why);
  }
}
