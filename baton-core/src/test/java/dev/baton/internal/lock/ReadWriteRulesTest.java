package dev.baton.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The read-write lock's rules, without ZooKeeper, on Curator's {@code __READ__}/{@code __WRIT__}
 * names: whom a reader or a writer waits for, who holds and who waits in a listing, and where a
 * downgrade's read node stands.
 */
class ReadWriteRulesTest {
  private static final String W1 = "_c_a-__WRIT__0000000001";
  private static final String R2 = "_c_b-__READ__0000000002";
  private static final String R3 = "_c_c-__READ__0000000003";
  private static final String W4 = "_c_d-__WRIT__0000000004";
  private static final String R5 = "_c_e-__READ__0000000005";
  private static final String W6 = "_c_f-__WRIT__0000000006";

  @Test
  void writerBlocker_anyNodeBelow_waitsForTheOneJustBelowOtherwiseHolds() {
    assertThat(ReadWriteRules.writerBlocker(List.of())).isEmpty();
    assertThat(ReadWriteRules.writerBlocker(List.of(R2))).contains(R2);
    assertThat(ReadWriteRules.writerBlocker(List.of(W1, R2, R3))).contains(R3);
    assertThat(ReadWriteRules.writerBlocker(List.of(R2, R3, W4))).contains(W4);
  }

  @Test
  void readerBlocker_onlyReadersBelow_holdsAndWithWritersWaitsForTheNearestWriter() {
    assertThat(ReadWriteRules.readerBlocker(List.of())).isEmpty();
    assertThat(ReadWriteRules.readerBlocker(List.of(R2, R3))).isEmpty();
    assertThat(ReadWriteRules.readerBlocker(List.of(W1, R2, R3))).contains(W1);
    assertThat(ReadWriteRules.readerBlocker(List.of(W1, R2, R3, W4, R5))).contains(W4);
  }

  /** QueueRule's contract: taking nodes away below a waiter never turns "holds" into "waits". */
  @Test
  void blockers_anySubsetOfNodesBelowAHoldingNode_stillHolds() {
    List<String> all = List.of(W1, R2, R3, W4, R5, W6);
    for (int mask = 0; mask < 1 << all.size(); mask++) {
      List<String> lower = subset(all, mask);
      for (int sub = mask; ; sub = (sub - 1) & mask) {
        List<String> fewer = subset(all, sub);
        if (ReadWriteRules.readerBlocker(lower).isEmpty()) {
          assertThat(ReadWriteRules.readerBlocker(fewer)).as("reader over %s", fewer).isEmpty();
        }
        if (ReadWriteRules.writerBlocker(lower).isEmpty()) {
          assertThat(ReadWriteRules.writerBlocker(fewer)).as("writer over %s", fewer).isEmpty();
        }
        if (sub == 0) {
          break;
        }
      }
    }
  }

  private static List<String> subset(List<String> all, int mask) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      if ((mask & 1 << i) != 0) {
        out.add(all.get(i));
      }
    }
    return out;
  }

  @Test
  void queue_unsortedChildren_splitsHoldersFromWaitersInSequenceOrderIgnoringOtherNodes() {
    ReadWriteRules.Queue readers =
        ReadWriteRules.queue(List.of(W4, "lease-x", R3, R5, R2, "_c_z-lock-0000000000"));
    assertThat(readers.holding()).containsExactly(R2, R3);
    assertThat(readers.waiting()).containsExactly(W4, R5);

    ReadWriteRules.Queue writer = ReadWriteRules.queue(List.of(R2, W1, R3));
    assertThat(writer.holding()).containsExactly(W1);
    assertThat(writer.waiting()).containsExactly(R2, R3);

    assertThat(ReadWriteRules.queue(List.of()).holding()).isEmpty();
  }

  @Test
  void queue_downgradeReadNodeAtItsWriteNodesPlace_holdsWithTheWriterAndBlocksLaterWriters() {
    UUID uuid = UUID.fromString("00000000-0000-0000-0000-000000000009");
    String downgraded = ReadWriteRules.downgradeNode(W1, uuid);
    assertThat(downgraded).isEqualTo("_c_00000000-0000-0000-0000-000000000009-__READ__0000000001");

    // The listing order of the two nodes at one place must not matter.
    for (List<String> children : List.of(List.of(R2, downgraded, W1), List.of(W1, R2, downgraded))) {
      ReadWriteRules.Queue queue = ReadWriteRules.queue(children);
      assertThat(queue.holding()).containsExactly(W1, downgraded);
      assertThat(queue.waiting()).containsExactly(R2);
    }
    // Once the write node is gone, the downgraded reader holds and readers behind it join.
    assertThat(ReadWriteRules.queue(List.of(downgraded, R2, W4)).holding()).containsExactly(downgraded, R2);
    // A writer that had queued before the downgrade sees the read node below it and waits.
    assertThat(ReadWriteRules.writerBlocker(List.of(downgraded))).contains(downgraded);
    assertThatThrownBy(() -> ReadWriteRules.downgradeNode(R2, UUID.randomUUID()))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
