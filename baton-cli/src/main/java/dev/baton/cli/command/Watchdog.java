package dev.baton.cli.command;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Kills a command's process group when this JVM dies, however it dies: SIGKILL and the OOM killer
 * run no shutdown hook, and the session (so the lock) outlives the JVM until it expires, while
 * the command would run on without it.
 *
 * <p>The command is started through a small POSIX shell supervisor. Before it starts, this JVM
 * makes a named pipe in a private temporary folder and opens it; the supervisor opens its read end
 * and starts a watchdog, a shell in a session of its own (out of reach of signals sent to the
 * JVM's process group), reading that pipe. The supervisor then becomes the command (exec) in a
 * process group of its own. Nothing but this JVM has the pipe open for writing, so when the JVM
 * ends for any reason, the kernel closes it and the watchdog reads end-of-file: it kills the
 * command's whole group with KILL at once. When the command ended normally, {@link #release()}
 * tells the watchdog so with one line, and it exits without killing anything.
 */
public final class Watchdog implements AutoCloseable {
  private static final Path SHELL = Path.of("/bin/sh");

  /**
   * $1 the named pipe, $2 setsid's path (or empty), then the command. The watchdog is started in
   * a subshell that ends at once, so that it is not a child of the command (which may wait for
   * its own children), and ignores the signals a terminal sends. It kills the group and, in case
   * the JVM died before the exec below made the group, the supervisor's own process.
   */
  private static final String SUPERVISOR = String.join("\n",
      "pipe=$1; setsid=$2; shift 2",
      "exec 3<\"$pipe\" || exit 126",
      "rm -f \"$pipe\"; rmdir \"${pipe%/*}\" 2>/dev/null",
      "( $setsid /bin/sh -c 'trap \"\" HUP INT QUIT TERM; read -r said || { kill -KILL -\"$1\"; kill -KILL \"$1\"; }'"
          + " baton-watchdog $$ <&3 3<&- >/dev/null 2>&1 & )",
      "exec 3<&-",
      "exec $setsid \"$@\"");

  private final Path folder;
  private final RandomAccessFile pipe;

  private Watchdog(Path folder, RandomAccessFile pipe) {
    this.folder = folder;
    this.pipe = pipe;
  }

  /**
   * A watchdog for a command about to start, or empty where there is no POSIX shell or no {@code
   * mkfifo} (Windows): the command then runs without one.
   */
  static Optional<Watchdog> prepare(Optional<Path> mkfifo) throws IOException {
    if (!Files.isExecutable(SHELL) || mkfifo.isEmpty()) {
      return Optional.empty();
    }
    Path folder = Files.createTempDirectory("baton-watchdog"); // only this user can reach it
    Path fifo = folder.resolve("alive");
    try {
      Process make = new ProcessBuilder(mkfifo.get().toString(), "-m", "600", fifo.toString())
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      if (!make.waitFor(10, TimeUnit.SECONDS) || make.exitValue() != 0) {
        make.destroyForcibly();
        throw new IOException("mkfifo " + fifo + " failed");
      }
      // Read and write: opening a named pipe this way does not wait for a reader (Linux and the BSDs).
      return Optional.of(new Watchdog(folder, new RandomAccessFile(fifo.toFile(), "rw")));
    } catch (IOException | RuntimeException e) {
      delete(folder);
      throw e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      delete(folder);
      throw new IOException("interrupted while making the watchdog's pipe", e);
    }
  }

  /** The command line that runs {@code command} under this watchdog, with {@code setsid} if given. */
  List<String> supervise(List<String> command, Optional<Path> setsid) {
    List<String> line = new ArrayList<>(List.of(SHELL.toString(), "-c", SUPERVISOR, "baton-supervisor",
        folder.resolve("alive").toString(), setsid.map(Path::toString).orElse("")));
    line.addAll(command);
    return line;
  }

  /** The command has ended and its group was dealt with: the watchdog exits without killing. */
  void release() {
    try {
      pipe.write("released\n".getBytes(StandardCharsets.US_ASCII));
    } catch (IOException e) {
      // Closing below gives the watchdog end-of-file: it kills what is left of the group, if anything.
    }
    close();
  }

  @Override
  public void close() {
    try {
      pipe.close();
    } catch (IOException ignored) {
      // Closed with the JVM at the latest.
    }
    delete(folder);
  }

  private static void delete(Path folder) {
    File[] files = folder.toFile().listFiles();
    if (files != null) {
      for (File file : files) {
        file.delete();
      }
    }
    folder.toFile().delete();
  }
}
