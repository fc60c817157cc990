package dev.baton.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.zookeeper.KeeperException.Code;
import org.junit.jupiter.api.Test;

/** Every reply pair a claim can get, and what the taker does next. */
class ClaimOutcomeTest {

  @Test
  void claimMade_dependsOnTheRead() {
    assertThat(ClaimOutcome.of(Code.OK, -1, false, Code.OK)).isEqualTo(ClaimOutcome.CLAIMED);
    assertThat(ClaimOutcome.of(Code.OK, -1, true, Code.OK)).isEqualTo(ClaimOutcome.CLAIMED);
    assertThat(ClaimOutcome.of(Code.OK, -1, false, Code.CONNECTIONLOSS)).isEqualTo(ClaimOutcome.READ_AGAIN);
    assertThat(ClaimOutcome.of(Code.OK, -1, false, Code.NONODE)).isEqualTo(ClaimOutcome.GONE_UNDER_CLAIM);
    assertThat(ClaimOutcome.of(Code.OK, -1, false, Code.SESSIONEXPIRED)).isEqualTo(ClaimOutcome.SESSION_GONE);
    assertThat(ClaimOutcome.of(Code.OK, -1, false, Code.NOAUTH)).isEqualTo(ClaimOutcome.READ_REFUSED);
  }

  @Test
  void claimRefused_byWhichOperationFailed() {
    // check item (0), create claim (1)
    assertThat(ClaimOutcome.of(Code.NONODE, 0, false, Code.NONODE)).isEqualTo(ClaimOutcome.GONE);
    assertThat(ClaimOutcome.of(Code.NODEEXISTS, 1, false, Code.OK)).isEqualTo(ClaimOutcome.TAKEN);
    assertThat(ClaimOutcome.of(Code.NONODE, 1, false, Code.OK)).isEqualTo(ClaimOutcome.CREATE_CLAIMS_NODE);
    // check item (0), create claims container (1), create claim (2)
    assertThat(ClaimOutcome.of(Code.NODEEXISTS, 1, true, Code.OK)).isEqualTo(ClaimOutcome.CLAIMS_NODE_EXISTS);
    assertThat(ClaimOutcome.of(Code.NODEEXISTS, 2, true, Code.OK)).isEqualTo(ClaimOutcome.TAKEN);
    assertThat(ClaimOutcome.of(Code.NONODE, 0, true, Code.NONODE)).isEqualTo(ClaimOutcome.GONE);
    assertThat(ClaimOutcome.of(Code.NOAUTH, 1, false, Code.OK)).isEqualTo(ClaimOutcome.CLAIM_REFUSED);
  }

  @Test
  void claimUnanswered_isLookedFor_unlessTheSessionIsGone() {
    assertThat(ClaimOutcome.of(Code.CONNECTIONLOSS, -1, false, Code.CONNECTIONLOSS)).isEqualTo(ClaimOutcome.UNKNOWN);
    assertThat(ClaimOutcome.of(Code.OPERATIONTIMEOUT, -1, true, Code.OK)).isEqualTo(ClaimOutcome.UNKNOWN);
    assertThat(ClaimOutcome.of(Code.SESSIONEXPIRED, -1, false, Code.SESSIONEXPIRED)).isEqualTo(ClaimOutcome.SESSION_GONE);
  }
}
