package dev.baton.cli.command;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.baton.discovery.ServiceInstance;
import dev.baton.lock.LockOwner;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * {@code --json}: a command prints one JSON object instead of text, for scripts. The shapes are
 * documented in the README ("Machine-readable output") and stay stable: fields are added, never
 * renamed or removed, within a major version.
 */
public final class JsonOutput {
  private static final ObjectMapper MAPPER = new ObjectMapper()
      .enable(SerializationFeature.INDENT_OUTPUT)
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

  @Option(names = "--json", description = "Print one JSON object instead of text (shapes in the README).")
  boolean enabled;

  /** Prints {@code document} as JSON, followed by a line break. */
  static void print(PrintWriter out, Object document) {
    try {
      out.println(MAPPER.writeValueAsString(document));
      out.flush();
    } catch (JsonProcessingException e) {
      throw new CliException("Could not write JSON: " + e.getOriginalMessage(), e);
    }
  }

  /**
   * Prints {@code document} as JSON on one line, for streams of events (one object per line, as
   * {@code jq} and log shippers read them).
   */
  static void printLine(PrintWriter out, Object document) {
    try {
      out.println(MAPPER.writer().without(SerializationFeature.INDENT_OUTPUT).writeValueAsString(document));
      out.flush();
    } catch (JsonProcessingException e) {
      throw new CliException("Could not write JSON: " + e.getOriginalMessage(), e);
    }
  }

  /** An ordered map from alternating keys and values, so that fields keep the documented order. */
  static Map<String, Object> object(Object... keysAndValues) {
    Map<String, Object> map = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      map.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return map;
  }

  /** A lock's holder or waiter: {@code node, token, host, pid, thread, session, queuedAt, cached}. */
  public static Map<String, Object> owner(LockOwner owner) {
    return object(
        "node", owner.node(),
        "token", owner.fencingToken(),
        "host", owner.host(),
        "pid", owner.pid(),
        "thread", owner.thread(),
        "session", owner.sessionId() == 0 ? null : "0x" + Long.toHexString(owner.sessionId()),
        "queuedAt", owner.queuedAt().toString(),
        "cached", owner.cached());
  }

  /** A service instance: {@code id, address, port, sslPort, enabled, payload}. */
  static Map<String, Object> instance(ServiceInstance instance) {
    return object(
        "id", instance.id(),
        "address", instance.address(),
        "port", instance.port().isPresent() ? instance.port().getAsInt() : null,
        "sslPort", instance.sslPort().isPresent() ? instance.sslPort().getAsInt() : null,
        "enabled", instance.isEnabled(),
        "payload", instance.payload());
  }
}
