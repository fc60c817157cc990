package dev.baton.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Curator's node names, without ZooKeeper: {@code _c_<uuid>-<kind><sequence>} ordered by the
 * sequence after the kind, other children left out, the last kind in a name deciding its kind,
 * and the mutual-exclusion rule of {@link QueueRules}.
 */
class LockNodesTest {
  private static final String L7 = "_c_a1-lock-0000000007";
  private static final String L9 = "_c_b2-lock-0000000009";
  private static final String L10 = "_c_c3-lock-0000000010";

  @Test
  void sortedBySequence_ordersByTheNumberAfterThePrefix_notByTheUuid() {
    List<String> nodes = List.of("_c_zz-lock-0000000010", "_c_aa-lock-0000000009", "_c_mm-lock-0000000011");
    assertThat(LockNodes.sortedBySequence(nodes, "lock-"))
        .containsExactly("_c_aa-lock-0000000009", "_c_zz-lock-0000000010", "_c_mm-lock-0000000011");
  }

  @Test
  void sortedBySequence_leavesOutChildrenWithoutThePrefix() {
    List<String> nodes = List.of(L10, "leases", "_c_x-latch-0000000001", L7);
    assertThat(LockNodes.sortedBySequence(nodes, "lock-")).containsExactly(L7, L10);
    assertThat(LockNodes.sortedBySequence(List.of(), "lock-")).isEmpty();
  }

  @Test
  void sortedBySequence_ofSeveralKinds_isOneQueue() {
    String read = "_c_r-__READ__0000000002";
    String write = "_c_w-__WRIT__0000000001";
    String laterRead = "_c_s-__READ__0000000003";
    assertThat(LockNodes.sortedBySequence(List.of(laterRead, read, write), List.of("__READ__", "__WRIT__")))
        .containsExactly(write, read, laterRead);
  }

  @Test
  void kindOf_lastKindInTheNameWins_andNoKindIsNull() {
    List<String> kinds = List.of("__READ__", "__WRIT__");
    // A uuid cannot hold these, but a node whose name carries both is decided by the later one.
    assertThat(LockNodes.kindOf("_c___WRIT__-__READ__0000000004", kinds)).isEqualTo("__READ__");
    assertThat(LockNodes.kindOf("_c_a-__WRIT__0000000004", kinds)).isEqualTo("__WRIT__");
    assertThat(LockNodes.kindOf("_c_a-lock-0000000004", kinds)).isNull();
  }

  @Test
  void sequence_isTheTextAfterTheLastPrefix() {
    assertThat(LockNodes.sequence(L9, "lock-")).isEqualTo("0000000009");
    assertThat(LockNodes.sequence("_c_lock-x-lock-0000000003", "lock-")).isEqualTo("0000000003");
  }

  @Test
  void protectedMarker_isCuratorsPrefixWithTheUuid() {
    assertThat(LockNodes.protectedMarker("1234")).isEqualTo("_c_1234-");
    assertThat(L7).startsWith(LockNodes.protectedMarker("a1"));
  }

  @Test
  void exclusive_waitsForTheNodeJustBelow_andHoldsWithNoneBelow() {
    assertThat(QueueRules.EXCLUSIVE.blocker(List.of())).isNull();
    assertThat(QueueRules.EXCLUSIVE.blocker(List.of(L7))).isEqualTo(L7);
    assertThat(QueueRules.EXCLUSIVE.blocker(List.of(L7, L9, L10))).isEqualTo(L10);
  }

  @Test
  void lockLayout_createsAndQueuesOnlyLockNodes() {
    assertThat(QueueRules.LOCK_LAYOUT.createPrefix()).isEqualTo("lock-");
    assertThat(QueueRules.LOCK_LAYOUT.kinds()).containsExactly("lock-");
  }
}
