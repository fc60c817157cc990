package dev.baton.internal.semaphore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.internal.semaphore.PermitCount.Verdict;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The semaphore's count, without ZooKeeper: our lease nodes hold when all are listed and at most
 * {@code permits} lease nodes sort at or below our highest; nodes above ours and children of other
 * kinds do not count; a node of ours missing from the listing means start over.
 */
class PermitCountTest {
  private static String lease(String uuid, int sequence) {
    return "_c_" + uuid + "-lease-" + String.format("%010d", sequence);
  }

  private static final String A1 = lease("a", 1);
  private static final String B2 = lease("b", 2);
  private static final String C3 = lease("c", 3);
  private static final String D4 = lease("d", 4);

  @Test
  void decide_withinPermits_holds() {
    assertThat(PermitCount.decide(List.of(A1, B2), Set.of(B2), 2)).isEqualTo(Verdict.HOLD);
    assertThat(PermitCount.decide(List.of(A1), Set.of(A1), 1)).isEqualTo(Verdict.HOLD);
  }

  @Test
  void decide_morePermitsTakenBelowThanAllowed_waits() {
    assertThat(PermitCount.decide(List.of(A1, B2, C3), Set.of(C3), 2)).isEqualTo(Verdict.WAIT);
  }

  @Test
  void decide_nodesAboveOurs_doNotCount() {
    // D4 was created out of turn after ours: it must not hold us back.
    assertThat(PermitCount.decide(List.of(A1, B2, C3, D4), Set.of(B2), 2)).isEqualTo(Verdict.HOLD);
  }

  @Test
  void decide_listingInAnyOrder_sortsBySequence() {
    assertThat(PermitCount.decide(List.of(C3, A1, B2), Set.of(B2), 2)).isEqualTo(Verdict.HOLD);
    assertThat(PermitCount.decide(List.of(C3, B2, A1), Set.of(C3), 2)).isEqualTo(Verdict.WAIT);
  }

  @Test
  void decide_ourNodeNotListed_isMissing() {
    assertThat(PermitCount.decide(List.of(A1, C3), Set.of(B2), 5)).isEqualTo(Verdict.MISSING);
    assertThat(PermitCount.decide(List.of(), Set.of(A1), 1)).isEqualTo(Verdict.MISSING);
  }

  @Test
  void decide_severalNodesOfOurs_countUpToTheHighest() {
    // Two permits of ours (B2, D4) with A1 below: three nodes up to D4, over a limit of 2.
    assertThat(PermitCount.decide(List.of(A1, B2, D4), Set.of(B2, D4), 2)).isEqualTo(Verdict.WAIT);
    assertThat(PermitCount.decide(List.of(A1, B2, D4), Set.of(B2, D4), 3)).isEqualTo(Verdict.HOLD);
    // One of the two gone: start over, whatever the count.
    assertThat(PermitCount.decide(List.of(A1, D4), Set.of(B2, D4), 3)).isEqualTo(Verdict.MISSING);
  }

  @Test
  void decide_childrenOfOtherKinds_takeNoPart() {
    List<String> listing = List.of(A1, "locks", "_c_x-lock-0000000000", B2);
    assertThat(PermitCount.decide(listing, Set.of(B2), 2)).isEqualTo(Verdict.HOLD);
  }
}
