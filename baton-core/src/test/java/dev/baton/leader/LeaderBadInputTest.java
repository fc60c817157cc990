package dev.baton.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.ClientClosedException;
import dev.baton.ClusterTestSupport;
import dev.baton.lock.Lease;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bad input to the leader latch and selector: each gets a specific exception whose message names
 * the argument, and nothing is written to the ensemble.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LeaderBadInputTest extends ClusterTestSupport {
  private static final LeaderTask IDLE = lease -> { };

  private Set<String> treeBefore;

  @BeforeEach
  void snapshotTree() throws Exception {
    treeBefore = raw.tree();
  }

  private void assertNothingWritten() throws Exception {
    assertThat(raw.tree()).as("nodes on the server").isSubsetOf(treeBefore);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "no-slash", "/trailing/", "/double//slash", "/"})
  void invalidPath_isRefusedNamingTheArgument(String path) throws Exception {
    Baton baton = baton();
    assertThatThrownBy(() -> baton.leaderLatch(path, "a"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("leader latch path").hasMessageContaining("'" + path + "'");
    assertThatThrownBy(() -> baton.leaderSelector(path, "a", IDLE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("leader selector path").hasMessageContaining("'" + path + "'");
    assertNothingWritten();
  }

  @Test
  void nullArguments_areRefusedNamingTheArgument() throws Exception {
    Baton baton = baton();
    assertThatThrownBy(() -> baton.leaderLatch(null, "a"))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("leader latch path");
    assertThatThrownBy(() -> baton.leaderLatch("/leader/null", null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("participantId");
    assertThatThrownBy(() -> baton.leaderSelector("/leader/null", null, IDLE))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("participantId");
    assertThatThrownBy(() -> baton.leaderSelector("/leader/null", "a", null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("task");
    LeaderLatch latch = closing(baton.leaderLatch("/leader/null", "a"));
    assertThatThrownBy(() -> latch.addListener(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("listener");
    assertThatThrownBy(() -> latch.addListener(recorderStub(), null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("executor");
    assertNothingWritten();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "\t\n"})
  void blankParticipantId_isRefused(String id) throws Exception {
    Baton baton = baton();
    assertThatThrownBy(() -> baton.leaderLatch("/leader/blank", id))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("participantId must not be blank");
    assertThatThrownBy(() -> baton.leaderSelector("/leader/blank", id, IDLE))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("participantId must not be blank");
    assertNothingWritten();
  }

  @Test
  void participantIdTooLargeForANode_isRefused() throws Exception {
    String huge = "x".repeat(600 * 1024);
    assertThatThrownBy(() -> baton().leaderLatch("/leader/huge", huge))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("participantId")
        .hasMessageContaining("bytes");
    assertNothingWritten();
  }

  @Test
  void startTwice_orAfterClose_isRefused() throws Exception {
    Baton baton = baton();
    LeaderLatch latch = closing(baton.leaderLatch("/leader/twice", "a"));
    latch.start();
    assertThatThrownBy(latch::start).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already started").hasMessageContaining("/leader/twice");
    latch.close();
    latch.close(); // idempotent
    assertThatThrownBy(latch::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");

    LeaderSelector selector = closing(baton.leaderSelector("/leader/twice-selector", "a", IDLE));
    assertThatThrownBy(selector::requeue).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not started");
    selector.start();
    assertThatThrownBy(selector::start).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already started");
    selector.close();
    assertThatThrownBy(selector::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    assertThatThrownBy(selector::requeue).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    awaitChildren("/leader/twice", 0);
    awaitChildren("/leader/twice-selector", 0);
  }

  @Test
  void await_withBadTimeout_orBeforeStart_isRefused() throws Exception {
    LeaderLatch latch = closing(baton().leaderLatch("/leader/await", "a"));
    assertThatThrownBy(() -> latch.await(Duration.ofSeconds(1))).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("start()");
    latch.start();
    assertThatThrownBy(() -> latch.await(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("timeout").hasMessageContaining("negative");
    assertThatThrownBy(() -> latch.await(null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("timeout");
    latch.close();
    awaitChildren("/leader/await", 0);
  }

  @Test
  void closedClient_refusesNewParticipants() throws Exception {
    Baton baton = baton();
    LeaderLatch made = baton.leaderLatch("/leader/closed-client", "a");
    baton.close();
    assertThatThrownBy(() -> baton.leaderLatch("/leader/closed-client", "a"))
        .isInstanceOf(ClientClosedException.class);
    assertThatThrownBy(() -> baton.leaderSelector("/leader/closed-client", "a", IDLE))
        .isInstanceOf(ClientClosedException.class);
    assertThatThrownBy(made::start).isInstanceOf(ClientClosedException.class);
    assertThatThrownBy(made::leaderId).isInstanceOf(ClientClosedException.class);
    assertNothingWritten();
  }

  private static LeadershipListener recorderStub() {
    return new LeadershipListener() {
      @Override
      public void leadershipGained(Lease leadership) { }

      @Override
      public void leadershipLost(Lease leadership) { }
    };
  }
}
