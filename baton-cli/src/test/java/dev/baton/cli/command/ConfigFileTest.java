package dev.baton.cli.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.cli.BatonCommand;
import dev.baton.testkit.TestCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ~/.baton/config}: the ensemble when neither --connect nor BATON_CONNECT names one. */
class ConfigFileTest {

  @org.junit.jupiter.api.BeforeEach
  void noEnvironmentDefaults() {
    org.junit.jupiter.api.Assumptions.assumeTrue(System.getenv("BATON_CONNECT") == null
        && System.getenv("BATON_CONFIG") == null, "BATON_CONNECT or BATON_CONFIG is set in this environment");
  }

  @Test
  void connectFromTheDefaultsFile_isUsed_whenNoOptionGivesOne(@TempDir Path home) throws Exception {
    String previous = System.getProperty("user.home");
    try (TestCluster cluster = TestCluster.standalone()) {
      Files.createDirectories(home.resolve(".baton"));
      Files.writeString(home.resolve(".baton/config"), "# defaults\nconnect = " + cluster.connectString() + "\n");
      System.setProperty("user.home", home.toString());

      Cli.Run run = Cli.run("lock", "holder", "/locks/from-file");

      assertThat(run.exitCode()).as(run.err()).isZero();
      assertThat(run.out()).contains("/locks/from-file is free");
    } finally {
      System.setProperty("user.home", previous);
    }
  }

  @Test
  void noEnsembleAnywhere_triesLocalhost2181_namingTheThreePlacesToGiveOne(@TempDir Path home) {
    String previous = System.getProperty("user.home");
    try {
      System.setProperty("user.home", home.toString());
      Cli.Run run = Cli.run("leader", "/election/x", "--connect-timeout", "1s");
      assertThat(run.exitCode()).as("localhost:2181, as zkCli and etcdctl: no usage error").isNotEqualTo(BatonCommand.USAGE);
      assertThat(run.err()).contains("--connect", "BATON_CONNECT", home.resolve(".baton/config").toString(),
          "using localhost:2181");
    } finally {
      System.setProperty("user.home", previous);
    }
  }
}
