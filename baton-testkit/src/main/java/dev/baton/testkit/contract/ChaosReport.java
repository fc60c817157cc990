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
 * @param schedule every fault in the order it struck, each with its time from the run's start
 * @param keyDeletions how many times the records of the locks were deleted under their holders (each
 *     time every lock's whose record the fixture can delete: see {@link LockFigures#recordDeletions()})
 * @param keyDeletionLossPromised whether the backend promises {@link
 *     Promise#LOSS_TOLD_BEFORE_REGRANT_WHEN_KEY_DELETED}; if not, overlaps a deletion explains are
 *     reported but are no safety problem
 * @param failovers how many times the store failed over to a replica that lagged behind
 * @param failoverGrantsPromised whether the backend promises {@link
 *     Promise#GRANT_KEPT_ACROSS_FAILOVER}; if not, overlaps a failover explains are reported (each
 *     with its failover) but are no safety problem
 * @param failoverLines one line per failover: the overlaps entered after it, by workload, and the
 *     stale writes the fences refused after it
 * @param mutex the mutex with a fenced resource
 * @param readWrite the read-write lock (writers write through a fence), if the backend has one
 * @param semaphore the semaphore, if the backend has one
 * @param leadership the leader latch, if the backend has one
 * @param counter the counter, if the backend has one
 * @param leftovers what the recipes left in the store once every client closed, if the fixture can
 *     look
 * @param problems every safety problem found, as sentences; empty for a clean run
 */
public record ChaosReport(String backend, long seed, Duration duration, Map<String, Integer> faults,
    List<String> schedule, long keyDeletions, boolean keyDeletionLossPromised, long failovers,
    boolean failoverGrantsPromised, List<String> failoverLines, LockFigures mutex, LockFigures readWrite, LockFigures semaphore,
    LeadershipFigures leadership, CounterFigures counter, LeftoverFigures leftovers, List<String> problems) {

  /**
   * A lock workload: the mutex, the read-write lock or the semaphore.
   *
   * @param workload how the table names it ({@code mutex}, {@code read-write lock}, {@code semaphore
   *     of 2})
   * @param rule what {@code overlaps} counts, in the table's words
   * @param sections sections entered (for the read-write lock, reads and writes)
   * @param sharedSections sections entered under a shared (read) lease
   * @param overlaps sections entered while the rule was broken by sections whose holders had not
   *     been told of their loss: a loss told late or never (must be 0); for an exclusive lock,
   *     fencing tokens of exclusive sections that did not grow are counted here too
   * @param recordDeletions how many times this lock's record was deleted under its holder (the
   *     deletion found a record or not)
   * @param afterKeyDeletion those of {@code overlaps} that a deletion of the lock's record explains
   *     (the earlier holder's key was deleted under it, or its grant may predate a deletion): 0
   *     where the backend promises {@link Promise#LOSS_TOLD_BEFORE_REGRANT_WHEN_KEY_DELETED}
   * @param afterFailover those of {@code overlaps} that a failover explains (the earlier holder's
   *     section was open at a failover, or its grant ran across one): 0 where the backend promises
   *     {@link Promise#GRANT_KEPT_ACROSS_FAILOVER}
   * @param lossesTold sections whose holder heard {@code SUSPECT} or {@code LOST} while inside
   * @param fenced whether holders wrote through a fenced resource (not for a semaphore, whose
   *     permits are not ordered)
   * @param staleRefused writes the fence refused (a holder that lost the lock while stalled)
   * @param staleAccepted writes accepted after a write with a newer token (must be 0)
   * @param timeouts acquisitions that timed out (not a fault: the lock was busy or the link down)
   * @param errors acquisitions that failed with an error (connection lost, client closed)
   * @param hung acquisitions that returned later than their timeout allows (must be 0)
   */
  public record LockFigures(String workload, String rule, long sections, long sharedSections, long overlaps,
      long recordDeletions, long afterKeyDeletion, long afterFailover, long lossesTold, boolean fenced, long staleRefused, long staleAccepted, long timeouts, long errors, long hung) {}

  /**
   * The leader-latch workload: each participant, while it leads, writes through a fence with its
   * leadership's token, and once deposed writes once more with the old token as soon as a newer
   * term has begun, as a leader waking from a pause would.
   *
   * @param terms leadership terms (gained, then lost or ended)
   * @param overlaps terms that began while another leader had not been told of its loss (must be 0
   *     but for those a failover explains)
   * @param afterFailover those of {@code overlaps} that a failover explains: 0 where the backend
   *     promises {@link Promise#GRANT_KEPT_ACROSS_FAILOVER}
   * @param tokenRegressions terms whose token was smaller than an earlier term's (must be 0)
   * @param leaderWrites writes made while the latch read a valid leadership
   * @param deposedRefused late writes of deposed leaders, once a newer term began, that the fence
   *     refused (the newer leader had written)
   * @param deposedAccepted such late writes accepted because the newer leader had not written yet
   * @param staleAccepted writes accepted after a write with a newer token (must be 0)
   */
  public record LeadershipFigures(long terms, long overlaps, long afterFailover, long tokenRegressions, long leaderWrites,
      long deposedRefused, long deposedAccepted, long staleAccepted) {}

  /**
   * The counter workload.
   *
   * @param acknowledged increments whose reply came
   * @param unknown increments that failed without saying whether they were applied
   * @param finalValue the value read at the end
   * @param lostOrDuplicated whether the final value lies outside [acknowledged, acknowledged + unknown]
   */
  public record CounterFigures(long acknowledged, long unknown, long finalValue, boolean lostOrDuplicated) {}

  /**
   * What the recipes left in the store once every client closed ({@link
   * ContractBackend#leftovers}): nodes, keys, hash fields, permit entries or rows that still hold or
   * wait for a grant.
   *
   * @param atClose how many the store held right after the last client closed
   * @param left how many it still held once the bound had passed (must be 0)
   * @param bound how long the run waited for them to go
   * @param sample some of those still left, as the fixture names them
   */
  public record LeftoverFigures(long atClose, long left, Duration bound, List<String> sample) {}

  /** The lock workloads the backend ran, in table order. */
  public List<LockFigures> locks() {
    List<LockFigures> locks = new ArrayList<>();
    locks.add(mutex);
    if (readWrite != null) {
      locks.add(readWrite);
    }
    if (semaphore != null) {
      locks.add(semaphore);
    }
    return locks;
  }

  /** The report as a Markdown section: a title, the seed and faults, one table, the fault schedule. */
  public String toMarkdown() {
    StringBuilder out = new StringBuilder();
    out.append("### ").append(backend).append("\n\n");
    out.append(String.format(Locale.ROOT, "Seed %d, %d s of faults: %s.%n%n", seed, duration.toSeconds(),
        faults.isEmpty() ? "none" : String.join(", ", faults.entrySet().stream()
            .map(e -> e.getValue() + " x " + e.getKey()).toList())));
    out.append("| workload | measure | value | must be |\n|---|---|---|---|\n");
    for (LockFigures lock : locks()) {
      String w = lock.workload();
      boolean keyDeletionExcused = !keyDeletionLossPromised && lock.recordDeletions() > 0;
      boolean failoverExcused = !failoverGrantsPromised && failovers > 0;
      row(out, w, "critical sections", lock.sharedSections() > 0 || readWrite == lock
          ? lock.sections() + " (" + lock.sharedSections() + " shared)" : lock.sections(), "");
      row(out, w, lock.rule() + " (told late or never)", lock.overlaps(), "0" + (keyDeletionExcused && failoverExcused
          ? " but for key deletions and failovers" : keyDeletionExcused ? " but for key deletions"
          : failoverExcused ? " but for failovers" : ""));
      if (lock.recordDeletions() > 0) {
        row(out, w, "of which after a holder's record was deleted under it (" + lock.recordDeletions() + " deletions)", lock.afterKeyDeletion(),
            keyDeletionExcused ? "" : "0");
      }
      if (failovers > 0) {
        row(out, w, "of which after a failover (listed below)", lock.afterFailover(), failoverExcused ? "" : "0");
      }
      row(out, w, "losses told while inside", lock.lossesTold(), "");
      if (lock.fenced()) {
        row(out, w, "stale writes refused by the fence", lock.staleRefused(), "");
        row(out, w, "stale writes accepted", lock.staleAccepted(), "0");
      }
      row(out, w, "acquisitions timed out / failed", lock.timeouts() + " / " + lock.errors(), "");
      row(out, w, "acquisitions that hung past their timeout", lock.hung(), "0");
    }
    if (leadership != null) {
      row(out, "leader latch", "terms", leadership.terms(), "");
      row(out, "leader latch", "terms begun before the previous leader was told", leadership.overlaps(),
          failovers > 0 && !failoverGrantsPromised ? "0 but for failovers" : "0");
      if (failovers > 0) {
        row(out, "leader latch", "of which after a failover (listed below)", leadership.afterFailover(),
            failoverGrantsPromised ? "0" : "");
      }
      row(out, "leader latch", "tokens smaller than an earlier term's", leadership.tokenRegressions(), "0");
      row(out, "leader latch", "writes while leading", leadership.leaderWrites(), "");
      row(out, "leader latch", "deposed leaders' late writes refused / accepted (newer leader yet to write)",
          leadership.deposedRefused() + " / " + leadership.deposedAccepted(), "");
      row(out, "leader latch", "stale writes accepted", leadership.staleAccepted(), "0");
    }
    if (counter != null) {
      row(out, "counter", "increments acknowledged / outcome unknown",
          counter.acknowledged() + " / " + counter.unknown(), "");
      row(out, "counter", "final value", counter.finalValue(), "within the two");
      row(out, "counter", "lost or duplicated updates", counter.lostOrDuplicated() ? "yes" : "no", "no");
    }
    if (leftovers != null) {
      row(out, "store", "grants left once every client closed (nodes, keys, rows; after up to "
          + leftovers.bound().toSeconds() + " s)", leftovers.left() + " (" + leftovers.atClose() + " right at close)", "0");
    }
    out.append('\n');
    if (!problems.isEmpty()) {
      out.append("Problems:\n");
      problems.forEach(p -> out.append("- ").append(p).append('\n'));
      out.append('\n');
    }
    if (!failoverLines.isEmpty()) {
      out.append("Failovers (each overlap above is listed under the latest failover before it; stale writes"
          + " accepted stay 0):\n");
      failoverLines.forEach(l -> out.append("- ").append(l).append('\n'));
      out.append('\n');
    }
    if (!schedule.isEmpty()) {
      out.append("<details><summary>Fault schedule (").append(schedule.size()).append(" faults)</summary>\n\n");
      schedule.forEach(s -> out.append("- ").append(s).append('\n'));
      out.append("\n</details>\n");
    }
    return out.toString();
  }

  private static void row(StringBuilder out, String workload, String measure, Object value, String mustBe) {
    out.append("| ").append(workload).append(" | ").append(measure).append(" | ").append(value).append(" | ")
        .append(mustBe).append(" |\n");
  }

  /** The safety numbers that are not 0, as sentences. */
  static List<String> safetyProblems(List<LockFigures> locks, boolean keyDeletionLossPromised,
      boolean failoverGrantsPromised, LeadershipFigures leadership, CounterFigures counter, LeftoverFigures leftovers) {
    List<String> problems = new ArrayList<>();
    for (LockFigures lock : locks) {
      long afterDeletion = keyDeletionLossPromised ? 0 : lock.afterKeyDeletion();
      long afterFailover = failoverGrantsPromised ? 0 : lock.afterFailover();
      long unexcused = lock.overlaps() - afterDeletion - afterFailover;
      if (unexcused > 0) {
        problems.add(lock.workload() + ": " + unexcused + " x " + lock.rule()
            + (unexcused == lock.overlaps() ? "" : " (not counting " + afterDeletion
                + " after key deletions and " + afterFailover + " after failovers, which the backend does not"
                + " promise to keep exclusive)"));
      }
      if (lock.staleAccepted() > 0) {
        problems.add(lock.workload() + ": " + lock.staleAccepted() + " stale write(s) accepted after a newer token's write");
      }
      if (lock.hung() > 0) {
        problems.add(lock.workload() + ": " + lock.hung() + " acquisition(s) returned later than their timeout allows");
      }
    }
    long leaderUnexcused = leadership == null ? 0
        : leadership.overlaps() - (failoverGrantsPromised ? 0 : leadership.afterFailover());
    if (leaderUnexcused > 0) {
      problems.add(leaderUnexcused + " leadership term(s) begun before the previous leader was told"
          + (leaderUnexcused == leadership.overlaps() ? "" : " (not counting those after failovers)"));
    }
    if (leadership != null && leadership.tokenRegressions() > 0) {
      problems.add(leadership.tokenRegressions() + " leadership term(s) with a smaller token than an earlier one");
    }
    if (leadership != null && leadership.staleAccepted() > 0) {
      problems.add(leadership.staleAccepted() + " leader write(s) accepted after a newer leader's write");
    }
    if (counter != null && counter.lostOrDuplicated()) {
      problems.add("counter ended at " + counter.finalValue() + ", outside [" + counter.acknowledged() + ", "
          + (counter.acknowledged() + counter.unknown()) + "]: updates lost or duplicated");
    }
    if (leftovers != null && leftovers.left() > 0) {
      problems.add(leftovers.left() + " grant(s) left in the store " + leftovers.bound().toSeconds()
          + " s after every client closed: " + String.join(", ", leftovers.sample()));
    }
    return problems;
  }
}
