package dev.baton.cli;

import dev.baton.Baton;
import dev.baton.lock.AcquireTimeoutException;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.Mutex;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code baton lock hold}: runs a command while holding a mutex, as {@code etcdctl lock} does,
 * with the fencing token in the command's environment.
 */
@Command(
    name = "hold",
    mixinStandardHelpOptions = true,
    description = {
        "Takes the mutex at <path>, runs <command> with the fencing token in the environment",
        "variable BATON_FENCING_TOKEN (and the path in BATON_LOCK_PATH), and releases the mutex",
        "when the command ends. Exits with the command's exit code.",
        "If the lock is lost while the command runs (the session expired), the command is",
        "stopped and baton exits with 1. Put -- before the command:",
        "  baton lock hold /locks/nightly --connect zk:2181 -- ./nightly-job.sh --full"
    })
final class LockHoldCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin ConnectOptions connection;

  @Option(names = "--timeout", paramLabel = "DURATION", converter = DurationConverter.class,
      description = "Give up (exit 1) if the mutex is not ours within this time, e.g. 10s; 0s tries"
          + " once without waiting. Default: wait.")
  Duration timeout;

  @Parameters(index = "0", paramLabel = "<path>", description = "The mutex's path, e.g. /locks/nightly.")
  String path;

  @Parameters(index = "1..*", arity = "1..*", paramLabel = "<command>",
      description = "The command and its arguments, after --.")
  List<String> command;

  @Override
  public Integer call() throws InterruptedException {
    LockCommand.checkPath(path, spec);
    try (Baton baton = connection.open(spec)) {
      Mutex mutex = LockCommand.mutex(baton, path, spec);
      try (Lease lease = acquire(mutex)) {
        return runHolding(lease);
      }
    }
  }

  private Lease acquire(Mutex mutex) {
    if (timeout == null) {
      return mutex.acquire();
    }
    try {
      return mutex.acquire(timeout);
    } catch (AcquireTimeoutException e) {
      String holder = mutex.holder().map(LockCommand::describe).orElse("nobody any more");
      throw new CliException("Did not get " + path + " within " + timeout.toMillis() + " ms; held by: " + holder);
    }
  }

  private int runHolding(Lease lease) throws InterruptedException {
    ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
    builder.environment().put("BATON_FENCING_TOKEN", Long.toString(lease.fencingToken()));
    builder.environment().put("BATON_LOCK_PATH", path);
    Process process;
    try {
      process = builder.start();
    } catch (IOException e) {
      throw new CliException("Cannot run " + command.get(0) + ": " + e.getMessage(), e);
    }
    // Once the lease is lost another process may take the lock, so the command must not go on.
    AtomicBoolean lost = new AtomicBoolean();
    lease.addListener((l, state) -> {
      if (state == LeaseState.LOST) {
        lost.set(true);
        process.destroy();
      }
    });
    if (lease.state() == LeaseState.LOST && lost.compareAndSet(false, true)) {
      process.destroy();
    }
    // If baton itself is killed its session outlives it for a while and the lock with it,
    // but the command must not outlive the lock: stop it first.
    Thread hook = new Thread(() -> stop(process), "baton-hold-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      int exitCode = process.waitFor();
      if (lost.get()) {
        throw new CliException("Lost the lock " + path + " while " + command.get(0)
            + " ran (the session expired); the command was stopped");
      }
      return exitCode;
    } catch (InterruptedException e) {
      stop(process);
      throw e;
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // The hook is running and stops the command.
      }
    }
  }

  private static void stop(Process process) {
    process.destroy();
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
