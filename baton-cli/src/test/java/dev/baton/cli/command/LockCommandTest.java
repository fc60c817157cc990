package dev.baton.cli.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import dev.baton.testkit.FaultProxy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LockCommandTest extends StandaloneZooKeeper {

  /** Takes the mutex on a thread of the given name, which the lock node records. */
  private static Lease acquireAs(Mutex mutex, String threadName) throws InterruptedException {
    AtomicReference<Lease> lease = new AtomicReference<>();
    Thread thread = new Thread(() -> lease.set(mutex.acquire(Duration.ofSeconds(10))), threadName);
    thread.start();
    thread.join();
    return lease.get();
  }

  @Test
  void holderPrintsWhoHoldsTheLock() throws InterruptedException {
    Mutex mutex = baton.mutex("/locks/holder-test");
    Lease lease = acquireAs(mutex, "sku-42-writer");
    try {
      Cli.Run run = Cli.run("lock", "holder", "/locks/holder-test", "--connect", cluster.connectString());

      assertThat(run.exitCode()).as(run.err()).isZero();
      assertThat(run.out().lines()).singleElement().satisfies(line -> assertThat(line)
          .startsWith("node=_c_")
          .contains(" token=" + lease.fencingToken() + " ")
          .contains(" pid=" + ProcessHandle.current().pid() + " ")
          .contains(" thread=sku-42-writer ")
          .contains(" session=0x" + Long.toHexString(baton.sessionId()) + " ")
          .containsPattern(" queued-at=\\d{4}-\\d\\d-\\d\\dT"));
    } finally {
      lease.close();
    }
  }

  @Test
  void holderOfAFreeLockSaysSo() {
    Cli.Run run = Cli.run("lock", "holder", "/locks/free", "--connect", cluster.connectString());
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).isEqualTo("/locks/free is free: nobody holds it" + System.lineSeparator());
  }

  @Test
  void waitersListsTheQueueOneLineEach() throws InterruptedException {
    Mutex mutex = baton.mutex("/locks/waiters-test");
    Lease held = acquireAs(mutex, "first");
    CompletableFuture<Lease> waiting = mutex.acquireAsync();
    try {
      await().atMost(Duration.ofSeconds(10)).until(() -> mutex.waiters().size() == 1);

      Cli.Run run = Cli.run("lock", "waiters", "/locks/waiters-test", "--connect", cluster.connectString());

      assertThat(run.exitCode()).as(run.err()).isZero();
      assertThat(run.out().lines()).singleElement().satisfies(line -> assertThat(line)
          .startsWith("node=" + mutex.waiters().get(0).node() + " ")
          .contains(" token=" + mutex.waiters().get(0).fencingToken() + " "));
    } finally {
      held.close();
      waiting.join().close();
    }
    Cli.Run none = Cli.run("lock", "waiters", "/locks/waiters-test", "--connect", cluster.connectString());
    assertThat(none.out()).contains("nobody waits for /locks/waiters-test");
  }

  @Test
  void aBadPathIsBadUsage() {
    Cli.Run run = Cli.run("lock", "holder", "locks/no-slash", "--connect", cluster.connectString());
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).startsWith("baton lock holder: <path>: ").contains("'locks/no-slash'");
  }

  @Test
  void anUnreachableServerFailsInOneLine() {
    Cli.Run run = Cli.run("lock", "holder", "/x", "--connect", "127.0.0.1:1", "--connect-timeout", "1s");
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err().lines()).singleElement().satisfies(line -> assertThat(line)
        .startsWith("baton lock holder: ").contains("127.0.0.1:1"));
  }

  @Test
  void holdRunsTheCommandWithTheTokenAndReleases(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("token");
    Cli.Run run = Cli.run("lock", "hold", "/locks/job", "--connect", cluster.connectString(), "--",
        "sh", "-c", "echo \"$BATON_FENCING_TOKEN $BATON_LOCK_PATH\" > '" + file + "'");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(Files.readString(file)).matches("[1-9]\\d* /locks/job\\n");
    Mutex mutex = baton.mutex("/locks/job");
    await().atMost(Duration.ofSeconds(10)).until(() -> mutex.holder().isEmpty());
  }

  @Test
  void holdExitsWithTheCommandsExitCode() {
    Cli.Run run = Cli.run("lock", "hold", "/locks/job", "--connect", cluster.connectString(), "--",
        "sh", "-c", "exit 3");
    assertThat(run.exitCode()).isEqualTo(3);
  }

  @Test
  void holdGivesUpAfterTheTimeoutNamingTheHolder() throws InterruptedException {
    Mutex mutex = baton.mutex("/locks/busy");
    Lease lease = acquireAs(mutex, "busy-holder");
    try {
      Cli.Run run = Cli.run("lock", "hold", "/locks/busy", "--connect", cluster.connectString(),
          "--timeout", "300ms", "--", "true");

      assertThat(run.exitCode()).isEqualTo(LockHoldCommand.EXIT_NOT_OBTAINED);
      assertThat(run.err()).contains("Did not get /locks/busy within 300 ms", "thread=busy-holder");
    } finally {
      lease.close();
    }
  }

  @Test
  void holdOfAMissingProgramFailsInOneLine() {
    // The session asked is the one the test server grants: no line about a cut timeout.
    Cli.Run run = Cli.run("lock", "hold", "/locks/job", "--connect", cluster.connectString(), "--session-timeout", "2s",
        "--", "/no/such/program");
    assertThat(run.exitCode()).isEqualTo(LockHoldCommand.EXIT_NOT_FOUND);
    assertThat(run.err().lines()).singleElement().asString().contains("Cannot run /no/such/program: not found");
    await().atMost(Duration.ofSeconds(10)).until(() -> baton.mutex("/locks/job").holder().isEmpty());
  }

  @Test
  void holdOfAFileThatIsNotExecutable_exits126(@TempDir Path dir) throws IOException {
    Path script = Files.writeString(dir.resolve("job.sh"), "echo never\n");
    Cli.Run run = Cli.run("lock", "hold", "/locks/job", "--connect", cluster.connectString(), "--",
        script.toString());
    assertThat(run.exitCode()).isEqualTo(LockHoldCommand.EXIT_CANNOT_RUN);
    assertThat(run.err()).contains("Cannot run " + script, "not an executable file");
  }

  /**
   * The safety bug this guards against: on a lost lock only the direct child was stopped, and a
   * shell script's own children ran on without the lock. Now the whole process group is stopped,
   * and the exit code says the lock was lost.
   */
  @Test
  void holdThatLosesTheLock_stopsTheCommandsWholeProcessGroup_andExits125(@TempDir Path dir) throws Exception {
    Path pidFile = dir.resolve("grandchild.pid");
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0))) {
      CompletableFuture<Cli.Run> hold = CompletableFuture.supplyAsync(() -> Cli.run("lock", "hold", "/locks/group",
          "--connect", proxy.connectString(), "--session-timeout", "4s", "--grace", "2s", "--",
          "bash", "-c", "sleep 300 & echo $! > '" + pidFile + "'; wait"));
      await().atMost(Duration.ofSeconds(20)).until(() -> Files.exists(pidFile) && !Files.readString(pidFile).isBlank());
      long grandchild = Long.parseLong(Files.readString(pidFile).trim());
      assertThat(ProcessHandle.of(grandchild)).hasValueSatisfying(p -> assertThat(p.isAlive()).isTrue());

      proxy.blackhole(); // the session cannot be renewed: it expires, the lease is lost

      Cli.Run run = hold.get(60, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(run.exitCode()).as(run.err()).isEqualTo(LockHoldCommand.EXIT_LOST);
      assertThat(run.err()).contains("Lost the lock /locks/group", "process group was stopped");
      await().atMost(Duration.ofSeconds(10))
          .until(() -> ProcessHandle.of(grandchild).map(p -> !p.isAlive()).orElse(true));
    }
  }

  @Test
  void holdWithoutACommandIsBadUsage() {
    Cli.Run run = Cli.run("lock", "hold", "/locks/job", "--connect", cluster.connectString());
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("<command>");
  }
}
