package dev.baton.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The queue's promises, order per producer among them, on hand-made histories. */
class QueueHistoryTest {
  private final QueueHistory history = new QueueHistory();

  private void takeAndAck(String value, String consumer) {
    history.delivered(value, consumer, System.nanoTime()).ended(QueueHistory.AckOutcome.ACKED);
  }

  @Test
  void itemsTakenInTheOrderPut_noViolation() {
    history.putConfirmed("p-1");
    history.putConfirmed("p-2");
    takeAndAck("p-1", "c1");
    takeAndAck("p-2", "c2");

    assertThat(history.violations(List.of())).isEmpty();
  }

  @Test
  void laterItemTakenFirst_withoutALostClaim_isViolation() {
    history.putConfirmed("p-1");
    history.putConfirmed("p-2");
    takeAndAck("p-2", "c1");
    takeAndAck("p-1", "c2");

    assertThat(history.violations(List.of())).singleElement().asString()
        .startsWith("out of order: p-2 was taken by c1 before p-1");
  }

  @Test
  void laterItemTakenFirst_whileEarlierStillQueued_isViolation() {
    history.putConfirmed("p-1");
    history.putConfirmed("p-2");
    takeAndAck("p-2", "c1");

    assertThat(history.violations(List.of("p-1"))).singleElement().asString()
        .contains("before p-1 (still queued at the end)");
  }

  @Test
  void laterItemTakenFirst_whileAFailedTakesClaimMayLive_isExcused() {
    history.putConfirmed("p-1");
    history.putConfirmed("p-2");
    history.takeFailed(System.nanoTime(), () -> Long.MAX_VALUE);
    takeAndAck("p-2", "c1");
    takeAndAck("p-1", "c2");

    assertThat(history.violations(List.of())).isEmpty();
    assertThat(history.excusedOutOfOrder.get()).isEqualTo(1);
  }

  @Test
  void laterItemTakenFirst_afterTheFailedTakesSessionWasGone_isViolation() {
    history.putConfirmed("p-1");
    history.putConfirmed("p-2");
    long failedAt = System.nanoTime();
    long goneBy = System.nanoTime();
    history.takeFailed(failedAt, () -> goneBy);
    takeAndAck("p-2", "c1");
    takeAndAck("p-1", "c2");

    assertThat(history.violations(List.of())).hasSize(1);
  }
}
