package dev.baton.cli.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.embedded.EmbeddedRedis;
import dev.baton.leader.LeaderLatch;
import dev.baton.lock.Lease;
import dev.baton.lock.ReadWriteLock;
import dev.baton.redis.RedisBaton;
import dev.baton.redis.RedisLockLayout;
import dev.baton.redis.RedisMutexOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code rwlock}, {@code semaphore}, {@code leader}, {@code election join} and {@code tree} with {@code --redis}, on a real Redis. */
class RedisRecipeCommandsTest {
  private static EmbeddedRedis redis;
  private static RedisBaton client;
  private static RedisBaton other;

  @BeforeAll
  static void start() {
    redis = EmbeddedRedis.start();
    client = RedisBaton.connect(redis.uri());
    other = RedisBaton.connect(redis.uri());
  }

  @AfterAll
  static void stop() {
    other.close();
    client.close();
    redis.close();
  }

  @Test
  void rwlock_holdersAndWaiters_nameTheWriterAndWhoWaits() throws IOException {
    ReadWriteLock lock = client.readWriteLock("catalog");
    try (Lease writer = lock.writeLock().acquire(Duration.ofSeconds(5))) {
      CompletableFuture<Lease> reader = other.readWriteLock("catalog").readLock().acquireAsync();
      try {
        await().atMost(Duration.ofSeconds(10)).until(() -> lock.waiters().size() == 1);

        Cli.Run holders = Cli.run("rwlock", "holders", "catalog", "--redis", redis.uri());
        assertThat(holders.exitCode()).as(holders.err()).isZero();
        assertThat(holders.out()).contains("token=" + writer.fencingToken(), "pid=" + ProcessHandle.current().pid());

        Cli.Run waiters = Cli.run("rwlock", "waiters", "catalog", "--redis", redis.uri(), "--json");
        assertThat(waiters.exitCode()).as(waiters.err()).isZero();
        JsonNode document = new ObjectMapper().readTree(waiters.out());
        assertThat(document.get("backend").asText()).isEqualTo("redis");
        assertThat(document.get("waiters")).hasSize(1);
        assertThat(document.get("waiters").get(0).get("pid").asLong()).isEqualTo(ProcessHandle.current().pid());
      } finally {
        reader.cancel(false);
      }
    }
    Cli.Run free = Cli.run("rwlock", "holders", "catalog", "--redis", redis.uri());
    assertThat(free.out()).contains("catalog is free");
  }

  @Test
  void rwlock_hold_readsBesideAReader_butCannotWriteWhileOneReads(@TempDir Path dir) throws IOException {
    Path seen = dir.resolve("seen");
    try (Lease reading = client.readWriteLock("prices").readLock().acquire(Duration.ofSeconds(5))) {
      Cli.Run read = Cli.run("rwlock", "hold", "prices", "--read", "--redis", redis.uri(), "--timeout", "5s", "--",
          "sh", "-c", "echo \"$BATON_FENCING_TOKEN $BATON_LOCK_PATH\" > '" + seen + "'");
      assertThat(read.exitCode()).as(read.err()).isZero();
      assertThat(Files.readString(seen)).matches("[1-9]\\d* prices\\n");

      Cli.Run write = Cli.run("rwlock", "hold", "prices", "--write", "--redis", redis.uri(), "--timeout", "0s",
          "--", "true");
      assertThat(write.exitCode()).as(write.err()).isEqualTo(LockHoldCommand.EXIT_NOT_OBTAINED);
      assertThat(write.err()).contains("Did not get the write lock of prices", "held by:",
          "token=" + reading.fencingToken());
    }
  }

  @Test
  void rwlock_hold_needsReadOrWrite() {
    Cli.Run run = Cli.run("rwlock", "hold", "prices", "--redis", redis.uri(), "--", "true");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--read", "--write");
  }

  @Test
  void redisLayout_onARecipeWithOneLayout_isBadUsage_ratherThanIgnored() {
    Cli.Run run = Cli.run("rwlock", "holders", "catalog", "--redis", redis.uri(), "--redis-layout", "redisson");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--redis-layout chooses the keys of a mutex", "a read-write lock");

    Cli.Run tree = Cli.run("tree", "*", "--redis", redis.uri(), "--redis-layout", "plain");
    assertThat(tree.exitCode()).isEqualTo(2);
  }

  @Test
  void semaphore_holdersAndHold_countPermits(@TempDir Path dir) throws IOException {
    try (Lease one = client.semaphore("db-pool", 2).acquire(Duration.ofSeconds(5))) {
      Cli.Run holders = Cli.run("semaphore", "holders", "db-pool", "--permits", "2", "--redis", redis.uri());
      assertThat(holders.exitCode()).as(holders.err()).isZero();
      assertThat(holders.out().lines()).hasSize(1).allMatch(l -> l.contains("token=" + one.fencingToken()));

      Path seen = dir.resolve("seen");
      Cli.Run second = Cli.run("semaphore", "hold", "db-pool", "--permits", "2", "--redis", redis.uri(),
          "--timeout", "5s", "--", "sh", "-c", "echo $BATON_FENCING_TOKEN > '" + seen + "'");
      assertThat(second.exitCode()).as(second.err()).isZero();
      assertThat(Long.parseLong(Files.readString(seen).strip())).isGreaterThan(one.fencingToken());

      Cli.Run tooMany = Cli.run("semaphore", "hold", "db-pool", "--permits", "2", "--take", "2", "--redis",
          redis.uri(), "--timeout", "0s", "--", "true");
      assertThat(tooMany.exitCode()).as(tooMany.err()).isEqualTo(LockHoldCommand.EXIT_NOT_OBTAINED);
      assertThat(tooMany.err()).contains("Did not get 2 permits of db-pool", "token=" + one.fencingToken());
    }
    Cli.Run none = Cli.run("semaphore", "holders", "db-pool", "--permits", "2", "--redis", redis.uri());
    assertThat(none.out()).contains("nobody holds a permit of db-pool");
  }

  @Test
  void semaphore_hold_takeMoreThanPermits_isBadUsage() {
    Cli.Run run = Cli.run("semaphore", "hold", "db-pool", "--permits", "2", "--take", "3", "--redis", redis.uri(),
        "--", "true");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--take must be from 1 to --permits (2), was 3");
  }

  @Test
  void leaderAndElectionJoin_seeTheLeader_andWaitBehindIt(@TempDir Path dir) throws Exception {
    try (LeaderLatch first = client.leaderLatch("reports", "reports-1")) {
      first.start();
      assertThat(first.await(Duration.ofSeconds(10))).isTrue();

      Cli.Run leader = Cli.run("leader", "reports", "--redis", redis.uri());
      assertThat(leader.exitCode()).as(leader.err()).isZero();
      assertThat(leader.out()).startsWith("reports-1 leads reports (election, 1 participant)");
      Cli.Run viaElection = Cli.run("election", "leader", "reports", "--redis", redis.uri(), "--json");
      JsonNode election = new ObjectMapper().readTree(viaElection.out());
      assertThat(election.get("backend").asText()).isEqualTo("redis");
      assertThat(election.get("leader").asText()).isEqualTo("reports-1");

      Cli.Run notLeader = Cli.run("election", "join", "reports", "--id", "reports-2", "--redis", redis.uri(),
          "--timeout", "1s", "--", "true");
      assertThat(notLeader.exitCode()).as(notLeader.err()).isEqualTo(LockHoldCommand.EXIT_NOT_OBTAINED);
      assertThat(notLeader.err()).contains("not leader of reports within 1 s; leader: reports-1");
    }
    // A bound, not a wait: the join returns as soon as it leads. It is above the waiter lease (10 s)
    // for a place the join that gave up could have left in Redis's queue, had its withdrawal been lost.
    Path seen = dir.resolve("seen");
    Cli.Run join = Cli.run("election", "join", "reports", "--id", "reports-2", "--redis", redis.uri(),
        "--timeout", "30s", "--", "sh", "-c", "echo \"$BATON_FENCING_TOKEN $BATON_ELECTION_PATH\" > '" + seen + "'");
    assertThat(join.exitCode()).as(join.err()).isZero();
    assertThat(Files.readString(seen)).matches("[1-9]\\d* reports\\n");
  }

  @Test
  void tree_groupsTheRecipesByKind_withTheirHolders() throws IOException {
    RedisMutexOptions redisson = RedisMutexOptions.defaults().withLayout(RedisLockLayout.REDISSON);
    try (Lease lock = client.mutex("tree:job").acquire(Duration.ofSeconds(5));
        Lease rlock = client.mutex("tree:redisson-job", redisson).acquire(Duration.ofSeconds(5));
        Lease reader = client.readWriteLock("tree:catalog").readLock().acquire(Duration.ofSeconds(5));
        Lease permit = client.semaphore("tree:pool", 3).acquire(Duration.ofSeconds(5))) {
      client.mutex("tree:released").acquire(Duration.ofSeconds(5)).close();
      client.fencedSet("tree:stock", "41", lock.fencingToken());

      Cli.Run run = Cli.run("tree", "tree:*", "--redis", redis.uri());
      assertThat(run.exitCode()).as(run.err()).isZero();
      String host = "token " + lock.fencingToken();
      assertThat(run.out()).contains("[mutex]", "[read-write lock]", "[semaphore]", "[fence]");
      assertThat(run.out().lines())
          .anyMatch(l -> l.contains("tree:job ") && l.contains("held by") && l.contains(host))
          .anyMatch(l -> l.contains("tree:redisson-job") && l.contains("held by") && l.contains("Redisson's layout"))
          .anyMatch(l -> l.contains("tree:released") && l.contains("free"))
          .anyMatch(l -> l.contains("tree:catalog") && l.contains("1 reader"))
          .anyMatch(l -> l.contains("tree:pool") && l.contains("1 permit held"))
          .anyMatch(l -> l.contains("tree:stock") && l.contains("highest token " + lock.fencingToken()));
      assertThat(run.out()).as("the pattern keeps other names out").doesNotContain("db-pool").doesNotContain("prices");
      assertThat(run.out().indexOf("[mutex]")).isLessThan(run.out().indexOf("[read-write lock]"));

      Cli.Run json = Cli.run("tree", "tree:job", "--redis", redis.uri(), "--json");
      JsonNode tree = new ObjectMapper().readTree(json.out());
      assertThat(tree.get("backend").asText()).isEqualTo("redis");
      assertThat(tree.get("recipes")).hasSize(1);
      assertThat(tree.get("recipes").get(0).get("name").asText()).isEqualTo("tree:job");
      assertThat(tree.get("recipes").get(0).get("kind").asText()).isEqualTo("mutex");
      assertThat(tree.get("recipes").get(0).get("detail").asText()).contains("held by", host);
    }
  }
}
