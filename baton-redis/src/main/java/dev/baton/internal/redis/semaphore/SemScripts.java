package dev.baton.internal.redis.semaphore;

import dev.baton.internal.redis.RedisScript;
import io.lettuce.core.ScriptOutputType;

/**
 * The semaphore's Lua scripts (resources beside this class); each takes all of one semaphore's keys.
 * The acquire and the release (a withdrawal too) start with sem-grant.lua: both serve the queue.
 */
enum SemScripts {
  ACQUIRE(ScriptOutputType.MULTI, "sem-grant.lua", "sem-acquire.lua"),
  RELEASE(ScriptOutputType.INTEGER, "sem-grant.lua", "sem-release.lua"),
  RENEW(ScriptOutputType.INTEGER, "sem-renew.lua");

  final RedisScript script;

  SemScripts(ScriptOutputType output, String... resources) {
    this.script = RedisScript.load(SemScripts.class, output, resources);
  }
}
