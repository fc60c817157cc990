package dev.baton.internal.redis;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.lock.LockOwner;
import java.time.Instant;

/**
 * The JSON that names an owner: a waiter's queue entry, and (with its token and grant time added by
 * the acquire script) the lock's value. Values written by others (a hand-written lock's owner
 * string, a Redisson hash field) are shown as they are, in {@link LockOwner#host()}.
 */
public final class OwnerRecord {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonStringEncoder QUOTE = JsonStringEncoder.getInstance();
  /** As on ZooKeeper: a thread name does not make a lock's value unbounded. */
  private static final int MAX_THREAD_NAME = 128;

  private OwnerRecord() {}

  /** {@code {"id":..,"host":..,"pid":..,"start":..,"thread":..}}; ends with '}', as the scripts expect. */
  public static String member(String id, String host, long pid, long start, String thread) {
    // Written by hand rather than through a tree: one is made for every acquisition.
    StringBuilder json = new StringBuilder(160 + id.length() + host.length() + thread.length());
    json.append("{\"id\":\"");
    QUOTE.quoteAsString(id, json);
    json.append("\",\"host\":\"");
    QUOTE.quoteAsString(host, json);
    json.append("\",\"pid\":").append(pid).append(",\"start\":").append(start).append(",\"thread\":\"");
    QUOTE.quoteAsString(thread.length() > MAX_THREAD_NAME ? thread.substring(0, MAX_THREAD_NAME) : thread, json);
    return json.append("\"}").toString();
  }

  /** The owner a lock value or queue entry names; {@code at} is used when the record has no grant time. */
  public static LockOwner parse(String raw, Instant at) {
    JsonNode node = readOrNull(raw);
    if (node == null || !node.hasNonNull("id")) {
      return new LockOwner(raw, 0, raw, 0, "", 0, at, false);
    }
    Instant when = node.has("at") ? Instant.ofEpochMilli(node.get("at").asLong()) : at;
    return new LockOwner(node.get("id").asText(), node.path("token").asLong(0), node.path("host").asText(""),
        node.path("pid").asLong(0), node.path("thread").asText(""), 0, when, false);
  }

  /** The token the acquire script put in a value, 0 if it has none. */
  public static long token(String value) {
    JsonNode node = readOrNull(value);
    return node == null ? 0 : node.path("token").asLong(0);
  }

  private static JsonNode readOrNull(String raw) {
    if (raw == null || !raw.startsWith("{")) {
      return null;
    }
    try {
      JsonNode node = JSON.readTree(raw);
      return node.isObject() ? node : null;
    } catch (JsonProcessingException e) {
      return null;
    }
  }
}
