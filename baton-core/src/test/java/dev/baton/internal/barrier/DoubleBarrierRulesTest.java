package dev.baton.internal.barrier;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A double barrier member's decisions, without a server: when to open, whom to wait for when leaving. */
class DoubleBarrierRulesTest {
  private static final String A = "1a0c-member";
  private static final String B = "7f3e-member";
  private static final String C = "c4d2-member";

  @Test
  void entry_opensWhenReadyIsListed_isFullAtTheThreshold_andCountsOnlyMembers() {
    assertThat(DoubleBarrierRules.entry(List.of(A, "ready"), 3)).isEqualTo(DoubleBarrierRules.Entry.OPEN);
    assertThat(DoubleBarrierRules.entry(List.of(A, B), 3)).isEqualTo(DoubleBarrierRules.Entry.WAIT);
    assertThat(DoubleBarrierRules.entry(List.of(C, A, B), 3)).isEqualTo(DoubleBarrierRules.Entry.FULL);
    // A threshold, not a limit.
    assertThat(DoubleBarrierRules.entry(List.of(C, A, B, "d9"), 3)).isEqualTo(DoubleBarrierRules.Entry.FULL);
    assertThat(DoubleBarrierRules.memberNodes(List.of(C, "ready", A, B))).containsExactly(A, B, C);
  }

  @Test
  void exit_lowestWaitsForHighest_othersDeleteAndWaitForLowest_lastDeletes() {
    List<String> all = List.of(C, "ready", A, B);
    assertThat(DoubleBarrierRules.exit(all, A)).isEqualTo(new DoubleBarrierRules.Exit(false, C));
    assertThat(DoubleBarrierRules.exit(all, B)).isEqualTo(new DoubleBarrierRules.Exit(true, A));
    assertThat(DoubleBarrierRules.exit(all, C)).isEqualTo(new DoubleBarrierRules.Exit(true, A));
    assertThat(DoubleBarrierRules.exit(List.of(A, "ready"), A)).isEqualTo(new DoubleBarrierRules.Exit(true, null));
    assertThat(DoubleBarrierRules.exit(List.of("ready"), A).done()).isTrue();
    assertThat(DoubleBarrierRules.exit(List.of(), null).done()).isTrue();
  }

  /** A member whose node is gone (deleted, or lost with its session) waits until no member is left. */
  @Test
  void exit_withoutOurNode_waitsForTheLowestUntilNobodyIsLeft() {
    assertThat(DoubleBarrierRules.exit(List.of(C, B), A)).isEqualTo(new DoubleBarrierRules.Exit(false, B));
    assertThat(DoubleBarrierRules.exit(List.of(C), null)).isEqualTo(new DoubleBarrierRules.Exit(false, C));
  }
}
