package dev.baton.testkit.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What one chaos run of a backend saw, workload by workload: the numbers the reliability report
 * tabulates, and the safety problems among them (each of which fails the run).
 *
 * @param backend the backend's name
 * @param seed the seed that replays the run
 * @param duration how long faults were injected
 * @param faults how many faults of each kind were injected
 * @param mutex the mutex with a fenced resource
 * @param leadership the leader latch, if the backend has one
 * @param counter the counter, if the backend has one
 * @param problems every safety problem found, as sentences; empty for a clean run
 */
public record ChaosReport(String backend, long seed, Duration duration, Map<String, Integer> faults,
    MutexFigures mutex, LeadershipFigures leadership, CounterFigures counter, List<String> problems) {

  /**
   * The mutex workload.
   *
   * @param sections critical sections entered
   * @param overlaps sections entered while an earlier holder had not been told of its loss: the
   *     loss was told late or never (must be 0)
   * @param lossesTold sections whose holder heard {@code SUSPECT} or {@code LOST} while inside
   * @param staleRefused writes the fence refused (a holder that lost the lock while stalled)
   * @param staleAccepted writes accepted after a write with a newer token (must be 0)
   * @param timeouts acquisitions that timed out (not a fault: the lock was busy or the link down)
   * @param errors acquisitions that failed with an error (connection lost, client closed)
   * @param hung acquisitions that returned later than their timeout allows (must be 0)
   */
  public record MutexFigures(long sections, long overlaps, long lossesTold, long staleRefused, long staleAccepted,
      long timeouts, long errors, long hung) {}

  /**
   * The leader-latch workload.
   *
   * @param terms leadership terms (gained, then lost or ended)
   * @param overlaps terms that began while another leader had not been told of its loss (must be 0)
   * @param tokenRegressions terms whose token was smaller than an earlier term's (must be 0)
   */
  public record LeadershipFigures(long terms, long overlaps, long tokenRegressions) {}

  /**
   * The counter workload.
   *
   * @param acknowledged increments whose reply came
   * @param unknown increments that failed without saying whether they were applied
   * @param finalValue the value read at the end
   * @param lostOrDuplicated whether the final value lies outside [acknowledged, acknowledged + unknown]
   */
  public record CounterFigures(long acknowledged, long unknown, long finalValue, boolean lostOrDuplicated) {}

  /** The report as a Markdown section: a title, the seed and faults, and one table. */
  public String toMarkdown() {
    StringBuilder out = new StringBuilder();
    out.append("### ").append(backend).append("\n\n");
    out.append(String.format(Locale.ROOT, "Seed %d, %d s of faults: %s.%n%n", seed, duration.toSeconds(),
        faults.isEmpty() ? "none" : String.join(", ", faults.entrySet().stream()
            .map(e -> e.getValue() + " x " + e.getKey()).toList())));
    out.append("| workload | measure | value | must be |\n|---|---|---|---|\n");
    row(out, "mutex", "critical sections", mutex.sections(), "");
    row(out, "mutex", "entered before an earlier holder was told of its loss", mutex.overlaps(), "0");
    row(out, "mutex", "losses told while inside", mutex.lossesTold(), "");
    row(out, "mutex", "stale writes refused by the fence", mutex.staleRefused(), "");
    row(out, "mutex", "stale writes accepted", mutex.staleAccepted(), "0");
    row(out, "mutex", "acquisitions timed out / failed", mutex.timeouts() + " / " + mutex.errors(), "");
    row(out, "mutex", "acquisitions that hung past their timeout", mutex.hung(), "0");
    if (leadership != null) {
      row(out, "leader latch", "terms", leadership.terms(), "");
      row(out, "leader latch", "terms begun before the previous leader was told", leadership.overlaps(), "0");
      row(out, "leader latch", "tokens smaller than an earlier term's", leadership.tokenRegressions(), "0");
    }
    if (counter != null) {
      row(out, "counter", "increments acknowledged / outcome unknown",
          counter.acknowledged() + " / " + counter.unknown(), "");
      row(out, "counter", "final value", counter.finalValue(), "within the two");
      row(out, "counter", "lost or duplicated updates", counter.lostOrDuplicated() ? "yes" : "no", "no");
    }
    out.append('\n');
    if (!problems.isEmpty()) {
      out.append("Problems:\n");
      problems.forEach(p -> out.append("- ").append(p).append('\n'));
    }
    return out.toString();
  }

  private static void row(StringBuilder out, String workload, String measure, Object value, String mustBe) {
    out.append("| ").append(workload).append(" | ").append(measure).append(" | ").append(value).append(" | ")
        .append(mustBe).append(" |\n");
  }

  /** The safety numbers that are not 0, as sentences. */
  static List<String> safetyProblems(MutexFigures mutex, LeadershipFigures leadership, CounterFigures counter) {
    List<String> problems = new ArrayList<>();
    if (mutex.overlaps() > 0) {
      problems.add(mutex.overlaps() + " mutex section(s) entered before an earlier holder was told of its loss");
    }
    if (mutex.staleAccepted() > 0) {
      problems.add(mutex.staleAccepted() + " stale write(s) accepted after a newer token's write");
    }
    if (mutex.hung() > 0) {
      problems.add(mutex.hung() + " acquisition(s) returned later than their timeout allows");
    }
    if (leadership != null && leadership.overlaps() > 0) {
      problems.add(leadership.overlaps() + " leadership term(s) begun before the previous leader was told");
    }
    if (leadership != null && leadership.tokenRegressions() > 0) {
      problems.add(leadership.tokenRegressions() + " leadership term(s) with a smaller token than an earlier one");
    }
    if (counter != null && counter.lostOrDuplicated()) {
      problems.add("counter ended at " + counter.finalValue() + ", outside [" + counter.acknowledged() + ", "
          + (counter.acknowledged() + counter.unknown()) + "]: updates lost or duplicated");
    }
    return problems;
  }
}
