package dev.baton.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.ConnectionState;
import dev.baton.chaos.BarrierHistory.Kind;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The double barrier's model of rounds, on hand-made histories (events in the order added). */
class BarrierHistoryTest {
  private final BarrierHistory history = new BarrierHistory(3, System.nanoTime());

  private void enter(String... members) {
    for (String member : members) {
      history.add(member, Kind.ENTER_CALLED);
    }
    for (String member : members) {
      history.add(member, Kind.ENTERED);
    }
  }

  private void leave(String... members) {
    for (String member : members) {
      history.add(member, Kind.LEAVE_CALLED);
    }
    for (String member : members) {
      history.add(member, Kind.LEFT);
    }
  }

  @Test
  void roundsOfThreshold_enterAndLeaveTogether_noViolation() {
    enter("a", "b", "c");
    leave("a", "b", "c");
    enter("b", "c", "a");
    leave("c", "a", "b");

    assertThat(history.violations()).isEmpty();
    assertThat(history.rounds()).isEqualTo(2);
  }

  @Test
  void memberArrivingWhileOpen_passesAtOnce_noViolation() {
    enter("a", "b", "c");
    enter("d");
    leave("a", "b", "c", "d");

    assertThat(history.violations()).isEmpty();
  }

  @Test
  void memberCallingEnterDuringTheLastLeaves_andPassingAloneAfter_isViolation() {
    enter("a", "b", "c");
    for (String member : new String[] {"a", "b", "c"}) {
      history.add(member, Kind.LEAVE_CALLED);
    }
    history.add("d", Kind.ENTER_CALLED);
    for (String member : new String[] {"a", "b", "c"}) {
      history.add(member, Kind.LEFT);
    }
    history.add("d", Kind.ENTERED);

    assertThat(history.violations()).singleElement().asString().startsWith("d passed enter");
  }

  @Test
  void memberPassingEnterAlone_isViolation() {
    enter("a", "b", "c");
    leave("a", "b", "c");
    history.add("d", Kind.ENTER_CALLED);
    history.add("d", Kind.ENTERED);

    assertThat(history.violations()).singleElement().asString()
        .startsWith("d passed enter").contains("fewer than 3 members");
  }

  @Test
  void leaveOverlappingAnEntry_closesNoRound_andIsCounted() {
    enter("a", "b", "c");
    for (String member : new String[] {"a", "b", "c"}) {
      history.add(member, Kind.LEAVE_CALLED);
    }
    history.add("d", Kind.ENTER_CALLED);
    history.add("d", Kind.ENTERED); // still open: it joins the round the others are leaving
    for (String member : new String[] {"a", "b", "c"}) {
      history.add(member, Kind.LEFT);
    }

    assertThat(history.violations()).isEmpty();
    assertThat(history.ambiguousClosings.get()).isEqualTo(3);
  }

  @Test
  void leaveReturningWhileAnotherIsInside_isViolation() {
    enter("a", "b", "c");
    leave("a");

    assertThat(history.violations()).hasSize(2).allSatisfy(v -> assertThat(v).startsWith("a passed leave"));
  }

  @Test
  void leaveReturningWhileAnotherIsInside_whoseSessionEnded_isExcusedOnce() {
    SessionTrail bSessions = new SessionTrail(Duration.ofSeconds(2));
    bSessions.started(1);
    history.member("b", bSessions);
    enter("a", "b", "c");
    bSessions.heard(ConnectionState.SUSPENDED, 1);
    bSessions.heard(ConnectionState.LOST, 1);
    leave("a", "c");

    assertThat(history.violations()).isEmpty();
    assertThat(history.excusedByLostSessions.get()).isEqualTo(1);
  }

  @Test
  void sessionEndedBeforeEntering_excusesNothing() {
    SessionTrail bSessions = new SessionTrail(Duration.ofSeconds(2));
    bSessions.started(1);
    history.member("b", bSessions);
    bSessions.heard(ConnectionState.SUSPENDED, 1);
    bSessions.heard(ConnectionState.LOST, 1);
    bSessions.heard(ConnectionState.RECONNECTED, 2);
    enter("a", "b", "c");
    leave("a", "c");

    assertThat(history.violations()).hasSize(2).allSatisfy(v -> assertThat(v).contains("while b was still inside"));
  }
}
