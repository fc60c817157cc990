package dev.baton.cli.console;

import dev.baton.Baton;
import dev.baton.BatonException;
import dev.baton.cli.BatonCommand;
import dev.baton.cli.command.CliException;
import dev.baton.cli.command.ConnectOptions;
import dev.baton.cli.command.DurationConverter;
import dev.baton.cli.command.LockCommand;
import dev.baton.cli.command.RedisConnectOptions;
import dev.baton.cli.command.UntilStopped;
import dev.baton.redis.RedisBaton;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import javax.net.ssl.SSLContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code baton console}: a web page that shows, live, who holds what. */
@Command(name = "console", mixinStandardHelpOptions = true,
    description = {"Serves a web page (and its JSON API under /api) that shows, live, every lock below --root with"
        + " its holders and waiters in line, every election with its leader, every service with its instances,"
        + " and the connection's state. It stands on one watch of the tree: nothing is polled. With"
        + " --allow-writes operators can revoke a lock (cooperatively) from the page, with this client's own"
        + " ZooKeeper credentials. Runs until Ctrl-C.",
        "With --redis it shows the mutexes, read-write locks and semaphores of a Redis server instead (Baton's"
        + " and Redisson's layouts): holders, fencing tokens, time left on the lock, waiters; read again every"
        + " second, read only.",
        "It answers only to allowed Host names, refuses API requests from other sites' pages (Origin), and,"
        + " with a token, API requests without it. Listening beyond loopback needs a token (--token-file or"
        + " --generate-token); --https-keystore serves HTTPS."})
public final class ConsoleCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin ConnectOptions connection;
  @Mixin ConsoleExposure exposure;

  @Option(names = "--port", defaultValue = "8080", paramLabel = "PORT",
      description = "The page's port; 0 picks a free one. Default: ${DEFAULT-VALUE}.")
  int port;

  @Option(names = "--host", defaultValue = "127.0.0.1", paramLabel = "ADDRESS",
      description = "Address to listen on (0.0.0.0 for every interface, which needs --token-file or"
          + " --generate-token). Default: ${DEFAULT-VALUE}.")
  String host;

  @Option(names = "--root", defaultValue = "/", paramLabel = "PATH",
      description = "Show what lies below this path. Default: ${DEFAULT-VALUE}.")
  String root;

  @Option(names = "--config", paramLabel = "PREFIX",
      description = "Show the keys of the config center at PREFIX (repeat for more): values, versions, gray"
          + " releases and, on demand, history; with --allow-writes, rollback, promote and abort.")
  java.util.List<String> configPrefixes = new java.util.ArrayList<>();

  @Option(names = "--allow-writes",
      description = "Let the page revoke locks, roll config keys back and promote or abort gray releases."
          + " Without it every write is refused and nothing is written.")
  boolean allowWrites;

  @Option(names = "--redis", paramLabel = "URI",
      description = "Show the Baton locks of this Redis instead of a ZooKeeper tree: redis://host:port,"
          + " rediss://host:port (TLS), redis-sentinel://host:port#master, redis-cluster://host1:port1,host2:port2."
          + " Read only.")
  String redisUri;

  @Option(names = "--redis-user", paramLabel = "USER", description = "With --redis: the Redis ACL user.")
  String redisUser;

  @Option(names = "--redis-password", paramLabel = "PASSWORD", defaultValue = "${env:BATON_REDIS_PASSWORD}",
      description = "With --redis: the Redis password (or set BATON_REDIS_PASSWORD).")
  String redisPassword;

  /** Released by the shutdown hook; tests release it to stop the console. */
  public final CountDownLatch stop = new CountDownLatch(1);

  @Override
  public Integer call() throws InterruptedException, java.net.UnknownHostException {
    if (port < 0 || port > 65535) {
      throw new ParameterException(spec.commandLine(), "--port must be between 0 and 65535, was " + port);
    }
    if (!root.equals("/")) {
      LockCommand.checkPath(root, "--root", "console root", spec);
    }
    configPrefixes.forEach(prefix -> LockCommand.checkPath(prefix, "--config", "config prefix", spec));
    if (redisUri != null) {
      checkRedisOptions();
    } else if (redisUser != null) {
      throw new ParameterException(spec.commandLine(), "--redis-user needs --redis URI");
    }
    exposure.check(host, spec);
    SSLContext tls = exposure.tls(spec);
    PrintWriter out = spec.commandLine().getOut();
    if (redisUri != null) {
      return onRedis(tls, out);
    }
    try (Baton baton = connection.open(spec)) {
      ConsoleServer server;
      try {
        ConsoleConfig config = configPrefixes.isEmpty() ? null : new ConsoleConfig(baton, configPrefixes);
        server = new ConsoleServer(baton, new ConsoleModel(baton, root), config, allowWrites,
            new InetSocketAddress(host, port), exposure.access(host), tls);
      } catch (IOException e) {
        throw new CliException("Cannot listen on " + host + ":" + port + " (" + e.getMessage()
            + "); choose another port with --port");
      }
      try (server) {
        server.start(connection.connectTimeout);
        out.println("Baton console at " + address(server.port(), tls != null) + " showing " + root + " of "
            + baton.connectString() + (allowWrites ? " (writes allowed)" : " (read only; --allow-writes to revoke)"));
        if (exposure.token() != null && !exposure.tokenGenerated()) {
          out.println("Open it with the token of --token-file: " + address(server.port(), tls != null) + "#token=TOKEN");
        }
        out.println("Press Ctrl-C to stop.");
        out.flush();
        UntilStopped.await(stop, "baton-console");
      }
    }
    return BatonCommand.OK;
  }

  /** What a console of Redis does not take: it shows locks only, and writes nothing. */
  private void checkRedisOptions() {
    var parsed = spec.commandLine().getParseResult();
    for (String zookeeperOnly : java.util.List.of("--connect", "--root", "--config", "--allow-writes", "--digest",
        "--session-timeout")) {
      if (parsed.hasMatchedOption(zookeeperOnly)) {
        throw new ParameterException(spec.commandLine(), zookeeperOnly + " is for a ZooKeeper console; with --redis"
            + " the console shows the Redis server's locks, read only");
      }
    }
    RedisConnectOptions.checkUri(redisUri, "--redis", spec);
  }

  private Integer onRedis(SSLContext tls, PrintWriter out) throws InterruptedException, java.net.UnknownHostException {
    Duration timeout = connection.connectTimeout;
    RedisBaton.Builder builder = RedisConnectOptions.builder(redisUri, redisUser, redisPassword, timeout);
    RedisBaton baton;
    try {
      baton = builder.build();
    } catch (BatonException | IllegalArgumentException e) {
      throw new CliException("No Redis server answered at " + redisUri + " within "
          + DurationConverter.seconds(timeout) + " (" + BatonCommand.describe(e) + ")", e);
    }
    try (baton) {
      String shown = shown(redisUri);
      ConsoleServer server;
      try {
        RedisConsoleModel model = RedisConsoleModel.open(baton, redisUri, redisUser, redisPassword, timeout);
        server = new ConsoleServer(model, new InetSocketAddress(host, port), exposure.access(host), tls);
      } catch (IOException e) {
        throw new CliException("Cannot listen on " + host + ":" + port + " (" + e.getMessage()
            + "); choose another port with --port");
      } catch (RuntimeException e) {
        throw new CliException("Redis at " + shown + ": " + BatonCommand.describe(e), e);
      }
      try (server) {
        server.start(timeout);
        out.println("Baton console at " + address(server.port(), tls != null) + " showing the locks of " + shown
            + " (read only)");
        if (exposure.token() != null && !exposure.tokenGenerated()) {
          out.println("Open it with the token of --token-file: " + address(server.port(), tls != null) + "#token=TOKEN");
        }
        out.println("Press Ctrl-C to stop.");
        out.flush();
        UntilStopped.await(stop, "baton-console");
      }
    }
    return BatonCommand.OK;
  }

  /** The URI as printed: without a password it may carry (redis://user:password@host). */
  static String shown(String uri) {
    return uri.replaceAll("//[^/@]*@", "//");
  }

  /** The page's address: a name the console answers to, and a generated token, which nobody else knows. */
  private String address(int listening, boolean https) throws java.net.UnknownHostException {
    String shown = java.net.InetAddress.getByName(host).isAnyLocalAddress()
        ? (exposure.allowedHosts.isEmpty() ? "localhost" : exposure.allowedHosts.get(0))
        : host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    return (https ? "https" : "http") + "://" + shown + ":" + listening + "/"
        + (exposure.tokenGenerated() ? "#token=" + exposure.token() : "");
  }
}
