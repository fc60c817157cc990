package dev.baton.redis.chaos;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Random;

/**
 * The faults of a Redis chaos run, drawn from one seeded {@link Random}: the same seed gives the
 * same faults in the same order, targets and lengths. The first round has every kind once (in a
 * seeded order), so even a short run sees each; after that kinds are drawn by weight. Lengths are
 * measured against the clients' lease TTL, as the ZooKeeper schedule measures them against the
 * session timeout.
 */
final class RedisFaultSchedule {

  enum Kind {
    CUT_BRIEFLY("client link cut for less than the TTL"),
    CUT_PAST_TTL("client link cut past the lease TTL"),
    BLACKHOLE_PAST_TTL("client link silenced past the lease TTL (a paused holder)"),
    DELAY_LINK("client link delayed"),
    LOST_REPLY("client link delayed, then cut with replies in flight (commands applied, replies lost)"),
    RESTART_REDIS("redis-server killed and restarted empty (no persistence)"),
    DEL_LOCK_KEY("DEL of the plain mutex's lock key under its holder"),
    DEL_FENCING_COUNTER("DEL of a mutex's fencing counter");

    final String description;

    Kind(String description) {
      this.description = description;
    }
  }

  /**
   * One fault: {@code target} picks a client or a mutex; {@code length} is how long it lasts;
   * {@code latency} is a delayed link's delay; {@code delayedFirst} how long a LOST_REPLY link is
   * delayed before it is cut; {@code quietAfter} the pause before the next fault.
   */
  record Fault(int number, Kind kind, int target, Duration length, Duration latency, Duration delayedFirst,
      Duration quietAfter) {
    @Override
    public String toString() {
      return "#" + number + " " + kind + " (" + kind.description + ", "
          + (delayedFirst.isZero() ? "" : delayedFirst.toMillis() + " ms delayed, then ") + length.toMillis() + " ms"
          + (latency.isZero() ? "" : ", " + latency.toMillis() + " ms latency") + ")";
    }
  }

  private static final List<Kind> WEIGHTED = List.of(
      Kind.CUT_BRIEFLY, Kind.CUT_BRIEFLY, Kind.CUT_PAST_TTL, Kind.CUT_PAST_TTL, Kind.BLACKHOLE_PAST_TTL,
      Kind.BLACKHOLE_PAST_TTL, Kind.DELAY_LINK, Kind.DELAY_LINK, Kind.LOST_REPLY, Kind.LOST_REPLY,
      Kind.RESTART_REDIS, Kind.DEL_LOCK_KEY, Kind.DEL_FENCING_COUNTER);

  private final Random random;
  private final Duration ttl;
  private final Deque<Kind> firstRound = new ArrayDeque<>();
  private int drawn;

  RedisFaultSchedule(long seed, Duration ttl) {
    this.random = new Random(seed);
    this.ttl = ttl;
    List<Kind> all = new ArrayList<>(List.of(Kind.values()));
    Collections.shuffle(all, random);
    firstRound.addAll(all);
  }

  boolean everyKindDrawn() {
    return firstRound.isEmpty();
  }

  /** The next fault; every call draws the same number of values, so a seed replays exactly. */
  Fault next() {
    Kind drawnKind = WEIGHTED.get(random.nextInt(WEIGHTED.size()));
    Kind kind = firstRound.isEmpty() ? drawnKind : firstRound.poll();
    int target = random.nextInt(1 << 16);
    Duration pastTtl = ttl.plus(millis(500, 1_500));
    Duration brief = millis(100, (int) Math.min(800, ttl.toMillis() / 2));
    Duration delayFor = millis(1_500, 4_000);
    Duration latency = millis(50, 250);
    Duration replyLatency = millis(150, 300);
    Duration delayedFirst = millis(600, 1_200);
    Duration quietAfter = millis(300, 1_500);
    Duration length = switch (kind) {
      case CUT_PAST_TTL, BLACKHOLE_PAST_TTL -> pastTtl;
      case CUT_BRIEFLY, LOST_REPLY -> brief;
      case DELAY_LINK -> delayFor;
      case RESTART_REDIS, DEL_LOCK_KEY, DEL_FENCING_COUNTER -> Duration.ZERO;
    };
    return new Fault(++drawn, kind, target, length,
        kind == Kind.DELAY_LINK ? latency : kind == Kind.LOST_REPLY ? replyLatency : Duration.ZERO,
        kind == Kind.LOST_REPLY ? delayedFirst : Duration.ZERO, quietAfter);
  }

  private Duration millis(int from, int to) {
    return Duration.ofMillis(from + random.nextInt(to - from + 1));
  }
}
