package dev.baton.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testkit.ChaosRun;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The chaos run every backend takes ({@link CoordinatorChaos}): seeded faults against a mutex, a
 * read-write lock and a semaphore, a leader latch and a counter (those the backend has; the locks
 * and the leaders write through fenced resources) under the faults the fixture can deal (link cuts,
 * lost replies, holders paused past their lease, server restarts, the locks' records deleted under
 * their holders, connections killed by the server, failovers to a lagging replica); what the recipes
 * left in the store once every client closed (which must be nothing); and the report of what was
 * seen. Short by default
 * (10 s of faults); longer with {@code -Dbaton.chaos.duration=10m}, another seed with {@code
 * -Dbaton.chaos.seed=N}. The report is written, as Markdown, to {@code target/chaos/<reportName>.md}
 * (or the folder {@code -Dbaton.chaos.report} names), and any safety problem fails the run naming
 * the seed that replays it.
 */
public abstract class ChaosContract {
  /** Where the Markdown report goes: a folder, one file per backend. */
  public static final String REPORT_PROPERTY = "baton.chaos.report";

  /** The backend under test; a concrete {@code *ChaosContractTest} registers it as an extension. */
  protected abstract ContractBackend backend();

  /** The Maven command that runs the concrete test alone, for the replay line of a failure. */
  protected abstract String replayCommand();

  /**
   * The report's title and file name: the backend's name, unless a second fixture of the same store
   * runs too ({@code redis-failover}, {@code redis-aof}).
   */
  protected String reportName() {
    return backend().name();
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.MINUTES)
  void underSeededFaults_noOverlapNoStaleWriteNoHang_andTheReportIsWritten() throws InterruptedException {
    ChaosRun run = ChaosRun.fromProperties(20261126L, "10s", replayCommand());
    ChaosReport report = new CoordinatorChaos(backend(), run, reportName()).run();
    write(report);
    if (!report.problems().isEmpty()) {
      throw run.failure(String.join("; ", report.problems()) + "\n" + report.toMarkdown(), null);
    }
    for (ChaosReport.LockFigures lock : report.locks()) {
      assertThat(lock.sections()).as("the %s workload made progress", lock.workload()).isPositive();
    }
  }

  private static void write(ChaosReport report) {
    Path folder = Path.of(System.getProperty(REPORT_PROPERTY, "target/chaos"));
    try {
      Files.createDirectories(folder);
      Files.writeString(folder.resolve(report.backend() + ".md"), report.toMarkdown(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the chaos report to " + folder, e);
    }
  }
}
