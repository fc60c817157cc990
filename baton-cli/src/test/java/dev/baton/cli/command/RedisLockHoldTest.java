package dev.baton.cli.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.embedded.EmbeddedRedis;
import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import dev.baton.redis.RedisBaton;
import dev.baton.redis.RedisLockLayout;
import dev.baton.redis.RedisMutexOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code baton lock hold --redis}: the same command as on ZooKeeper, on a Redis lock. */
class RedisLockHoldTest {
  private static EmbeddedRedis redis;
  private static RedisBaton client;

  @BeforeAll
  static void start() {
    redis = EmbeddedRedis.start();
    client = RedisBaton.connect(redis.uri());
  }

  @AfterAll
  static void stop() {
    client.close();
    redis.close();
  }

  @Test
  void hold_runsTheCommandWithTheTokenWhileHoldingTheRedisLock_andReleases(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("seen");
    Mutex mutex = client.mutex("jobs:nightly");
    Cli.Run run = Cli.run("lock", "hold", "jobs:nightly", "--redis", redis.uri(), "--",
        "sh", "-c", "echo \"$BATON_FENCING_TOKEN $BATON_LOCK_PATH\" > '" + file + "'");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(Files.readString(file)).matches("[1-9]\\d* jobs:nightly\\n");
    await().atMost(Duration.ofSeconds(10)).until(() -> mutex.holder().isEmpty());
    try (Lease next = mutex.acquire(Duration.ofSeconds(5))) {
      long tokenSeen = Long.parseLong(Files.readString(file).split(" ")[0]);
      assertThat(next.fencingToken()).as("the next holder's token is larger").isGreaterThan(tokenSeen);
    }
  }

  @Test
  void hold_whileAnotherHolds_givesUpAfterTheTimeout_namingTheHolder() {
    try (Lease held = client.mutex("jobs:busy").acquire(Duration.ofSeconds(5))) {
      Cli.Run run = Cli.run("lock", "hold", "jobs:busy", "--redis", redis.uri(), "--timeout", "0s", "--", "true");

      assertThat(run.exitCode()).isEqualTo(LockHoldCommand.EXIT_NOT_OBTAINED);
      assertThat(run.err()).contains("Did not get jobs:busy", "held by:", "token=" + held.fencingToken());
    }
  }

  @Test
  void hold_inRedissonsLayout_excludesABatonClientOfThatLayout() {
    Mutex redisson = client.mutex("jobs:redisson", RedisMutexOptions.defaults().withLayout(RedisLockLayout.REDISSON));
    try (Lease held = redisson.acquire(Duration.ofSeconds(5))) {
      Cli.Run run = Cli.run("lock", "hold", "jobs:redisson", "--redis", redis.uri(), "--redis-layout", "redisson",
          "--timeout", "0s", "--", "true");
      assertThat(run.exitCode()).as(run.err()).isEqualTo(LockHoldCommand.EXIT_NOT_OBTAINED);
    }
  }

  @Test
  void hold_withBothConnectAndRedis_isBadUsage() {
    Cli.Run run = Cli.run("lock", "hold", "jobs:x", "--redis", redis.uri(), "--connect", "127.0.0.1:2181", "--", "true");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--connect and --redis cannot be combined");
  }
}
