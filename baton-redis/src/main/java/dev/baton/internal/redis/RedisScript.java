package dev.baton.internal.redis;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * One Lua script of a recipe (a resource beside the recipe's classes), sent by digest; a server that
 * does not know it (new, restarted, or its cache flushed) gets its text once more. Each recipe's
 * scripts take all of one lock's keys, which share a hash tag, so in a cluster a script runs on the
 * master of their slot.
 */
public final class RedisScript {
  private final String name;
  private final String text;
  private final String sha;
  private final ScriptOutputType output;

  private RedisScript(String name, String text, ScriptOutputType output) {
    this.name = name;
    this.text = text;
    this.sha = sha1(text);
    this.output = output;
  }

  /** The script in {@code resource}, read from beside {@code owner} (the recipe's class). */
  public static RedisScript load(Class<?> owner, String resource, ScriptOutputType output) {
    return new RedisScript(resource, read(owner, resource), output);
  }

  /**
   * One script made of the {@code resources} beside {@code owner}, in that order: the first ones
   * hold what several of a recipe's scripts share (Lua has no include in Redis), the last is the script's own.
   */
  public static RedisScript load(Class<?> owner, ScriptOutputType output, String... resources) {
    StringBuilder text = new StringBuilder();
    for (String resource : resources) {
      text.append(read(owner, resource)).append('\n');
    }
    return new RedisScript(String.join("+", resources), text.toString(), output);
  }

  /** Runs the script with {@code keys} and {@code args}; the future fails as the command did. */
  public <T> CompletableFuture<T> run(RedisClusterAsyncCommands<String, String> commands, String[] keys,
      String... args) {
    CompletableFuture<T> bySha = commands.<T>evalsha(sha, output, keys, args).toCompletableFuture();
    return bySha.exceptionallyCompose(error -> {
      Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
      if (cause instanceof RedisNoScriptException) {
        return commands.<T>eval(text, output, keys, args).toCompletableFuture();
      }
      return CompletableFuture.failedFuture(cause);
    });
  }

  @Override
  public String toString() {
    return name;
  }

  private static String read(Class<?> owner, String resource) {
    try (InputStream in = owner.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("The script " + resource + " is missing from baton-redis's jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String sha1(String text) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is required of every JVM", e);
    }
  }
}
