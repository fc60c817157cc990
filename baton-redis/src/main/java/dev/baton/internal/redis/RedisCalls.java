package dev.baton.internal.redis;

import dev.baton.BatonInterruptedException;
import dev.baton.ConnectionException;
import dev.baton.OutcomeUnknownException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One command's reply, waited for on the caller's thread, with Lettuce's failures as Baton's: for
 * the recipes whose calls block (a counter, a latch) rather than wait in a queue.
 */
public final class RedisCalls {
  private static final int MAX_NAME_BYTES = 1024;

  /**
   * Refuses a name no key should carry, naming the recipe ({@code what}) it was for: null, blank, or
   * over 1,024 bytes in UTF-8.
   */
  public static String checkName(String name, String what) {
    java.util.Objects.requireNonNull(name, () -> what + " name must not be null");
    if (name.isBlank()) {
      throw new IllegalArgumentException(what + " name must not be blank, was '" + name + "'");
    }
    int bytes = name.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    if (bytes > MAX_NAME_BYTES) {
      throw new IllegalArgumentException(what + " name '" + name.substring(0, Math.min(40, name.length())) + "...' is "
          + bytes + " bytes in UTF-8; at most " + MAX_NAME_BYTES + " are allowed");
    }
    return name;
  }

  private RedisCalls() {}

  /**
   * The reply of a command that is safe to send twice (a read, a {@code SET}).
   *
   * @throws ConnectionException if the connection is down or no reply came within the command timeout
   * @throws dev.baton.BatonException if the server refused the command, naming {@code what}
   * @throws BatonInterruptedException if the caller was interrupted while waiting
   */
  public static <T> T await(RedisSession session, CompletionStage<T> reply, String what) {
    session.checkOpen();
    try {
      return reply.toCompletableFuture().get(waitMillis(session), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BatonInterruptedException("Interrupted while waiting for Redis's reply to " + what, e);
    } catch (ExecutionException e) {
      throw RedisErrors.translate(e.getCause(), session.address(), what);
    } catch (TimeoutException e) {
      throw new ConnectionException("No reply from Redis at " + session.address() + " in time for " + what, e);
    }
  }

  /**
   * The reply of a write that must not be applied twice (an {@code INCRBY}, a compare-and-set): a
   * failure after the command may have reached the server is {@link OutcomeUnknownException}, one
   * that certainly kept it from the server (the connection was down, so it was refused before
   * sending) a plain {@link ConnectionException}.
   *
   * @throws OutcomeUnknownException if no reply came within the command timeout, the connection
   *     dropped while the command was out, or the caller was interrupted meanwhile (with its
   *     interrupt flag set again): the write may or may not have been applied
   */
  public static <T> T awaitWrite(RedisSession session, CompletionStage<T> reply, String key, String what) {
    session.checkOpen();
    try {
      return reply.toCompletableFuture().get(waitMillis(session), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new OutcomeUnknownException(key, "Interrupted while waiting for Redis's reply to " + what
          + ": it may or may not have been applied; read the value to decide", e);
    } catch (ExecutionException e) {
      Throwable cause = RedisErrors.unwrap(e.getCause());
      if (RedisErrors.isTransient(cause) && !refusedUnsent(cause)
          && !(cause instanceof io.lettuce.core.RedisCommandExecutionException)) {
        throw new OutcomeUnknownException(key, "Lost the reply of Redis at " + session.address() + " to " + what
            + " (" + cause.getMessage() + "): it may or may not have been applied; read the value to decide", cause);
      }
      throw RedisErrors.translate(cause, session.address(), what);
    } catch (TimeoutException e) {
      throw new OutcomeUnknownException(key, "No reply from Redis at " + session.address() + " in time for " + what
          + ": it may or may not have been applied; read the value to decide", e);
    }
  }

  /** Lettuce refuses commands while disconnected (REJECT_COMMANDS) before sending them. */
  private static boolean refusedUnsent(Throwable error) {
    String message = String.valueOf(error.getMessage());
    return message.contains("Currently not connected") || message.contains("Commands are rejected");
  }

  private static long waitMillis(RedisSession session) {
    // Lettuce times the command out itself; this bound only guards against a reply that never completes.
    return session.settings().commandTimeout().toMillis() + 1000;
  }
}
