package dev.baton.cli;

import dev.baton.Baton;
import dev.baton.BatonException;
import dev.baton.ConnectionException;
import dev.baton.internal.ConnectStrings;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** The {@code --connect} and {@code --connect-timeout} options of commands that talk to an ensemble. */
final class ConnectOptions {
  @Option(names = "--connect", required = true, paramLabel = "HOST:PORT[,...]",
      description = "The ZooKeeper ensemble, e.g. zk1:2181,zk2:2181,zk3:2181.")
  String connect;

  @Option(names = "--connect-timeout", defaultValue = "10s", paramLabel = "DURATION",
      converter = DurationConverter.class,
      description = "How long to wait for a server to answer. Default: ${DEFAULT-VALUE}.")
  Duration connectTimeout;

  /**
   * Connects, turning a bad connect string or timeout into a usage error naming the option, and
   * no answer into a failure naming the address. Everything the options alone can tell is checked
   * before anything is sent.
   */
  Baton open(CommandSpec spec) {
    checkConnectString(connect, spec);
    checkConnectTimeout(connectTimeout, spec);
    try {
      return Baton.builder().connectString(connect).connectionTimeout(connectTimeout).build();
    } catch (ConnectionException e) {
      // Without a cause it is the timeout: nobody answered, which the options can fix.
      throw new CliException(e.getCause() != null ? BatonCommand.describe(e) : noAnswer(connect, connectTimeout), e);
    } catch (BatonException e) {
      throw new CliException(BatonCommand.describe(e), e);
    }
  }

  /** What to say when no server answered: the address, the wait, and what may fix it. */
  static String noAnswer(String connect, Duration waited) {
    return "No ZooKeeper server answered at " + connect + " within " + DemoReport.seconds(waited)
        + "; is it running? ('baton server' starts one; --connect-timeout waits longer)";
  }

  static void checkConnectTimeout(Duration timeout, CommandSpec spec) {
    if (timeout.isZero()) {
      throw new ParameterException(spec.commandLine(),
          "--connect-timeout must be more than zero: it is how long to wait for a server to answer");
    }
  }

  /**
   * Rejects what cannot be a list of {@code host[:port]}, naming the option and the entry at
   * fault, and a list none of whose hosts resolves (a typo), which would otherwise only show as
   * a server that never answers. The client library's own message speaks of its API (a chroot
   * belongs in {@code namespace(...)}), not of the option.
   */
  static void checkConnectString(String connect, CommandSpec spec) {
    if (connect.contains("/")) {
      throw new ParameterException(spec.commandLine(),
          "--connect must be host:port[,host:port...] (no path), was '" + connect + "'");
    }
    try {
      ConnectStrings.validate(connect);
    } catch (IllegalArgumentException e) {
      // The library's message names its own argument; keep only the reason.
      String marker = "host:port[,host:port...]: ";
      int at = e.getMessage().indexOf(marker, connect.length());
      String why = at < 0 ? e.getMessage() : e.getMessage().substring(at + marker.length());
      throw new ParameterException(spec.commandLine(),
          "--connect must be host:port[,host:port...], was '" + connect + "': " + why);
    }
    List<String> unresolved = new ArrayList<>();
    String[] entries = connect.split(",");
    for (String entry : entries) {
      String host = ConnectStrings.host(entry.trim());
      try {
        InetAddress.getByName(host);
      } catch (UnknownHostException e) {
        unresolved.add(host);
      }
    }
    if (unresolved.size() == entries.length) {
      throw new ParameterException(spec.commandLine(), "--connect names no host that can be found: cannot"
          + " resolve " + String.join(", ", unresolved) + " (was '" + connect + "')");
    }
  }
}
