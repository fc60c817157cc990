package dev.baton.examples.spring;

import java.util.concurrent.atomic.AtomicInteger;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.springframework.core.env.Environment;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The scheduled job: every node's scheduler fires it, ShedLock lets one node at a time run it.
 * The counters are static so that two application contexts in one JVM (two "nodes" in the test)
 * share them, and an overlap between nodes would show.
 */
@Component
public class NightlyReport {
  private final Environment environment;
  private volatile String lastTitle;
  static final AtomicInteger RUNS = new AtomicInteger();
  static final AtomicInteger RUNNING = new AtomicInteger();
  static final AtomicInteger MOST_RUNNING = new AtomicInteger();

  public NightlyReport(Environment environment) {
    this.environment = environment;
  }

  @Scheduled(fixedDelayString = "${report.every:100ms}")
  @SchedulerLock(name = "nightly-report", lockAtMostFor = "PT10S")
  public void run() throws InterruptedException {
    // Looked up on every run: a key of the imported config center, so a change in ZooKeeper shows
    // in the next report without a restart.
    lastTitle = environment.getProperty("report.title", "Nightly report");
    MOST_RUNNING.accumulateAndGet(RUNNING.incrementAndGet(), Math::max);
    try {
      Thread.sleep(20); // the report's work
      RUNS.incrementAndGet();
    } finally {
      RUNNING.decrementAndGet();
    }
  }

  /** The title the last run of this node gave its report ({@code report.title}); null before the first. */
  public String lastTitle() {
    return lastTitle;
  }

  /** How many runs finished, on all nodes of this JVM. */
  public static int runs() {
    return RUNS.get();
  }

  /** The most runs there ever were at once, on all nodes of this JVM. */
  public static int mostAtOnce() {
    return MOST_RUNNING.get();
  }
}
