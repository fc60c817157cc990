package dev.baton.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The archive a user installs, unpacked into a folder with no repository around it, and its
 * {@code bin/baton} run as a user runs it: the version, an embedded server, a lock read from it.
 */
class DistributionIT {
  private static final String NAME = System.getProperty("baton.dist.name");

  @TempDir Path installRoot;
  private Process server;

  @BeforeEach
  void unpack() throws Exception {
    Path archive = Path.of(System.getProperty("baton.dist.archive"));
    assertThat(archive).as("the build makes the archive before this test").isRegularFile();
    Result untar = run(List.of("tar", "-xzf", archive.toString(), "-C", installRoot.toString()));
    assertThat(untar.exitCode).as(untar.output).isZero();
  }

  @AfterEach
  void stopServer() throws Exception {
    if (server != null) {
      server.destroy();
      if (!server.waitFor(30, TimeUnit.SECONDS)) {
        server.destroyForcibly();
      }
    }
  }

  @Test
  void unpackedArchive_hasTheLauncherTheJarsAndTheCompletionScript() throws IOException {
    Path home = installRoot.resolve(NAME);
    assertThat(home.resolve("bin/baton")).isExecutable();
    assertThat(home.resolve("README.txt")).content().contains("Install");
    assertThat(home.resolve("LICENSE")).isRegularFile();
    try (var jars = Files.list(home.resolve("lib"))) {
      assertThat(jars.map(p -> p.getFileName().toString()))
          .anyMatch(n -> n.startsWith("baton-cli-"))
          .anyMatch(n -> n.startsWith("zookeeper-"))
          .noneMatch(n -> n.startsWith("netty-tcnative"));
    }
    assertThat(home.resolve("completion/baton_completion")).content()
        .contains("complete -F")
        .contains("lock");
  }

  @Test
  void zipHoldsTheSameLauncher() throws IOException {
    List<String> entries = new ArrayList<>();
    try (ZipInputStream zip = new ZipInputStream(Files.newInputStream(Path.of(System.getProperty("baton.dist.zip"))))) {
      for (ZipEntry e = zip.getNextEntry(); e != null; e = zip.getNextEntry()) {
        entries.add(e.getName());
      }
    }
    assertThat(entries).contains(NAME + "/bin/baton", NAME + "/completion/baton_completion");
  }

  @Test
  void installedCommand_printsItsVersion_runsAServer_andReadsALockFromIt() throws Exception {
    Path baton = installRoot.resolve(NAME).resolve("bin/baton");

    Result version = run(List.of(baton.toString(), "--version"));
    assertThat(version.exitCode).as(version.output).isZero();
    assertThat(version.output).contains(System.getProperty("baton.dist.version"));

    server = new ProcessBuilder(baton.toString(), "server", "--port", "0")
        .directory(installRoot.toFile())
        .redirectErrorStream(true)
        .start();
    String connect = awaitServing(server.getInputStream());

    Result holder = run(List.of(baton.toString(), "lock", "holder", "/locks/nightly", "--connect", connect));
    assertThat(holder.exitCode).as(holder.output).isZero();
    assertThat(holder.output).contains("/locks/nightly is free");
  }

  /** Reads the server's output until it says where it serves; the read ends when it does. */
  private static String awaitServing(InputStream out) throws IOException {
    BufferedReader reader = new BufferedReader(new InputStreamReader(out, StandardCharsets.UTF_8));
    StringBuilder seen = new StringBuilder();
    for (String line = reader.readLine(); line != null; line = reader.readLine()) {
      seen.append(line).append('\n');
      int at = line.indexOf("ZooKeeper serving at ");
      if (at >= 0) {
        Thread drain = new Thread(() -> drain(reader), "server-output");
        drain.setDaemon(true);
        drain.start();
        return line.substring(at + "ZooKeeper serving at ".length()).trim();
      }
    }
    throw new AssertionError("baton server ended without serving:\n" + seen);
  }

  private static void drain(BufferedReader reader) {
    try {
      while (reader.readLine() != null) {
        // keep the pipe from filling up while the server runs
      }
    } catch (IOException ignored) {
      // the server was stopped
    }
  }

  private Result run(List<String> command) throws Exception {
    Process p = new ProcessBuilder(command).directory(installRoot.toFile()).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(2, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError("still running after 2 minutes: " + command + "\n" + output);
    }
    return new Result(p.exitValue(), output);
  }

  private record Result(int exitCode, String output) {}
}
