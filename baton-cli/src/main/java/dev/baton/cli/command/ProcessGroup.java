package dev.baton.cli.command;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A command started in a process group of its own, so that it can be stopped with everything it
 * started: a shell script's own children too, which would otherwise keep running, orphaned,
 * after the script was stopped. On Linux the group comes from {@code setsid} (the command is the
 * new session's leader, its process id the group's id); where there is no {@code setsid}, the
 * command's descendants as the JVM sees them are stopped instead, which misses those that left
 * the tree by forking twice.
 */
public final class ProcessGroup {
  private static final Optional<Path> SETSID = findOnPath("setsid");
  private static final Optional<Path> MKFIFO = findOnPath("mkfifo");

  private final Process leader;
  private final boolean ownGroup;
  private final Optional<Watchdog> watchdog;

  private ProcessGroup(Process leader, boolean ownGroup, Optional<Watchdog> watchdog) {
    this.leader = leader;
    this.ownGroup = ownGroup;
    this.watchdog = watchdog;
  }

  /** Why a command could not be started: 127 not found, 126 found but not executable (as shells say). */
  static final class NotStartedException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int exitCode;

    NotStartedException(String message, int exitCode, Throwable cause) {
      super(message, cause);
      this.exitCode = exitCode;
    }

    int exitCode() {
      return exitCode;
    }
  }

  /**
   * Starts {@code command} with the caller's standard streams and {@code environment} added.
   *
   * @throws NotStartedException if the program is not found or cannot be executed
   */
  static ProcessGroup start(List<String> command, Map<String, String> environment) {
    String program = command.get(0);
    Path resolved = resolve(program)
        .orElseThrow(() -> new NotStartedException("Cannot run " + program + ": not found"
            + (program.contains("/") ? "" : " on the PATH"), LockHoldCommand.EXIT_NOT_FOUND, null));
    if (!Files.isExecutable(resolved) || Files.isDirectory(resolved)) {
      throw new NotStartedException("Cannot run " + program + ": " + resolved + " is not an executable file",
          LockHoldCommand.EXIT_CANNOT_RUN, null);
    }
    Optional<Watchdog> watchdog;
    try {
      watchdog = Watchdog.prepare(MKFIFO);
    } catch (IOException e) {
      throw new NotStartedException("Cannot run " + program + " under a watchdog (which stops it if baton is"
          + " killed): " + e.getMessage(), LockHoldCommand.EXIT_CANNOT_RUN, e);
    }
    List<String> line = new ArrayList<>();
    if (watchdog.isPresent()) {
      line.addAll(watchdog.get().supervise(command, SETSID));
    } else {
      SETSID.ifPresent(setsid -> line.add(setsid.toString()));
      line.addAll(command);
    }
    ProcessBuilder builder = new ProcessBuilder(line).inheritIO();
    builder.environment().putAll(environment);
    try {
      return new ProcessGroup(builder.start(), SETSID.isPresent(), watchdog);
    } catch (IOException e) {
      watchdog.ifPresent(Watchdog::close);
      throw new NotStartedException("Cannot run " + program + ": " + e.getMessage(), LockHoldCommand.EXIT_CANNOT_RUN, e);
    }
  }

  /**
   * Called once the command has ended and its group was stopped if it had to be: the watchdog
   * goes without killing anything. Until then, this JVM's death kills the whole group.
   */
  void release() {
    watchdog.ifPresent(Watchdog::release);
  }

  int waitFor() throws InterruptedException {
    return leader.waitFor();
  }

  long pid() {
    return leader.pid();
  }

  /**
   * Sends TERM to the whole group, then KILL to whatever of it is left after {@code grace}.
   * Returns once the group is gone or KILL was sent.
   */
  void stop(Duration grace) {
    signal("TERM");
    long deadline = System.nanoTime() + grace.toNanos();
    try {
      // No event says when a group's last member ends: look at the process table every 20 ms.
      while ((leader.isAlive() || groupAlive()) && System.nanoTime() - deadline < 0) {
        leader.waitFor(20, TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (leader.isAlive() || groupAlive()) {
      signal("KILL");
    }
  }

  private void signal(String name) {
    if (ownGroup) {
      try {
        Process kill = new ProcessBuilder("kill", "-" + name, "--", "-" + leader.pid())
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        kill.waitFor(5, TimeUnit.SECONDS);
      } catch (IOException e) {
        // Fall through to the descendants below.
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    boolean force = name.equals("KILL");
    leader.descendants().forEach(p -> {
      if (force) {
        p.destroyForcibly();
      } else {
        p.destroy();
      }
    });
    if (force) {
      leader.destroyForcibly();
    } else {
      leader.destroy();
    }
  }

  private boolean groupAlive() {
    if (!ownGroup) {
      return leader.descendants().anyMatch(ProcessHandle::isAlive);
    }
    try {
      // kill -0 to the group: exit 0 while any member lives.
      Process probe = new ProcessBuilder("kill", "-0", "--", "-" + leader.pid())
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      return probe.waitFor(5, TimeUnit.SECONDS) && probe.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static Optional<Path> resolve(String program) {
    if (program.contains("/")) {
      Path path = Path.of(program);
      return Files.exists(path) ? Optional.of(path) : Optional.empty();
    }
    return findOnPath(program);
  }

  private static Optional<Path> findOnPath(String program) {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(File.pathSeparator)) {
      Path candidate = Path.of(dir.isEmpty() ? "." : dir, program);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }
}
