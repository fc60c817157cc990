package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.cli.command.Cli;
import dev.baton.cli.command.DurationConverter;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BatonCommandTest {

  @Test
  void versionNamesBatonAndZooKeeper() {
    Cli.Run run = Cli.run("--version");
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).containsPattern("baton \\d+\\.\\d+").contains("ZooKeeper client 3.9.5");
  }

  @Test
  void helpListsTheCommands() {
    Cli.Run run = Cli.run("--help");
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).contains("demo", "server", "lock");
  }

  @Test
  void generateCompletion_printsABashAndZshScriptForEveryCommand() {
    Cli.Run run = Cli.run("generate-completion");
    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("complete -F", "baton", "demo", "lock", "hold", "--redis", "--json");
    assertThat(Cli.run("--help").out()).contains("generate-completion");
  }

  /** Descriptions are paragraphs that picocli wraps, never lines broken by hand mid-sentence. */
  @Test
  void help_atAWideTerminal_keepsEachParagraphOnOneLine() {
    picocli.CommandLine wide = BatonCommand.newCommandLine();
    wide.setUsageHelpAutoWidth(false);
    wide.setUsageHelpWidth(2000);
    String demo = wide.getSubcommands().get("demo").getUsageMessage();
    assertThat(demo.lines()).anySatisfy(line -> assertThat(line)
        .contains("Application nodes, each with its own ZooKeeper session").contains("unless --connect is given."));
    String hold = wide.getSubcommands().get("lock").getSubcommands().get("hold").getUsageMessage();
    assertThat(hold.lines()).anySatisfy(line -> assertThat(line)
        .contains("Exit codes: the command's own code").contains("cannot be told apart from baton."));
  }

  @Test
  void noCommandIsBadUsage() {
    Cli.Run run = Cli.run();
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("Usage: baton");
  }

  @Test
  void unknownCommandIsBadUsageOnOneLine() {
    Cli.Run run = Cli.run("dmeo");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err().lines().findFirst()).hasValueSatisfying(line -> assertThat(line)
        .startsWith("baton: ").contains("'dmeo'"));
  }

  @ParameterizedTest
  @CsvSource({"10s, PT10S", "500ms, PT0.5S", "2m, PT2M", "1h, PT1H", "PT3S, PT3S"})
  void durationsAreReadAsTyped(String text, Duration expected) {
    assertThat(new DurationConverter().convert(text)).isEqualTo(expected);
  }

  @Test
  void badDurationIsBadUsageNamingTheOption() {
    Cli.Run run = Cli.run("lock", "holder", "/x", "--connect", "127.0.0.1:1", "--connect-timeout", "soon");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--connect-timeout", "'soon' is not a duration");
  }
}
