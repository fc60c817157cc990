package dev.baton.cli;

import dev.baton.Baton;
import dev.baton.BatonException;
import dev.baton.ConnectionException;
import java.time.Duration;
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

  /** Connects, turning a bad connect string into a usage error and no answer into a failure. */
  Baton open(CommandSpec spec) {
    checkConnectString(connect, spec);
    try {
      return Baton.builder().connectString(connect).connectionTimeout(connectTimeout).build();
    } catch (ConnectionException e) {
      // Without a cause it is the timeout: nobody answered, which the options can fix.
      throw new CliException(e.getCause() != null ? BatonCommand.describe(e)
          : "No ZooKeeper server answered at " + connect + " within " + DemoReport.seconds(connectTimeout)
              + "; is it running? ('baton server' starts one; --connect-timeout waits longer)", e);
    } catch (BatonException e) {
      throw new CliException(BatonCommand.describe(e), e);
    }
  }

  /**
   * Rejects what cannot be a list of {@code host[:port]}, naming the option. The client library's
   * own message speaks of its API (a chroot belongs in {@code namespace(...)}), not of the option.
   */
  static void checkConnectString(String connect, CommandSpec spec) {
    for (String server : connect.split(",", -1)) {
      String s = server.trim();
      int colon = s.lastIndexOf(':');
      String port = colon < 0 ? "2181" : s.substring(colon + 1);
      if (s.isEmpty() || s.contains("/") || colon == 0 || !port.matches("\\d{1,5}")
          || Integer.parseInt(port) > 65535) {
        throw new ParameterException(spec.commandLine(),
            "--connect must be host:port[,host:port...] (no path), was '" + connect + "'");
      }
    }
  }
}
