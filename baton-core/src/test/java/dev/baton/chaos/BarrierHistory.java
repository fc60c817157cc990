package dev.baton.chaos;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the chaos run's double-barrier members did, one event per call and outcome, checked once
 * the run is over against the barrier's promise: no member passes {@code enter} before the
 * threshold of members were in at once, and no member passes {@code leave} while another is still
 * inside. Times are {@link System#nanoTime()}, taken just before a call and just after it returns.
 *
 * <h2>The model of rounds</h2>
 * The barrier is open while its {@code ready} node exists. It opens when the threshold of member
 * nodes are in at once, and a member arriving while it is open passes at once. A {@code leave}
 * returns only once no member node is left, having deleted {@code ready} first: so each {@code
 * leave} that returns closes a round, and the next round starts with nobody counted but the
 * members then entering (or still inside, which is itself a violation, below). The history only
 * knows that the closing happened between the call and the return: a {@code leave} during which
 * another member passed {@code enter} may have closed its round before that entry or after it (a
 * slow link can delay the return past a whole new round), so it closes nothing in the model, which
 * is lenient; such leaves are counted. (Members that only called {@code enter} meanwhile are
 * entering either way, and count in the next round.) {@code DoubleBarrierClosingRoundTest} covers
 * that window deterministically.
 *
 * <p>Each member is, at each instant, one of: out; entering (from the {@code enter} call to its
 * return); inside (from {@code enter}'s return to the {@code leave} call); leaving (from the call
 * to the return); or in doubt (after an {@code enter} or {@code leave} that failed: Baton deletes
 * its node in the background once the connection is back, so it may still be there). A member
 * counts as in when it is entering, or inside, leaving or in doubt and its node may still exist.
 * Its node may not exist once a round closes (for members leaving or in doubt then: a closing
 * {@code leave} saw no member node) or once its session is gone.
 *
 * <p>The checks, in time order:
 * <ul>
 *   <li>Enter: when an {@code enter} returns, the count of members in must have reached the
 *       threshold at some instant since the last round closed.</li>
 *   <li>Leave: when a {@code leave} returns, no other member may be inside that was already inside
 *       when this {@code leave} was called (one that entered during the call cannot be ordered
 *       against its return from the history, and is left to the enter check of the next round).</li>
 * </ul>
 *
 * <h2>Members whose session ends</h2>
 * A member whose session ends loses its node: it has left early, legitimately, and others' {@code
 * leave} returns without it. Sessions are bracketed by the client's {@link SessionTrail}: for the
 * leave check a member inside counts as gone from the moment its client was told of the outage
 * that cost the session (before the ensemble expired it), and for the enter count it stays in
 * until the session was surely gone (after). Each bracket is lenient in the direction that cannot
 * raise a false alarm, by at most about a session timeout. An {@code enter} that returns normally
 * only after its timeout passed may have had its node deleted as the barrier opened (see {@link
 * dev.baton.barrier.DoubleBarrier#enter(java.time.Duration)}): it counts as having left at once.
 * A member entering when its session ends enters again on the next one, so it stays in. The
 * excused departures are counted in the summary.
 */
final class BarrierHistory {
  enum Kind { ENTER_CALLED, ENTERED, ENTERED_LATE, ENTER_FAILED, LEAVE_CALLED, LEFT, LEAVE_FAILED }

  private enum Phase { OUT, ENTERING, INSIDE, LEAVING, DOUBT }

  record Event(long at, String member, Kind kind) {}

  private static final int RECENT_EVENTS = 30;
  private final int threshold;
  /** The instant times in reports count from (the run's origin). */
  private final long origin;
  private final List<Event> events = new ArrayList<>();
  private final Map<String, SessionTrail> trails = new ConcurrentHashMap<>();
  final AtomicLong excusedByLostSessions = new AtomicLong();
  final AtomicLong lateEnters = new AtomicLong();
  /** Leaves that returned but closed no round in the model, an entry overlapping them (see below). */
  final AtomicLong ambiguousClosings = new AtomicLong();
  private long rounds;

  /** @param origin the nanoTime reports count milliseconds from */
  BarrierHistory(int threshold, long origin) {
    this.threshold = threshold;
    this.origin = origin;
  }

  /** A member, and the trail of its client's sessions. */
  void member(String member, SessionTrail trail) {
    trails.put(member, trail);
  }

  synchronized void add(String member, Kind kind) {
    events.add(new Event(System.nanoTime(), member, kind));
  }

  synchronized long count(Kind kind) {
    return events.stream().filter(e -> e.kind() == kind).count();
  }

  /** Rounds (with an entry) closed by a {@code leave} that returned, as of the last {@link #violations()}. */
  synchronized long rounds() {
    return rounds;
  }

  /** The broken promises, per the class comment. */
  synchronized List<String> violations() {
    List<Event> timeline = new ArrayList<>(events);
    // Two instants per session end: from the first the member inside is excused from the leave
    // check; at the second its node is surely gone, so it no longer counts as in.
    Map<String, List<SessionTrail.End>> ends = new HashMap<>();
    trails.forEach((member, trail) -> ends.put(member, trail.ends()));
    timeline.sort(Comparator.comparingLong(Event::at));
    Sweep sweep = new Sweep(ends);
    for (Event event : timeline) {
      sweep.step(event);
    }
    rounds = sweep.rounds;
    return sweep.violations;
  }

  private String ms(long at) {
    return String.format(java.util.Locale.ROOT, "%+.3f ms", (at - origin) / 1e6);
  }

  /** The members' phases through the timeline. */
  private final class Sweep {
    final Map<String, Phase> phase = new HashMap<>();
    /** When each member's current phase began. */
    final Map<String, Long> since = new HashMap<>();
    final Map<String, List<SessionTrail.End>> ends;
    final List<String> violations = new ArrayList<>();
    /** The last events, for the reports. */
    final java.util.ArrayDeque<Event> recent = new java.util.ArrayDeque<>();
    boolean reached;
    boolean enteredSinceClose;
    long lastEntryAt = Long.MIN_VALUE;
    long roundStart = origin;
    String closedBy = "nobody (the start)";
    long rounds;

    Sweep(Map<String, List<SessionTrail.End>> ends) {
      this.ends = ends;
    }

    void step(Event event) {
      recent.addLast(event);
      if (recent.size() > RECENT_EVENTS) {
        recent.removeFirst();
      }
      String member = event.member();
      switch (event.kind()) {
        case ENTER_CALLED -> {
          set(member, Phase.ENTERING, event.at());
          look(event.at());
        }
        case ENTERED, ENTERED_LATE -> {
          lastEntryAt = event.at();
          if (!reached) {
            violations.add(member + " passed enter at " + ms(event.at()) + ", though fewer than " + threshold
                + " members were in at once since the last round closed at " + ms(roundStart) + " by "
                + closedBy + "; " + phases());
          }
          enteredSinceClose = true;
          if (event.kind() == Kind.ENTERED_LATE) {
            lateEnters.incrementAndGet();
            set(member, Phase.OUT, event.at());
          } else {
            set(member, Phase.INSIDE, event.at());
          }
        }
        case ENTER_FAILED, LEAVE_FAILED -> set(member, Phase.DOUBT, event.at());
        case LEAVE_CALLED -> set(member, Phase.LEAVING, event.at());
        case LEFT -> {
          long called = since.getOrDefault(member, Long.MIN_VALUE);
          for (Map.Entry<String, Phase> other : phase.entrySet()) {
            String name = other.getKey();
            if (name.equals(member) || other.getValue() != Phase.INSIDE || since.get(name) >= called) {
              continue;
            }
            if (goneFrom(name, since.get(name), event.at())) {
              excusedByLostSessions.incrementAndGet();
              set(name, Phase.OUT, event.at()); // it left early, once
              continue;
            }
            violations.add(member + " passed leave at " + ms(event.at()) + " while " + name
                + " was still inside (entered at " + ms(since.get(name)) + ", before this leave was called at "
                + ms(called) + ", and its session lived on); " + phases());
          }
          set(member, Phase.OUT, event.at());
          if (lastEntryAt > called) {
            // Someone passed enter during this leave: its closing cannot be placed against that entry
            // (a slow link can make it come long after a new round opened), so it is no boundary.
            ambiguousClosings.incrementAndGet();
            return;
          }
          // The round is closed: no member node was left, so those leaving or in doubt are out.
          phase.replaceAll((name, p) -> p == Phase.LEAVING || p == Phase.DOUBT ? Phase.OUT : p);
          if (enteredSinceClose) {
            rounds++;
          }
          enteredSinceClose = false;
          roundStart = event.at();
          closedBy = member;
          reached = false;
          look(event.at());
        }
      }
    }

    private String phases() {
      StringBuilder text = new StringBuilder("last events: ");
      recent.forEach(e -> text.append(ms(e.at())).append(' ').append(e.member()).append(' ').append(e.kind())
          .append("; "));
      text.append("phases: ");
      new java.util.TreeMap<>(phase).forEach((name, p) -> text.append(text.length() == 0 ? "" : ", ").append(name)
          .append(' ').append(p).append(" since ").append(ms(since.get(name))));
      return text.toString();
    }

    private void set(String member, Phase next, long at) {
      phase.put(member, next);
      since.put(member, at);
    }

    /**
     * Counts the members in now. The count rises only at calls to enter (every other step keeps a
     * member's count or lowers it, and so does time, as sessions end), so looking after each call
     * and at the start of each round sees its highest value.
     */
    private void look(long now) {
      if (!reached) {
        reached = phase.entrySet().stream().filter(e -> counts(e.getKey(), e.getValue(), now)).count() >= threshold;
      }
    }

    private boolean counts(String member, Phase p, long now) {
      return switch (p) {
        case OUT -> false;
        case ENTERING -> true;
        case INSIDE, LEAVING, DOUBT -> !surelyGone(member, since.get(member), now);
      };
    }

    /** Whether the session {@code member} was on at {@code from} was surely gone by {@code now}. */
    private boolean surelyGone(String member, long from, long now) {
      return ends.getOrDefault(member, List.of()).stream()
          .anyMatch(end -> end.noticedAt() > from && end.goneBy() <= now);
    }

    /** Whether the session {@code member} was on at {@code from} had begun to end by {@code now}. */
    private boolean goneFrom(String member, long from, long now) {
      return ends.getOrDefault(member, List.of()).stream()
          .anyMatch(end -> end.noticedAt() > from && end.disconnectedAt() <= now);
    }
  }
}
