package dev.baton.cli.command;

import dev.baton.Baton;
import dev.baton.BatonException;
import dev.baton.ConnectStrings;
import dev.baton.ConnectionException;
import dev.baton.cli.BatonCommand;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The options of commands that talk to an ensemble: where it is, how long to wait, and who we are
 * (ZooKeeper digest authentication, TLS). Secrets can come from the environment, so that they
 * stay out of the process list and the shell's history.
 */
public final class ConnectOptions {
  /** Where zkCli and etcdctl look when told nothing. */
  static final String DEFAULT_CONNECT = "localhost:2181";

  @Option(names = "--connect", paramLabel = "HOST:PORT[,...]", defaultValue = "${env:BATON_CONNECT}",
      description = "The ZooKeeper ensemble, e.g. zk1:2181,zk2:2181,zk3:2181 (or set BATON_CONNECT,"
          + " or connect=... in ~/.baton/config). Default: " + DEFAULT_CONNECT + ", said on stderr.")
  String connect;

  @Option(names = "--connect-timeout", defaultValue = "10s", paramLabel = "DURATION",
      converter = DurationConverter.class,
      description = "How long to wait for a server to answer. Default: ${DEFAULT-VALUE}.")
  public Duration connectTimeout;

  @Option(names = "--session-timeout", defaultValue = "30s", paramLabel = "DURATION",
      converter = DurationConverter.class,
      description = "How long the ensemble keeps this client's session, and so its locks, after it"
          + " stops hearing from it; the servers hold it between their own bounds (by default 2 and"
          + " 20 ticks). Default: ${DEFAULT-VALUE}.")
  Duration sessionTimeout;

  /**
   * Set by the commands that hold something for as long as they run (lock hold, election join):
   * they say the session timeout the ensemble granted when it differs from the one asked, as it
   * is how long their lock or leadership outlives them. The others say it only when asked for one.
   */
  boolean holds;

  @Option(names = "--digest", paramLabel = "USER:PASSWORD", defaultValue = "${env:BATON_DIGEST}",
      description = "Authenticate with ZooKeeper's digest scheme (or set BATON_DIGEST).")
  String digest;

  @Option(names = "--tls-truststore", paramLabel = "FILE",
      description = "Connect with TLS, trusting the servers' certificates in this PKCS12 or JKS store"
          + " (the servers' secureClientPort).")
  Path trustStore;

  @Option(names = "--tls-truststore-password", paramLabel = "PASSWORD",
      defaultValue = "${env:BATON_TLS_TRUSTSTORE_PASSWORD}",
      description = "The trust store's password (or set BATON_TLS_TRUSTSTORE_PASSWORD).")
  String trustStorePassword;

  @Option(names = "--tls-keystore", paramLabel = "FILE",
      description = "The client certificate to present, for servers that require one (needs --tls-truststore).")
  Path keyStore;

  @Option(names = "--tls-keystore-password", paramLabel = "PASSWORD",
      defaultValue = "${env:BATON_TLS_KEYSTORE_PASSWORD}",
      description = "The key store's password (or set BATON_TLS_KEYSTORE_PASSWORD).")
  String keyStorePassword;

  /**
   * Connects, turning a bad connect string or timeout into a usage error naming the option, and
   * no answer into a failure naming the address. Everything the options alone can tell is checked
   * before anything is sent.
   */
  public Baton open(CommandSpec spec) {
    if (connect == null) {
      connect = ConfigFile.value("connect").orElse(null);
    }
    if (connect == null) {
      connect = DEFAULT_CONNECT;
      say(spec, "no --connect, BATON_CONNECT or connect= in " + ConfigFile.location() + ": using " + DEFAULT_CONNECT);
    }
    checkConnectString(connect, spec);
    checkConnectTimeout(connectTimeout, spec);
    if (sessionTimeout.isZero() || sessionTimeout.toMillis() > Integer.MAX_VALUE) {
      throw new ParameterException(spec.commandLine(), "--session-timeout must be more than zero and"
          + " at most " + Integer.MAX_VALUE + " ms (ZooKeeper's limit), was " + sessionTimeout.toMillis() + " ms");
    }
    Baton.Builder builder = Baton.builder().connectString(connect).connectionTimeout(connectTimeout)
        .sessionTimeout(sessionTimeout);
    identity(builder, spec);
    PortProbe.refusedEverywhere(connect, connectTimeout).ifPresent(refused -> {
      throw new CliException("Nothing listens at " + connect + " (" + refused + "); is ZooKeeper running there?"
          + " ('baton server' starts one)");
    });
    long start = System.nanoTime();
    try {
      Baton baton = builder.build();
      sayGrantedTimeout(baton, spec);
      return baton;
    } catch (ConnectionException e) {
      // Without a cause it is the timeout: nobody answered, which the options can fix.
      Duration waited = Duration.ofNanos(System.nanoTime() - start);
      throw new CliException(e.getCause() != null ? BatonCommand.describe(e) : noAnswer(connect, waited)
          + (trustStore == null ? "" : ". With TLS, check that these are the servers' secure ports, that"
              + " --tls-truststore holds their certificate, and whether they require --tls-keystore"), e);
    } catch (BatonException e) {
      throw new CliException(BatonCommand.describe(e), e);
    }
  }

  private void sayGrantedTimeout(Baton baton, CommandSpec spec) {
    Duration granted = baton.sessionTimeout();
    boolean asked = spec.commandLine().getParseResult() != null
        && spec.commandLine().getParseResult().hasMatchedOption("--session-timeout");
    if (!granted.equals(sessionTimeout) && (holds || asked)) {
      say(spec, "the ensemble granted a session timeout of " + DurationConverter.seconds(granted) + ", not the "
          + DurationConverter.seconds(sessionTimeout) + " asked (its servers' minSessionTimeout/maxSessionTimeout)");
    }
  }

  /** One line on stderr, named for the command, that is no error. */
  private static void say(CommandSpec spec, String message) {
    spec.commandLine().getErr().println(spec.qualifiedName() + ": " + message);
    spec.commandLine().getErr().flush();
  }

  /** Adds the digest and TLS options to the builder, each checked before anything is sent. */
  private void identity(Baton.Builder builder, CommandSpec spec) {
    if (digest != null) {
      int colon = digest.indexOf(':');
      if (colon <= 0 || colon == digest.length() - 1) {
        throw new ParameterException(spec.commandLine(),
            "--digest must be USER:PASSWORD, both non-empty (was " + (colon < 0 ? "without ':'" : "'"
                + (colon == 0 ? "" : digest.substring(0, colon)) + ":...'") + ")");
      }
      builder.digestAuth(digest.substring(0, colon), digest.substring(colon + 1));
    }
    if (keyStore != null && trustStore == null) {
      throw new ParameterException(spec.commandLine(),
          "--tls-keystore needs --tls-truststore: a client certificate is only sent over TLS");
    }
    if (trustStore != null) {
      builder.tls(readable(trustStore, "--tls-truststore", spec),
          password(trustStorePassword, "--tls-truststore-password", "BATON_TLS_TRUSTSTORE_PASSWORD", spec));
    }
    if (keyStore != null) {
      builder.tlsClientCertificate(readable(keyStore, "--tls-keystore", spec),
          password(keyStorePassword, "--tls-keystore-password", "BATON_TLS_KEYSTORE_PASSWORD", spec));
    }
  }

  private static Path readable(Path file, String option, CommandSpec spec) {
    if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
      throw new ParameterException(spec.commandLine(),
          option + " '" + file + "' is not a readable file");
    }
    return file;
  }

  private static String password(String password, String option, String variable, CommandSpec spec) {
    if (password == null) {
      throw new ParameterException(spec.commandLine(),
          option + " is missing: give it, or set " + variable);
    }
    return password;
  }

  /** What to say when no server answered: the address, the time really waited, and what may fix it. */
  public static String noAnswer(String connect, Duration waited) {
    return "No ZooKeeper server answered at " + connect + " within " + DurationConverter.seconds(waited)
        + "; is it running? ('baton server' starts one; --connect-timeout waits longer)";
  }

  public static void checkConnectTimeout(Duration timeout, CommandSpec spec) {
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
  public static void checkConnectString(String connect, CommandSpec spec) {
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
