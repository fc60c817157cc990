package dev.baton.internal.redis.atomic;

import dev.baton.BatonException;
import dev.baton.atomic.Counter;
import dev.baton.internal.redis.RedisCalls;
import dev.baton.internal.redis.RedisErrors;
import dev.baton.internal.redis.RedisScript;
import dev.baton.internal.redis.RedisSession;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;

/**
 * A counter in one plain Redis string, the decimal text of a {@code long}: what {@code INCRBY}
 * works on and Redisson's {@code RAtomicLong} keeps under the same name, so the two share a
 * counter. Adding is one {@code INCRBY}, atomic on the server; compare-and-set one script.
 */
public final class RedisCounter implements Counter {
  private static final RedisScript CAS = RedisScript.load(RedisCounter.class, "counter-cas.lua", ScriptOutputType.MULTI);
  /** As a lock's name: the key travels in every command. */
  private static final int MAX_NAME_BYTES = 1024;

  private final RedisSession session;
  private final String name;

  public RedisCounter(RedisSession session, String name) {
    this.session = session;
    this.name = checkName(name, "counter");
  }

  /**
   * {@code name} if it can name a key of a recipe of {@code what} kind.
   *
   * @throws NullPointerException if it is null, naming {@code what}
   * @throws IllegalArgumentException if it is blank or over 1,024 bytes in UTF-8, naming {@code what}
   */
  public static String checkName(String name, String what) {
    Objects.requireNonNull(name, () -> what + " name must not be null");
    if (name.isBlank()) {
      throw new IllegalArgumentException(what + " name must not be blank, was '" + name + "'");
    }
    int bytes = name.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_NAME_BYTES) {
      throw new IllegalArgumentException(what + " name '" + name.substring(0, Math.min(40, name.length())) + "...' is "
          + bytes + " bytes in UTF-8; at most " + MAX_NAME_BYTES + " are allowed");
    }
    return name;
  }

  @Override
  public String path() {
    return name;
  }

  @Override
  public long get() {
    return parse(RedisCalls.await(session, session.commands().get(name), "reading the counter " + name));
  }

  @Override
  public void set(long value) {
    RedisCalls.await(session, session.commands().set(name, Long.toString(value)), "setting the counter " + name);
  }

  @Override
  public long compareAndExchange(long expect, long update) {
    String expected = Long.toString(expect);
    String what = "a compare-and-set of the counter " + name;
    while (true) {
      List<?> reply = RedisCalls.awaitWrite(session,
          CAS.<List<?>>run(session.commands(), new String[] {name}, expected, Long.toString(update)), name, what);
      String found = String.valueOf(reply.get(1));
      if (((Long) reply.get(0)) == 1L) {
        return expect;
      }
      long value = parse(found);
      if (value != expect || found.equals(expected)) {
        return value;
      }
      // The same number written otherwise (" 42", "+42"): compare with the text as it is.
      expected = found;
    }
  }

  @Override
  public long addAndGet(long delta) {
    String what = "adding " + delta + " to the counter " + name;
    try {
      return RedisCalls.awaitWrite(session, session.commands().incrby(name, delta), name, what);
    } catch (BatonException e) {
      Throwable cause = RedisErrors.unwrap(e.getCause() == null ? e : e.getCause());
      String message = cause instanceof RedisCommandExecutionException ? String.valueOf(cause.getMessage()) : "";
      if (message.contains("overflow")) {
        throw new ArithmeticException("Adding " + delta + " to the counter " + name
            + " would overflow a long; nothing was written");
      }
      if (message.contains("not an integer")) {
        parse(RedisCalls.await(session, session.commands().get(name), "reading the counter " + name));
      }
      throw e;
    }
  }

  private long parse(String text) {
    if (text == null || text.isEmpty()) {
      return 0;
    }
    try {
      return Long.parseLong(text.strip());
    } catch (NumberFormatException e) {
      String shown = text.length() > 60 ? text.substring(0, 60) + "..." : text;
      throw new BatonException("The counter " + name + " on Redis at " + session.address() + " holds '" + shown
          + "', not a decimal long; nothing was written. Is the key used by something else?", e);
    }
  }

  @Override
  public String toString() {
    return "RedisCounter[" + name + "]";
  }
}
