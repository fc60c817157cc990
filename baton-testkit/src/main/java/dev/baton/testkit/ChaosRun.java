package dev.baton.testkit;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.awaitility.core.ConditionTimeoutException;
import org.awaitility.core.ThrowingRunnable;

/**
 * The frame of one chaos test: its seed and length (from {@value ChaosSchedule#SEED_PROPERTY} and
 * {@value ChaosSchedule#DURATION_PROPERTY}, with the test's defaults), its {@link ChaosLog}, and
 * failures that start with the seed and the command that replays it and end with the timeline's
 * last lines, so a failure in a long run can be replayed and read.
 *
 * <pre>{@code
 * ChaosRun run = ChaosRun.fromProperties(77L, "20s", "./mvnw verify -pl baton-config -am -Dtest=ConfigChaosTest");
 * run.awaitOrFail(Duration.ofSeconds(20), "every copy caught up", () -> assertThat(...));
 * }</pre>
 */
public final class ChaosRun {
  private static final int LOG_LINES_IN_FAILURES = 120;

  private final long seed;
  private final Duration duration;
  private final String replay;
  private final ChaosLog log;

  private ChaosRun(long seed, Duration duration, String replayCommand) {
    this.seed = seed;
    this.duration = duration;
    this.replay = "chaos seed " + seed + " (replay: " + replayCommand + " -Dsurefire.failIfNoSpecifiedTests=false -D"
        + ChaosSchedule.SEED_PROPERTY + "=" + seed + ")";
    this.log = new ChaosLog(System.nanoTime());
  }

  /**
   * @param replayCommand the Maven command that runs the test alone; the seed is added to it
   * @throws IllegalArgumentException naming the property if a property is set to something else
   *     than a seed or a positive duration
   */
  public static ChaosRun fromProperties(long defaultSeed, String defaultDuration, String replayCommand) {
    return new ChaosRun(ChaosSchedule.seedFromProperty(defaultSeed),
        ChaosSchedule.durationFromProperty(defaultDuration), replayCommand);
  }

  public long seed() {
    return seed;
  }

  /** How long faults are injected. */
  public Duration duration() {
    return duration;
  }

  public ChaosLog log() {
    return log;
  }

  /** The faults of this seed, for clients of {@code sessionTimeout}. */
  public ChaosSchedule schedule(Duration sessionTimeout) {
    return new ChaosSchedule(seed, sessionTimeout);
  }

  /** A failure naming the seed and its replay, with the timeline's last lines. */
  public AssertionError failure(String message, Throwable cause) {
    return new AssertionError(replay + ": " + message + "\ntimeline (last lines):\n" + log.tail(LOG_LINES_IN_FAILURES),
        cause);
  }

  /** Waits up to {@code bound} for {@code assertion} to pass; fails naming the seed and {@code what}. */
  public void awaitOrFail(Duration bound, String what, ThrowingRunnable assertion) {
    try {
      await().atMost(bound).pollInterval(Duration.ofMillis(20)).untilAsserted(assertion);
    } catch (ConditionTimeoutException e) {
      throw failure("not within " + bound.toSeconds() + " s: " + what + ": " + e.getMessage(), e);
    }
  }
}
