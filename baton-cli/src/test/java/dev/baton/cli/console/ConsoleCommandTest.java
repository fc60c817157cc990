package dev.baton.cli.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.cli.BatonCommand;
import dev.baton.cli.command.Cli;
import org.junit.jupiter.api.Test;

/** {@code baton console}'s bad input: refused before anything listens or connects. */
class ConsoleCommandTest {

  @Test
  void aPortOutOfRange_isBadUsage() {
    Cli.Run run = Cli.run("console", "--port", "70000", "--connect", "127.0.0.1:2181");
    assertThat(run.exitCode()).isEqualTo(BatonCommand.USAGE);
    assertThat(run.err()).contains("--port must be between 0 and 65535, was 70000");
  }

  @Test
  void aRootThatIsNoPath_isBadUsage_namingIt() {
    Cli.Run run = Cli.run("console", "--root", "shop", "--connect", "127.0.0.1:2181");
    assertThat(run.exitCode()).isEqualTo(BatonCommand.USAGE);
    assertThat(run.err()).contains("--root").contains("'shop'");
  }

  @Test
  void anUnreachableEnsemble_failsNamingTheAddress_withoutServingAPage() {
    Cli.Run run = Cli.run("console", "--port", "0", "--connect", "127.0.0.1:1", "--connect-timeout", "1s");
    assertThat(run.exitCode()).isEqualTo(BatonCommand.FAILURE);
    assertThat(run.err()).contains("127.0.0.1:1");
    assertThat(run.out()).doesNotContain("Baton console at");
  }
}
