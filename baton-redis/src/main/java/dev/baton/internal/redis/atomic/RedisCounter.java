package dev.baton.internal.redis.atomic;

import dev.baton.BatonException;
import dev.baton.atomic.Counter;
import dev.baton.internal.redis.RedisCalls;
import dev.baton.internal.redis.RedisErrors;
import dev.baton.internal.redis.RedisScript;
import dev.baton.internal.redis.RedisSession;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;
import java.util.List;

/**
 * A counter in one plain Redis string, the decimal text of a {@code long}: what {@code INCRBY}
 * works on and Redisson's {@code RAtomicLong} keeps under the same name, so the two share a
 * counter. Adding is one {@code INCRBY}, atomic on the server; compare-and-set one script.
 */
public final class RedisCounter implements Counter {
  private static final RedisScript CAS = RedisScript.load(RedisCounter.class, "counter-cas.lua", ScriptOutputType.MULTI);
  /** As a lock's name: the key travels in every command. */

  private final RedisSession session;
  private final String name;

  public RedisCounter(RedisSession session, String name) {
    this.session = session;
    this.name = RedisCalls.checkName(name, "counter");
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
