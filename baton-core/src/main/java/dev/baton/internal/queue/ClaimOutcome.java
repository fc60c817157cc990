package dev.baton.internal.queue;

import org.apache.zookeeper.KeeperException.Code;

/**
 * What one attempt to claim a queue item came to, decided from the replies to the two requests
 * sent together: the {@code multi} (check the item, [create the claims container,] create the
 * claim) and the read of the item. A pure function, so every case can be tested without a server.
 */
enum ClaimOutcome {
  /** The claim is ours and the item was read. */
  CLAIMED,
  /** The claim is ours, but the read's reply was lost: read again. */
  READ_AGAIN,
  /** Another consumer claimed the item first: the listing was stale. */
  TAKEN,
  /** The item is gone (acknowledged by its claimant): the listing was stale. */
  GONE,
  /**
   * The claim is ours but the item went under it, deleted by a consumer that does not claim
   * first: give the claim back, the listing was stale.
   */
  GONE_UNDER_CLAIM,
  /** The claims container is missing: claim again, creating it in the same transaction. */
  CREATE_CLAIMS_NODE,
  /** Another consumer created the claims container meanwhile: claim again without creating it. */
  CLAIMS_NODE_EXISTS,
  /** The claim's reply was lost: look for the claim by the data this attempt wrote. */
  UNKNOWN,
  /** The session expired: any claim of this attempt went with it. */
  SESSION_GONE,
  /** The ensemble refused the claim (an ACL, say): the taker fails. */
  CLAIM_REFUSED,
  /** The claim is ours but the item cannot be read: give the claim back, the taker fails. */
  READ_REFUSED;

  /**
   * @param claim the multi's result: OK, or the error of its first failed operation
   * @param failedOp the index of that operation, -1 if none
   * @param createsClaims whether the multi also created the claims container (then the claim is
   *     operation 2, else 1)
   * @param read the read's result
   */
  static ClaimOutcome of(Code claim, int failedOp, boolean createsClaims, Code read) {
    int claimOp = createsClaims ? 2 : 1;
    return switch (claim) {
      case OK -> switch (read) {
        case OK -> CLAIMED;
        case CONNECTIONLOSS, OPERATIONTIMEOUT -> READ_AGAIN;
        case NONODE -> GONE_UNDER_CLAIM;
        case SESSIONEXPIRED, SESSIONMOVED -> SESSION_GONE;
        default -> READ_REFUSED;
      };
      case NODEEXISTS -> createsClaims && failedOp == 1 ? CLAIMS_NODE_EXISTS : TAKEN;
      case NONODE -> failedOp == claimOp ? CREATE_CLAIMS_NODE : GONE;
      case CONNECTIONLOSS, OPERATIONTIMEOUT -> UNKNOWN;
      case SESSIONEXPIRED, SESSIONMOVED -> SESSION_GONE;
      default -> CLAIM_REFUSED;
    };
  }
}
