package dev.baton.cli.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.Codecs;
import dev.baton.cli.BatonCommand;
import dev.baton.leader.LeaderLatch;
import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import dev.baton.lock.ReadWriteLock;
import dev.baton.lock.Semaphore;
import dev.baton.queue.DistributedQueue;
import dev.baton.testkit.FaultProxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The recipe-aware commands: rwlock, semaphore, queue, barrier, election, lock revoke. */
class RecipeCommandsTest extends StandaloneZooKeeper {

  private static Cli.Run cli(String... args) {
    String[] all = java.util.Arrays.copyOf(args, args.length + 2);
    all[args.length] = "--connect";
    all[args.length + 1] = cluster.connectString();
    return Cli.run(all);
  }

  @Test
  void rwlockHolders_listTheReaders_andWaitersTheWriterInLine() {
    ReadWriteLock lock = baton.readWriteLock("/cli-rw/catalog");
    try (Lease read = lock.readLock().acquire(Duration.ofSeconds(5))) {
      CompletableFuture<Lease> writer = lock.writeLock().acquireAsync();
      await().until(() -> lock.waiters().size() == 1);

      Cli.Run holders = cli("rwlock", "holders", "/cli-rw/catalog");
      Cli.Run waiters = cli("rwlock", "waiters", "/cli-rw/catalog");

      assertThat(holders.exitCode()).as(holders.err()).isZero();
      assertThat(holders.out().lines()).singleElement().asString().contains("__READ__", "token=" + read.fencingToken());
      assertThat(waiters.out().lines()).singleElement().asString().contains("__WRIT__");
      read.close();
      writer.join().close();
    }
    assertThat(cli("rwlock", "holders", "/cli-rw/catalog").out()).contains("is free");
  }

  @Test
  void semaphoreHolders_listOneLinePerPermit() {
    Semaphore semaphore = baton.semaphore("/cli-sem/db", 3);
    try (Lease a = semaphore.acquire(Duration.ofSeconds(5)); Lease b = semaphore.acquire(Duration.ofSeconds(5))) {
      Cli.Run run = cli("semaphore", "holders", "/cli-sem/db", "--permits", "3");
      assertThat(run.exitCode()).as(run.err()).isZero();
      assertThat(run.out().lines()).as(run.out()).hasSize(2);
    }
    assertThat(cli("semaphore", "holders", "/cli-sem/db", "--permits", "3").out()).contains("nobody holds a permit of /cli-sem/db");
  }

  @Test
  void queuePutListTake_inOrder_andAnEmptyTakeTimesOutWith124() {
    assertThat(cli("queue", "put", "/cli-queue/mail", "first").exitCode()).isZero();
    assertThat(cli("queue", "put", "/cli-queue/mail", "second").exitCode()).isZero();

    assertThat(cli("queue", "list", "/cli-queue/mail").out().strip()).isEqualTo("2 items in /cli-queue/mail; next: first");
    Cli.Run take = cli("queue", "take", "/cli-queue/mail");
    assertThat(take.exitCode()).as(take.err()).isZero();
    assertThat(take.out().strip()).isEqualTo("first");
    DistributedQueue<String> queue = baton.queue("/cli-queue/mail", Codecs.UTF8);
    assertThat(queue.size()).isEqualTo(1);
    assertThat(queue.peek()).hasValue("second");
    assertThat(cli("queue", "take", "/cli-queue/mail", "--timeout", "5s").out().strip()).isEqualTo("second");

    Cli.Run empty = cli("queue", "take", "/cli-queue/mail", "--timeout", "0s");
    assertThat(empty.exitCode()).isEqualTo(LockHoldCommand.EXIT_NOT_OBTAINED);
    assertThat(empty.err()).contains("no item in /cli-queue/mail");
  }

  @Test
  void queueDead_countsTheItemsThatFailedEveryAttempt() throws Exception {
    DistributedQueue<String> queue = baton.queue("/cli-poison/jobs", Codecs.UTF8);
    queue.put("poison");
    try (var consumer = queue.consume(item -> {
      throw new IllegalStateException("cannot handle " + item);
    }, dev.baton.queue.ConsumerOptions.defaults().withBackOff(Duration.ofMillis(10), Duration.ofMillis(20)).withMaxAttempts(2))) {
      await().atMost(Duration.ofSeconds(30)).until(() -> baton.queue("/cli-poison/jobs/dead", Codecs.UTF8).size() == 1);
    }
    Cli.Run dead = cli("queue", "dead", "/cli-poison/jobs");
    assertThat(dead.exitCode()).as(dead.err()).isZero();
    assertThat(dead.out().strip()).isEqualTo("1 item in /cli-poison/jobs/dead; next: poison");
    assertThat(cli("queue", "list", "/cli-poison/jobs").exitCode()).isZero();
  }

  @Test
  void barrierSetWaitRemove_waitTimesOutWhileSet_andPassesOnceRemoved() {
    assertThat(cli("barrier", "set", "/cli-barrier/deploy").exitCode()).isZero();
    assertThat(baton.barrier("/cli-barrier/deploy").isSet()).isTrue();

    Cli.Run blocked = cli("barrier", "wait", "/cli-barrier/deploy", "--timeout", "200ms");
    assertThat(blocked.exitCode()).isEqualTo(LockHoldCommand.EXIT_NOT_OBTAINED);
    assertThat(blocked.err()).contains("/cli-barrier/deploy is still set");

    CompletableFuture<Cli.Run> waiting = CompletableFuture.supplyAsync(() -> cli("barrier", "wait", "/cli-barrier/deploy"));
    assertThat(cli("barrier", "remove", "/cli-barrier/deploy").exitCode()).isZero();
    assertThat(waiting.join().exitCode()).isZero();
    assertThat(baton.barrier("/cli-barrier/deploy").isSet()).isFalse();
  }

  @Test
  void lockRevoke_tellsARevocableHolder() {
    Mutex mutex = baton.mutex("/cli-revoke/job");
    AtomicBoolean asked = new AtomicBoolean();
    try (Lease lease = mutex.acquire(Duration.ofSeconds(5))) {
      lease.makeRevocable(l -> asked.set(true));
      Cli.Run run = cli("lock", "revoke", "/cli-revoke/job");
      assertThat(run.exitCode()).as(run.err()).isZero();
      assertThat(run.out()).contains("asked the holder of /cli-revoke/job to let go", "token=" + lease.fencingToken());
      await().untilTrue(asked);
    }
    assertThat(cli("lock", "revoke", "/cli-revoke/job").out()).contains("is free: nobody to ask");
  }

  @Test
  void aPathThatIsNotTheRecipeAskedFor_isRefused_sayingWhatItIs() throws Exception {
    Mutex mutex = baton.mutex("/cli-kinds/lock");
    try (Lease lease = mutex.acquire(Duration.ofSeconds(5));
         dev.baton.config.ConfigCenter config = dev.baton.config.ConfigCenter.open(baton, "/cli-kinds/config")) {
      config.create("db/url", "jdbc:h2:mem");

      Cli.Run rw = cli("rwlock", "holders", "/cli-kinds/lock");
      assertThat(rw.exitCode()).isEqualTo(BatonCommand.FAILURE);
      assertThat(rw.err()).contains("/cli-kinds/lock is not a read-write lock: it is a mutex");

      Cli.Run folder = cli("lock", "holder", "/cli-kinds/config");
      assertThat(folder.exitCode()).isEqualTo(BatonCommand.FAILURE);
      assertThat(folder.err()).contains("/cli-kinds/config is not a mutex: its children (db)", "baton tree /cli-kinds/config");

      Cli.Run election = cli("leader", "/cli-kinds/config/db");
      assertThat(election.exitCode()).isEqualTo(BatonCommand.FAILURE);
      assertThat(election.err()).contains("/cli-kinds/config/db is not an election");
    }
    // Nothing below it: any recipe at rest.
    assertThat(cli("semaphore", "holders", "/cli-kinds/none", "--permits", "1").exitCode()).isZero();
  }

  @Test
  void electionJoin_runsTheCommandAsLeader_withTheToken(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("out");
    Cli.Run run = Cli.run("election", "join", "/cli-election/a", "--id", "cli-1", "--connect", cluster.connectString(), "--",
        "sh", "-c", "echo \"$BATON_FENCING_TOKEN $BATON_ELECTION_PATH\" > '" + out + "'; exit 4");
    assertThat(run.exitCode()).as(run.err()).isEqualTo(4);
    assertThat(Files.readString(out)).matches("[1-9]\\d* /cli-election/a\\n");
    assertThat(baton.leaderLatch("/cli-election/a", "observer").participants()).isEmpty();
  }

  @Test
  void electionJoin_whileAnotherLeads_givesUpAfterTheTimeoutWith124() {
    try (LeaderLatch leader = baton.leaderLatch("/cli-election/b", "the-leader")) {
      leader.start();
      assertThat(leader.await(Duration.ofSeconds(10))).isTrue();
      Cli.Run run = Cli.run("election", "join", "/cli-election/b", "--timeout", "300ms",
          "--connect", cluster.connectString(), "--", "true");
      assertThat(run.exitCode()).isEqualTo(LockHoldCommand.EXIT_NOT_OBTAINED);
      assertThat(run.err()).contains("not leader of /cli-election/b", "leader: the-leader");
    }
  }

  @Test
  void electionJoin_thatLosesLeadership_stopsTheCommandsGroup_andExits125(@TempDir Path dir) throws Exception {
    Path pidFile = dir.resolve("child.pid");
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0))) {
      CompletableFuture<Cli.Run> join = CompletableFuture.supplyAsync(() -> Cli.run("election", "join",
          "/cli-election/c", "--connect", proxy.connectString(), "--session-timeout", "2s", "--grace", "1s", "--",
          "bash", "-c", "sleep 300 & echo $! > '" + pidFile + "'; wait"));
      await().atMost(Duration.ofSeconds(20)).until(() -> Files.exists(pidFile) && !Files.readString(pidFile).isBlank());
      long child = Long.parseLong(Files.readString(pidFile).trim());

      proxy.blackhole();

      Cli.Run run = join.get(60, TimeUnit.SECONDS);
      assertThat(run.exitCode()).as(run.err()).isEqualTo(LockHoldCommand.EXIT_LOST);
      assertThat(run.err()).contains("Lost leadership of /cli-election/c");
      await().atMost(Duration.ofSeconds(10)).until(() -> ProcessHandle.of(child).map(p -> !p.isAlive()).orElse(true));
    }
  }
}
