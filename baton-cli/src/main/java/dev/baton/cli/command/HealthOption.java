package dev.baton.cli.command;

import dev.baton.discovery.HealthCheck;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Locale;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code --health URL [--health-interval D]}: the registry library's own HTTP or TCP check,
 * run by {@code baton service register} while it holds the instance.
 */
public final class HealthOption {
  /**
   * How long one check may take. Not tied to the interval: the library waits for a check to end
   * before the next pause, and a short interval must not turn a slow loopback answer into "down".
   */
  static final Duration TIMEOUT = Duration.ofSeconds(2);

  @Option(names = "--health", paramLabel = "URL",
      description = "Check the instance every --health-interval: http(s)://... is up on a 2xx or 3xx answer,"
          + " tcp://HOST:PORT when a connection opens (each within 2 s). A failing check marks the instance"
          + " down (enabled false, payload health=DOWN) without removing it; a passing one brings it back.")
  String url;

  @Option(names = "--health-interval", paramLabel = "DURATION", converter = DurationConverter.class,
      description = "The pause between checks, e.g. 5s (with --health). Default: ${DEFAULT-VALUE}.",
      defaultValue = "10s")
  Duration interval;

  /** Whether {@code --health-interval} was typed, to refuse it without {@code --health}. */
  private boolean intervalGiven(CommandSpec spec) {
    return spec.commandLine().getParseResult().hasMatchedOption("--health-interval");
  }

  /** The check, or null without {@code --health}; every mistake is a usage error naming the option. */
  HealthCheck check(CommandSpec spec) {
    if (url == null) {
      if (intervalGiven(spec)) {
        throw new ParameterException(spec.commandLine(), "--health-interval needs --health URL");
      }
      return null;
    }
    if (interval.isZero()) {
      throw new ParameterException(spec.commandLine(), "--health-interval must be more than 0");
    }
    Duration timeout = TIMEOUT;
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      throw usage(spec);
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    try {
      switch (scheme) {
        case "http", "https" -> {
          if (uri.getHost() == null) {
            throw usage(spec);
          }
          return HealthCheck.http(uri, timeout);
        }
        case "tcp" -> {
          if (uri.getHost() == null || uri.getPort() < 0) {
            throw usage(spec);
          }
          return HealthCheck.tcp(uri.getHost(), uri.getPort(), timeout);
        }
        default -> throw usage(spec);
      }
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--health: " + e.getMessage());
    }
  }

  private ParameterException usage(CommandSpec spec) {
    return new ParameterException(spec.commandLine(),
        "--health must be http://HOST[:PORT]/PATH, https://... or tcp://HOST:PORT, was '" + url + "'");
  }
}
