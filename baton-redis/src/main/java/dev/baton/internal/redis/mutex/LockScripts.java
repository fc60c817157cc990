package dev.baton.internal.redis.mutex;

import dev.baton.internal.redis.RedisScript;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.concurrent.CompletableFuture;

/** The mutex's Lua scripts (resources beside this class); each takes all of one lock's {@link LockKeys}. */
enum LockScripts {
  ACQUIRE("acquire.lua", ScriptOutputType.MULTI),
  RELEASE("release.lua", ScriptOutputType.INTEGER),
  RENEW("renew.lua", ScriptOutputType.INTEGER),
  WITHDRAW("withdraw.lua", ScriptOutputType.INTEGER),
  WAITERS("waiters.lua", ScriptOutputType.MULTI),
  FORCE_UNLOCK("force-unlock.lua", ScriptOutputType.MULTI);

  private final RedisScript script;

  LockScripts(String resource, ScriptOutputType output) {
    this.script = RedisScript.load(LockScripts.class, resource, output);
  }

  /** Runs the script with {@code keys} and {@code args}; the future fails as the command did. */
  <T> CompletableFuture<T> run(RedisClusterAsyncCommands<String, String> commands, String[] keys, String... args) {
    return script.run(commands, keys, args);
  }
}
