package dev.baton.cli.command;

import dev.baton.BatonException;
import dev.baton.ConnectionException;
import dev.baton.cli.BatonCommand;
import dev.baton.redis.RedisBaton;
import dev.baton.redis.RedisLockLayout;
import dev.baton.redis.RedisMutexOptions;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.Locale;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The options of commands that can work on Redis instead of ZooKeeper (chosen in {@link StoreOptions}). The password can
 * come from the environment, to keep it out of the process list and the shell's history.
 */
public final class RedisConnectOptions {
  @Option(names = "--redis", paramLabel = "URI",
      description = "Use this Redis instead of ZooKeeper: redis://host:port,"
          + " rediss://host:port (TLS), redis-sentinel://host:port#master, redis-cluster://host1:port1,host2:port2."
          + " <path> is then the recipe's name (its key).")
  String uri;

  @Option(names = "--redis-user", paramLabel = "USER", description = "The Redis ACL user (Redis 6 and later).")
  String user;

  @Option(names = "--redis-password", paramLabel = "PASSWORD", defaultValue = "${env:BATON_REDIS_PASSWORD}",
      description = "The Redis password (or set BATON_REDIS_PASSWORD).")
  String password;

  @Option(names = "--redis-layout", paramLabel = "LAYOUT", defaultValue = "plain",
      description = "The lock's key layout: plain (SET NX PX, the default) or redisson (Redisson's RLock).")
  String layout;

  public static boolean isCluster(String uri) {
    return uri.startsWith("redis-cluster://") || uri.startsWith("rediss-cluster://");
  }

  boolean given() {
    return uri != null;
  }

  /** Connects, turning a bad URI into a usage error naming the option and no answer into a failure naming the address. */
  RedisBaton open(Duration connectTimeout, CommandSpec spec) {
    checkUri(uri, "--redis", spec);
    RedisBaton.Builder builder = builder(uri, user, password, connectTimeout);
    long start = System.nanoTime();
    try {
      return builder.build();
    } catch (ConnectionException e) {
      // The time really waited: a refused port fails long before the timeout.
      Duration waited = Duration.ofNanos(System.nanoTime() - start);
      throw new CliException("No Redis server answered at " + uri + " within " + DurationConverter.seconds(waited)
          + (waited.compareTo(connectTimeout) < 0 ? " (" + BatonCommand.describe(e.getCause() != null ? e.getCause() : e)
              + ")" : "") + "; is it running? (--connect-timeout waits longer)", e);
    } catch (BatonException | IllegalArgumentException e) {
      throw new CliException("Redis at " + uri + ": " + BatonCommand.describe(e), e);
    }
  }

  /** A client of {@code uri}, logged in as {@code user} with {@code password} (either may be null). */
  public static RedisBaton.Builder builder(String uri, String user, String password, Duration connectTimeout) {
    RedisBaton.Builder builder = RedisBaton.builder().uri(uri).connectTimeout(connectTimeout);
    if (user != null) {
      builder.user(user);
    }
    if (password != null) {
      builder.password(password);
    }
    return builder;
  }

  /**
   * {@code uri} logged in as {@code user} with {@code password} (either may be null), for the
   * commands that read keys with a plain Lettuce connection beside Baton's client.
   */
  public static RedisURI login(RedisURI uri, String user, String password, Duration timeout) {
    uri.setTimeout(timeout);
    if (user != null) {
      uri.setUsername(user);
    }
    if (password != null) {
      uri.setPassword(password.toCharArray());
    }
    return uri;
  }

  /** The options for a mutex in the layout asked for; an unknown layout is a usage error. */
  RedisMutexOptions mutexOptions(CommandSpec spec) {
    RedisLockLayout chosen = switch (layout.toLowerCase(Locale.ROOT)) {
      case "plain" -> RedisLockLayout.PLAIN;
      case "redisson" -> RedisLockLayout.REDISSON;
      default -> throw new ParameterException(spec.commandLine(),
          "--redis-layout must be plain or redisson, was '" + layout + "'");
    };
    return RedisMutexOptions.defaults().withLayout(chosen);
  }

  /**
   * Rejects what Lettuce cannot read as a Redis URI, naming the option, before anything is sent.
   * A cluster URI ({@code redis-cluster://}) is checked by the client when it connects.
   */
  public static void checkUri(String uri, String option, CommandSpec spec) {
    if (isCluster(uri)) {
      return;
    }
    try {
      RedisURI.create(uri);
    } catch (RuntimeException e) {
      throw new ParameterException(spec.commandLine(), option + " must be a Redis URI such as"
          + " redis://127.0.0.1:6379, was '" + uri + "': " + e.getMessage());
    }
  }
}
