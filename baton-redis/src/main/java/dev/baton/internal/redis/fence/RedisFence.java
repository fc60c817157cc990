package dev.baton.internal.redis.fence;

import dev.baton.BatonInterruptedException;
import dev.baton.internal.redis.RedisErrors;
import dev.baton.internal.redis.RedisScript;
import dev.baton.internal.redis.RedisSession;
import dev.baton.lock.StaleTokenException;
import io.lettuce.core.ScriptOutputType;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Fenced writes on Redis itself: a key is set only if the write's fencing token is not lower than
 * the highest one an earlier write to it carried, which a second key ({@code baton_fence:{key}})
 * keeps for good. The check and the write are one script, so no stale holder slips in between.
 */
public final class RedisFence {
  private static final RedisScript SET = RedisScript.load(RedisFence.class, "fenced-set.lua", ScriptOutputType.MULTI);
  /** As a lock's name: the key travels in every command, twice. */
  private static final int MAX_KEY_BYTES = 1024;

  private RedisFence() {}

  /** The key that keeps {@code key}'s highest token: {@code baton_fence:{key}}, in the key's slot. */
  public static String fenceKey(String key) {
    return key.contains("{") ? "baton_fence:" + key : "baton_fence:{" + key + "}";
  }

  /**
   * Sets {@code key} to {@code value} if {@code token} is not lower than the highest token seen for it.
   *
   * @throws StaleTokenException if it is lower, naming both tokens; nothing was written
   */
  public static void set(RedisSession session, String key, String value, long token) {
    Objects.requireNonNull(key, "key must not be null");
    Objects.requireNonNull(value, "value must not be null");
    if (key.isEmpty()) {
      throw new IllegalArgumentException("key must not be empty");
    }
    int bytes = key.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_KEY_BYTES) {
      throw new IllegalArgumentException("key '" + key.substring(0, 40) + "...' is " + bytes
          + " bytes in UTF-8; at most " + MAX_KEY_BYTES + " are allowed");
    }
    if (token < 0) {
      throw new IllegalArgumentException("token must not be negative, was " + token
          + ": pass the fencingToken() of the lease the write is made under");
    }
    session.checkOpen();
    String[] keys = {key, fenceKey(key)};
    session.checkOneSlot(key, keys);
    String what = "a fenced write to " + key;
    List<?> reply;
    try {
      reply = SET.<List<?>>run(session.commands(), keys, value, Long.toString(token))
          .get(session.settings().commandTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BatonInterruptedException("Interrupted while sending " + what, e);
    } catch (ExecutionException | TimeoutException e) {
      throw RedisErrors.translate(e instanceof ExecutionException ? e.getCause() : e, session.address(), what);
    }
    if (((Long) reply.get(0)) == 0L) {
      throw new StaleTokenException(key, token, new java.math.BigDecimal(String.valueOf(reply.get(1))).longValue());
    }
  }
}
