package dev.baton.chaos;

import dev.baton.ConnectionState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The sessions one chaos client has lost, as its connection-state listener heard of them, for the
 * histories whose promises depend on a member's or a consumer's session (the double barrier's, the
 * queue's order). Each loss is bracketed: the ensemble ended the session after the client was
 * first told of the outage that led to it ({@link End#disconnectedAt}, SUSPENDED comes a third of
 * the session timeout before expiry), and no later than one session timeout after the client was
 * told LOST ({@link End#goneBy}: LOST may be presumed by the client before the ensemble expires
 * the session; a session that comes back after a presumed LOST did not end, and is no loss). A killed client hears nothing: its session is bracketed by the kill and one
 * session timeout after the ensemble can last have heard of it.
 */
final class SessionTrail {
  /**
   * A session that ended: gone on the ensemble somewhere between {@code disconnectedAt} and {@code
   * goneBy}; the client was told at {@code noticedAt}, so whatever it did before that was on this
   * session (times are nanoTime).
   */
  record End(long sessionId, long disconnectedAt, long noticedAt, long goneBy) {}

  private final Duration sessionTimeout;
  // Guarded by this.
  private final List<End> ends = new ArrayList<>();
  private long known;
  private long suspendedSince = Long.MAX_VALUE;

  SessionTrail(Duration sessionTimeout) {
    this.sessionTimeout = sessionTimeout;
  }

  /** The client's first session, established before its listener was added. */
  synchronized void started(long sessionId) {
    if (known == 0 && ends.isEmpty()) {
      known = sessionId;
    }
  }

  /** Called by the client's connection-state listener, on the thread that reports. */
  synchronized void heard(ConnectionState state, long sessionId) {
    long now = System.nanoTime();
    if (state == ConnectionState.SUSPENDED && suspendedSince == Long.MAX_VALUE) {
      suspendedSince = now;
    }
    if (state == ConnectionState.LOST || (sessionId != 0 && known != 0 && sessionId != known)) {
      end(now);
    }
    if (state.isConnected()) {
      suspendedSince = Long.MAX_VALUE;
      // LOST was presumed (silent past the timeout), but the session came back: it lived on.
      if (!ends.isEmpty() && ends.get(ends.size() - 1).sessionId() == sessionId) {
        ends.remove(ends.size() - 1);
      }
    }
    if (sessionId != 0 && state != ConnectionState.LOST) {
      known = sessionId;
    }
  }

  /** The client was killed: its link went silent for good now. */
  synchronized void killed() {
    suspendedSince = Math.min(suspendedSince, System.nanoTime());
    end(System.nanoTime() + sessionTimeout.toNanos());
  }

  private void end(long noticedAt) {
    if (known == 0) {
      return;
    }
    ends.add(new End(known, Math.min(suspendedSince, noticedAt), noticedAt, noticedAt + sessionTimeout.toNanos()));
    known = 0;
    suspendedSince = Long.MAX_VALUE;
  }

  synchronized List<End> ends() {
    return List.copyOf(ends);
  }

  /** By when session {@code sessionId} was surely gone from the ensemble; MAX_VALUE if it lived on. */
  synchronized long goneBy(long sessionId) {
    return ends.stream().filter(end -> end.sessionId() == sessionId).mapToLong(End::goneBy).min()
        .orElse(Long.MAX_VALUE);
  }
}
