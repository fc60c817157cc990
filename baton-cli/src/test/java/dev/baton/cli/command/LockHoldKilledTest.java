package dev.baton.cli.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.cli.BatonCommand;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code baton lock hold} killed with SIGKILL, as the OOM killer does: no shutdown hook runs, and
 * the session (so the lock) outlives the JVM until it expires. The command and everything it
 * started must be gone before another {@code lock hold} on the same name runs its own command.
 * Linux only: liveness is read from {@code /proc}, where a killed process left unreaped (a zombie)
 * counts as gone.
 */
@EnabledOnOs(OS.LINUX)
class LockHoldKilledTest extends StandaloneZooKeeper {

  @Test
  void holdKilledWithSigkill_leavesNothingOfItsCommandForTheNextHolder(@TempDir Path dir) throws Exception {
    Path pids = dir.resolve("first.pids");
    Path seen = dir.resolve("second.saw");
    // The first command: a shell (the group's leader) with a child of its own, both long-lived.
    String first = "sleep 300 & echo \"$$ $!\" > '" + pids + ".tmp'; mv '" + pids + ".tmp' '" + pids + "'; wait";
    List<String> line = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), BatonCommand.class.getName(),
        "lock", "hold", "/locks/killed", "--connect", cluster.connectString(), "--session-timeout", "2s",
        "--", "sh", "-c", first));
    Process baton = new ProcessBuilder(line).redirectErrorStream(true)
        .redirectOutput(dir.resolve("first.log").toFile()).start();
    List<Long> firstTree = new ArrayList<>();
    try {
      await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(pids));
      for (String pid : Files.readString(pids).trim().split(" ")) {
        firstTree.add(Long.parseLong(pid));
      }
      assertThat(firstTree).hasSize(2).allMatch(LockHoldKilledTest::alive);

      baton.destroyForcibly(); // SIGKILL: no hook, no release; the session lives on until it expires
      baton.waitFor(30, TimeUnit.SECONDS);

      // The second holder's command looks, as its first act, for any of the first's processes alive.
      StringBuilder check = new StringBuilder();
      for (long pid : firstTree) {
        check.append("if [ -e /proc/").append(pid).append(" ] && ! grep -q ') Z ' /proc/").append(pid)
            .append("/stat 2>/dev/null; then echo alive ").append(pid).append("; fi; ");
      }
      String second = "{ " + check + "} > '" + seen + "'";
      CompletableFuture<Cli.Run> next = CompletableFuture.supplyAsync(() -> Cli.run("lock", "hold", "/locks/killed",
          "--connect", cluster.connectString(), "--timeout", "60s", "--", "sh", "-c", second));

      Cli.Run run = next.get(90, TimeUnit.SECONDS);
      assertThat(run.exitCode()).as(run.err()).isZero();
      assertThat(Files.readString(seen)).as("what the second holder's command saw of the first's").isEmpty();
    } finally {
      baton.destroyForcibly();
      // Leave nothing behind when the test fails.
      firstTree.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
    }
  }

  /** Alive: in the process table and not a zombie (a zombie has ended; only its exit status is left). */
  private static boolean alive(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      return !stat.substring(stat.lastIndexOf(')') + 1).trim().startsWith("Z");
    } catch (NoSuchFileException gone) {
      return false;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
