package dev.baton.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.internal.session.Session;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The shared listing's decisions, without a server: the queue order every waiter finds its place
 * in, and the floor of nodes known gone, which must never carry over to another life of the path.
 */
class QueueSnapshotTest {
  private static final List<String> LOCK = List.of("lock-");

  @Test
  void of_keepsTheQueuesNodesInSequenceOrder_andFindsEachByBinarySearch() {
    List<String> children = List.of("_c_c-lock-0000000012", "other", "_c_a-lock-0000000003",
        "_c_b-latch-0000000001", "_c_d-lock-0000000007", "lock-0000000010");
    QueueSnapshot snapshot = QueueSnapshot.of(children, LOCK, 42);

    assertThat(snapshot.between(0, snapshot.size()))
        .containsExactly("_c_a-lock-0000000003", "_c_d-lock-0000000007", "lock-0000000010", "_c_c-lock-0000000012");
    assertThat(snapshot.indexOf("_c_a-lock-0000000003")).isZero();
    assertThat(snapshot.indexOf("_c_c-lock-0000000012")).isEqualTo(3);
    assertThat(snapshot.indexOf("_c_x-lock-0000000007")).as("same place, another node").isEqualTo(-1);
    assertThat(snapshot.indexOf("_c_x-lock-0000000008")).isEqualTo(-1);
    assertThat(snapshot.incarnation()).isEqualTo(42);
  }

  @Test
  void firstAtOrAbove_isThePlaceOfTheFirstNodeNotBelowTheSequence() {
    QueueSnapshot snapshot = QueueSnapshot.of(
        List.of("_c_a-lock-0000000003", "_c_b-lock-0000000007", "_c_c-lock-0000000012"), LOCK, 1);
    assertThat(snapshot.firstAtOrAbove("0000000000")).isZero();
    assertThat(snapshot.firstAtOrAbove("0000000003")).isZero();
    assertThat(snapshot.firstAtOrAbove("0000000004")).isEqualTo(1);
    assertThat(snapshot.firstAtOrAbove("0000000012")).isEqualTo(2);
    assertThat(snapshot.firstAtOrAbove("0000000013")).isEqualTo(3);
    assertThat(snapshot.between(1, 2)).containsExactly("_c_b-lock-0000000007");
  }

  @Test
  void readWriteQueue_ordersBothKindsTogether_andFindsADowngradesTwoNodesAtOnePlace() {
    List<String> kinds = List.of("__READ__", "__WRIT__"); // the read-write lock's two kinds
    String write = "_c_w-__WRIT__0000000005";
    String downgrade = "_c_r-__READ__0000000005";
    QueueSnapshot snapshot = QueueSnapshot.of(
        List.of("_c_x-__READ__0000000009", downgrade, "_c_y-__READ__0000000001", write), kinds, 1);
    assertThat(snapshot.between(0, snapshot.size()))
        .containsExactly("_c_y-__READ__0000000001", downgrade, write, "_c_x-__READ__0000000009");
    assertThat(snapshot.indexOf(write)).isEqualTo(2);
    assertThat(snapshot.indexOf(downgrade)).isEqualTo(1);
    assertThat(snapshot.firstAtOrAbove("0000000005")).isEqualTo(1);
  }

  @Test
  void floor_growsWithinOneLifeOfThePath_andNeverAppliesToAnother() {
    SharedListings shared = SharedListings.join(new Session.Handle(1), "/floor", LOCK);
    try {
      assertThat(shared.goneBelow(10)).isNull();
      shared.learnGoneBelow(10, "0000000005");
      shared.learnGoneBelow(10, "0000000003"); // learnt late: what is known already covers it
      assertThat(shared.goneBelow(10)).isEqualTo("0000000005");
      assertThat(shared.goneBelow(11)).as("another life of the path").isNull();

      // The container was removed and made again: its sequence numbers start over.
      shared.learnGoneBelow(20, "0000000001");
      assertThat(shared.goneBelow(20)).isEqualTo("0000000001");
      assertThat(shared.goneBelow(10)).isNull();
      shared.learnGoneBelow(10, "0000000009"); // from a waiter still on the old life's listing
      assertThat(shared.goneBelow(20)).isEqualTo("0000000001");
      assertThat(shared.goneBelow(10)).isNull();
    } finally {
      shared.leave();
    }
  }

  @Test
  void sharedListings_areOnePerSessionPathAndKinds_andForgottenWhenTheLastWaiterLeaves() {
    Session.Handle handle = new Session.Handle(1);
    SharedListings first = SharedListings.join(handle, "/one", LOCK);
    SharedListings second = SharedListings.join(handle, "/one", LOCK);
    SharedListings otherPath = SharedListings.join(handle, "/two", LOCK);
    SharedListings otherSession = SharedListings.join(new Session.Handle(2), "/one", LOCK);
    assertThat(second).isSameAs(first);
    assertThat(otherPath).isNotSameAs(first);
    assertThat(otherSession).isNotSameAs(first);
    first.learnGoneBelow(1, "0000000004");

    first.leave();
    assertThat(SharedListings.join(handle, "/one", LOCK)).as("one waiter still there").isSameAs(first);
    first.leave();
    second.leave();
    SharedListings fresh = SharedListings.join(handle, "/one", LOCK);
    assertThat(fresh).as("after the last waiter left").isNotSameAs(first);
    assertThat(fresh.goneBelow(1)).isNull();
    fresh.leave();
    otherPath.leave();
    otherSession.leave();
  }
}
