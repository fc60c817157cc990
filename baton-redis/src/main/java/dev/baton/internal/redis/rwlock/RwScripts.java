package dev.baton.internal.redis.rwlock;

import dev.baton.internal.redis.RedisScript;
import io.lettuce.core.ScriptOutputType;

/** The read-write lock's Lua scripts (resources beside this class); each takes all of one lock's {@link RwKeys}. */
enum RwScripts {
  ACQUIRE("rw-acquire.lua", ScriptOutputType.MULTI),
  RELEASE("rw-release.lua", ScriptOutputType.INTEGER),
  RENEW("rw-renew.lua", ScriptOutputType.INTEGER),
  WITHDRAW("rw-withdraw.lua", ScriptOutputType.INTEGER);

  final RedisScript script;

  RwScripts(String resource, ScriptOutputType output) {
    this.script = RedisScript.load(RwScripts.class, resource, output);
  }
}
