package dev.baton.cli.command;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Runs a command for as long as a guard holds (a lock's lease, an election's leadership), in a
 * {@link ProcessGroup} of its own, and stops the whole group once the guard is lost: TERM, then
 * KILL after the grace period. The exit codes are the table of {@link LockHoldCommand}.
 */
public final class GuardedCommand {
  private GuardedCommand() {}

  /**
   * Starts {@code command} and waits for it.
   *
   * @param who the command's name for messages, e.g. {@code baton lock hold}
   * @param lostWhat what was lost, for the message, e.g. {@code the lock /locks/a}
   * @param watchLoss called once with what to run when the guard is lost (from any thread, at
   *     once if it is lost already)
   * @return the command's exit code, or {@link LockHoldCommand#EXIT_LOST}, {@link
   *     LockHoldCommand#EXIT_CANNOT_RUN} or {@link LockHoldCommand#EXIT_NOT_FOUND}
   */
  static int run(String who, List<String> command, Map<String, String> environment, Duration grace,
      PrintWriter err, String lostWhat, Consumer<Runnable> watchLoss) throws InterruptedException {
    ProcessGroup group;
    try {
      group = ProcessGroup.start(command, environment);
    } catch (ProcessGroup.NotStartedException e) {
      err.println(who + ": " + e.getMessage());
      err.flush();
      return e.exitCode();
    }
    // The stop runs on a thread of its own: whoever reports the loss must not block for the grace.
    AtomicBoolean lost = new AtomicBoolean();
    Thread stopper = new Thread(() -> group.stop(grace), "baton-guarded-stop");
    stopper.setDaemon(true);
    watchLoss.accept(() -> {
      if (lost.compareAndSet(false, true)) {
        stopper.start();
      }
    });
    // If baton itself is stopped its session outlives it for a while and the guard with it,
    // but the command must not outlive the guard: stop it first. (Killed outright, by SIGKILL or
    // the OOM killer, no hook runs: the group's watchdog kills it then.)
    Thread hook = new Thread(() -> group.stop(grace), "baton-guarded-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      int exitCode = group.waitFor();
      if (lost.get()) {
        stopper.join(); // the command is gone; what it started gets the rest of the grace
        err.println(who + ": Lost " + lostWhat + " while " + command.get(0) + " ran; its process group was"
            + " stopped (TERM, then KILL after " + DurationConverter.seconds(grace) + ")");
        err.flush();
        return LockHoldCommand.EXIT_LOST;
      }
      return exitCode;
    } catch (InterruptedException e) {
      group.stop(grace);
      throw e;
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
        group.release();
      } catch (IllegalStateException shuttingDown) {
        // The hook is running and stops the command; the watchdog kills what is left once the JVM is gone.
      }
    }
  }
}
