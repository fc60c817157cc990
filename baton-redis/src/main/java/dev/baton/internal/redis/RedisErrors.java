package dev.baton.internal.redis;

import dev.baton.BatonException;
import dev.baton.ConnectionException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import java.io.IOException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Lettuce's failures as Baton's exceptions, naming the server and the lock. */
public final class RedisErrors {
  private RedisErrors() {}

  public static Throwable unwrap(Throwable error) {
    Throwable e = error;
    while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  /** Whether trying again later may succeed: the server did not answer, or the connection is down. */
  public static boolean isTransient(Throwable error) {
    Throwable e = unwrap(error);
    if (e instanceof RedisCommandExecutionException) {
      String message = String.valueOf(e.getMessage());
      // A server that is loading its data, or a replica promoted meanwhile, will answer later; so
      // will a cluster that lost a master (CLUSTERDOWN) or is moving the slot (TRYAGAIN).
      return message.startsWith("LOADING") || message.startsWith("READONLY") || message.startsWith("MASTERDOWN")
          || message.startsWith("CLUSTERDOWN") || message.startsWith("TRYAGAIN");
    }
    return e instanceof RedisCommandTimeoutException || e instanceof RedisConnectionException
        || e instanceof IOException || e instanceof RedisException;
  }

  public static RuntimeException translate(Throwable error, String address, String what) {
    Throwable e = unwrap(error);
    if (e instanceof BatonException be) {
      return be;
    }
    if (e instanceof RedisCommandTimeoutException) {
      return new ConnectionException("No reply from Redis at " + address + " in time for " + what
          + " (" + e.getMessage() + ")", e);
    }
    if (e instanceof RedisCommandExecutionException) {
      String message = String.valueOf(e.getMessage());
      // A script that names the wrong key itself (the fencing counter) needs no guess about the layout.
      String hint = message.contains("fencing counter") ? ""
          : message.contains("WRONGTYPE")
          ? "; the key holds another kind of value: is it used by something else, or locked in the other layout (RedisLockLayout)?"
          : message.contains("can't run this command") || message.contains("NOPERM")
              ? "; the ACL user needs +@read +@write +@scripting +@pubsub +@connection +time +wait on the lock's keys and channels"
              : message.startsWith("MOVED") || message.startsWith("ASK")
                  ? "; is the URI one of a Redis Cluster node? Name the cluster as redis-cluster://host:port[,host2:port2]"
                  : "";
      return new BatonException("Redis at " + address + " refused " + what + ": " + message + hint, e);
    }
    if (isTransient(e)) {
      return new ConnectionException("Redis at " + address + " could not be reached for " + what
          + " (" + e.getMessage() + ")", e);
    }
    if (e instanceof RuntimeException re) {
      return re;
    }
    return new BatonException("Failed " + what + " on Redis at " + address + ": " + e, e);
  }
}
