package dev.baton.cli.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.lock.Lease;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ServerCommandTest {

  @Test
  void servesUntilStoppedAndPrintsTheConnectString() throws Exception {
    ServerCommand server = new ServerCommand();
    CommandLine commandLine = new CommandLine(server);
    StringWriter out = new StringWriter();
    commandLine.setOut(new PrintWriter(out, true));
    CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(
        () -> commandLine.execute("--port", "0", "--tick-time-ms", "100"));

    await().atMost(Duration.ofSeconds(30)).until(() -> out.toString().contains("Press Ctrl-C"));
    Matcher connect = Pattern.compile("serving at (\\S+)").matcher(out.toString());
    assertThat(connect.find()).isTrue();
    try (Baton baton = Baton.connect(connect.group(1));
        Lease lease = baton.mutex("/smoke").acquire(Duration.ofSeconds(10))) {
      assertThat(lease.isValid()).isTrue();
    }

    server.stop.countDown();
    assertThat(exit.get()).isZero();
    assertThat(out.toString()).contains("sessions: 200 ms to 2000 ms", "ZooKeeper stopped.");
  }

  @Test
  void aTakenPortFailsInOneLine() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      Cli.Run run = Cli.run("server", "--port", Integer.toString(taken.getLocalPort()));
      assertThat(run.exitCode()).isEqualTo(1);
      assertThat(run.err().lines()).singleElement().satisfies(line -> assertThat(line)
          .contains("Cannot listen on 127.0.0.1:" + taken.getLocalPort(), "--port"));
    }
  }

  @Test
  void aBadPortIsBadUsage() {
    Cli.Run run = Cli.run("server", "--port", "70000");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--port must be between 0 and 65535, was 70000");
  }
}
