package dev.baton.internal.redis.semaphore;

import dev.baton.internal.redis.RedisScript;
import io.lettuce.core.ScriptOutputType;

/** The semaphore's Lua scripts (resources beside this class); each takes all of one semaphore's keys. */
enum SemScripts {
  ACQUIRE("sem-acquire.lua", ScriptOutputType.MULTI),
  RELEASE("sem-release.lua", ScriptOutputType.INTEGER),
  RENEW("sem-renew.lua", ScriptOutputType.INTEGER),
  WITHDRAW("sem-withdraw.lua", ScriptOutputType.INTEGER);

  final RedisScript script;

  SemScripts(String resource, ScriptOutputType output) {
    this.script = RedisScript.load(SemScripts.class, resource, output);
  }
}
