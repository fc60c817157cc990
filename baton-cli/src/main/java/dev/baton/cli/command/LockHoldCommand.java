package dev.baton.cli.command;

import dev.baton.lock.AcquireTimeoutException;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.Mutex;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code baton lock hold}: runs a command while holding a mutex, as {@code etcdctl lock} does,
 * with the fencing token in the command's environment. The command runs in a process group of its
 * own ({@link ProcessGroup}), so that losing the lock stops everything it started.
 */
@Command(
    name = "hold",
    mixinStandardHelpOptions = true,
    description = {
        "Takes the mutex at <path>, runs <command> with the fencing token in the environment variable"
            + " BATON_FENCING_TOKEN (and the path in BATON_LOCK_PATH), and releases the mutex when the"
            + " command ends.",
        "The command runs in a process group of its own. If the lock is lost while it runs (the"
            + " session expired), the whole group is sent TERM, then KILL after --grace, and baton"
            + " says so. If baton itself is killed (even by SIGKILL or the OOM killer), a watchdog"
            + " process kills the whole group at once, before the session and the lock can expire."
            + " Put -- before the command:",
        "  baton lock hold /locks/nightly --connect zk:2181 -- ./nightly-job.sh --full",
        "  baton lock hold nightly --redis redis://cache:6379 -- ./nightly-job.sh --full",
        "  baton lock hold nightly --jdbc jdbc:postgresql://db:5432/app -- ./nightly-job.sh --full",
        "On Redis the lock is lost when its key's TTL runs out unrenewed or the key is taken from it;"
            + " on SQL when its row expires unrenewed (by the database's clock) or is taken;"
            + " the watchdog stops the command before that TTL can run out after baton dies."
            + " With --jdbc the lock table is created if it is missing.",
        "",
        "Exit codes: the command's own code when it ran to its end holding the lock;"
            + " 124 the lock was not obtained within --timeout; 125 the lock was lost while the"
            + " command ran (the command was stopped); 126 the command could not be started;"
            + " 127 the command was not found; 1 baton itself failed (no ensemble, no session);"
            + " 2 bad usage. As with timeout(1), a command that exits with one of these codes"
            + " itself cannot be told apart from baton."
    })
public final class LockHoldCommand implements Callable<Integer> {
  /** The lock was not ours within {@code --timeout}: as {@code timeout(1)} says it timed out. */
  static final int EXIT_NOT_OBTAINED = 124;
  /** The lock was lost while the command ran, and the command's group was stopped. */
  static final int EXIT_LOST = 125;
  /** The command was found but could not be started, as shells say. */
  static final int EXIT_CANNOT_RUN = 126;
  /** The command was not found, as shells say. */
  static final int EXIT_NOT_FOUND = 127;

  @Spec CommandSpec spec;
  @Mixin StoreOptions store;

  @Option(names = "--timeout", paramLabel = "DURATION", converter = DurationConverter.class,
      description = "Give up (exit 124) if the mutex is not ours within this time, e.g. 10s; 0s tries"
          + " once without waiting. Default: wait.")
  Duration timeout;

  @Option(names = "--grace", paramLabel = "DURATION", converter = DurationConverter.class, defaultValue = "5s",
      description = "After the lock is lost: how long the command's group has between TERM and KILL."
          + " Default: ${DEFAULT-VALUE}.")
  Duration grace;

  @Parameters(index = "0", paramLabel = "<path>",
      description = "The mutex's path, e.g. /locks/nightly; with --redis or --jdbc, the lock's name.")
  String path;

  @Parameters(index = "1..*", arity = "1..*", paramLabel = "<command>",
      description = "The command and its arguments, after --.")
  List<String> command;

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter err = spec.commandLine().getErr();
    // On ZooKeeper the session timeout is how long the lock outlives baton: it is said when granted otherwise.
    try (Store opened = store.open(spec, path, "mutex path", true)) {
      Mutex mutex = opened.mutex(path);
      String cause = switch (store.kind(spec)) {
        case REDIS -> " (its Redis lease expired or was taken)";
        case JDBC -> " (its row expired unrenewed or was taken)";
        case ZOOKEEPER -> " (the session expired)";
      };
      return holdAndRun(mutex, err, "the lock " + path + cause);
    }
  }

  private int holdAndRun(Mutex mutex, PrintWriter err, String lossCause) throws InterruptedException {
    Lease lease;
    try {
      lease = timeout == null ? mutex.acquire() : mutex.acquire(timeout);
    } catch (AcquireTimeoutException e) {
      String holder = mutex.holder().map(LockCommand::describe).orElse("nobody any more");
      err.println("baton lock hold: Did not get " + path + " within " + timeout.toMillis() + " ms; held by: " + holder);
      err.flush();
      return EXIT_NOT_OBTAINED;
    }
    try (lease) {
      return runHolding(lease, err, lossCause);
    }
  }

  private int runHolding(Lease lease, PrintWriter err, String lossCause) throws InterruptedException {
    return runHolding("baton lock hold", lease, command,
        Map.of("BATON_FENCING_TOKEN", Long.toString(lease.fencingToken()), "BATON_LOCK_PATH", path),
        grace, err, lossCause);
  }

  /**
   * Runs {@code command} while {@code lease} holds, stopping its group once the lease is lost;
   * what every command that holds a lease shares (lock, read-write lock, semaphore).
   */
  static int runHolding(String who, Lease lease, List<String> command, Map<String, String> environment,
      Duration grace, PrintWriter err, String lossCause) throws InterruptedException {
    // Once the lease is lost another process may take the lock, so nothing the command started may go on.
    return GuardedCommand.run(who, command, environment, grace, err, lossCause, stop -> {
      lease.addListener((l, state) -> {
        if (state == LeaseState.LOST) {
          stop.run();
        }
      });
      if (lease.state() == LeaseState.LOST) {
        stop.run();
      }
    });
  }
}
