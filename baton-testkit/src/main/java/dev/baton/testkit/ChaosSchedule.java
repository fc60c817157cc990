package dev.baton.testkit;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The faults of a chaos run, drawn one after another from a single seeded {@link Random}: the same
 * seed gives the same faults in the same order, with the same targets and lengths. (Which server
 * leads, and how the clients' threads interleave, still differ from run to run.)
 *
 * <p>The first round has every kind once, the ensemble's leader killed first, so even a short run
 * sees each fault; after that kinds are drawn at random. {@link ChaosFaults} injects them into a
 * {@link TestCluster} and the clients' {@link FaultProxyGroup}s; a run that must check more while a
 * fault lasts (who was told what, and when) injects them itself.
 */
public final class ChaosSchedule {
  /** The system property that picks the faults: a seed, e.g. {@code -Dbaton.chaos.seed=77}. */
  public static final String SEED_PROPERTY = "baton.chaos.seed";
  /** The system property that sets how long faults are injected, e.g. {@code -Dbaton.chaos.duration=10m}. */
  public static final String DURATION_PROPERTY = "baton.chaos.duration";


  /** What a fault breaks. */
  public enum Kind {
    /** The ensemble's leader is stopped, then started again: an election, every client disconnected. */
    KILL_LEADER("ensemble leader killed and restarted"),
    /** A follower is stopped, then started again: its clients move to the other servers. */
    KILL_FOLLOWER("follower killed and restarted"),
    /** A client's connections are closed and refused for longer than its session timeout. */
    CUT_PAST_SESSION("client link cut past its session timeout"),
    /** A client's link drops every byte, unannounced, for longer than its session timeout. */
    BLACKHOLE_PAST_SESSION("client link silenced past its session timeout"),
    /** A client's link slows down, then goes silent past its session timeout. */
    SLOW_THEN_SILENT("client link slowed, then silenced past its session timeout"),
    /** A client's connections are cut for less than its session timeout: the session survives. */
    CUT_BRIEFLY("client link cut briefly"),
    /** Every byte on a client's link waits before it is forwarded. */
    DELAY_LINK("client link delayed"),
    /** A client's link goes silent for good and its threads stop, without closing anything. */
    KILL_CLIENT("client killed without closing");

    /** What the fault does, in words, for timelines. */
    public final String description;

    Kind(String description) {
      this.description = description;
    }
  }

  /**
   * One fault. {@code target} is a number the run maps onto the servers or clients alive at the
   * time; {@code length} is how long the fault lasts (a server's down time, a link's outage);
   * {@code latency} is a slow link's delay, and {@code slowFirst} how long a link is slow before it
   * goes silent; {@code quietAfter} is the pause before the next fault.
   */
  public record Fault(int number, Kind kind, int target, Duration length, Duration latency, Duration slowFirst,
      Duration quietAfter) {
    @Override
    public String toString() {
      return "#" + number + " " + kind + " (" + kind.description + ", "
          + (slowFirst.isZero() ? "" : slowFirst.toMillis() + " ms slow, then ") + length.toMillis() + " ms"
          + (latency.isZero() ? "" : ", " + latency.toMillis() + " ms latency") + ")";
    }
  }

  /** Kinds after the first round, each as often as it appears here. */
  private static final List<Kind> WEIGHTED = List.of(
      Kind.KILL_LEADER, Kind.KILL_LEADER, Kind.KILL_FOLLOWER, Kind.KILL_FOLLOWER,
      Kind.CUT_PAST_SESSION, Kind.CUT_PAST_SESSION, Kind.BLACKHOLE_PAST_SESSION, Kind.SLOW_THEN_SILENT,
      Kind.CUT_BRIEFLY, Kind.CUT_BRIEFLY, Kind.DELAY_LINK, Kind.DELAY_LINK, Kind.KILL_CLIENT);

  private static final Pattern SIMPLE_DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h)?");

  private final Random random;
  private final Duration sessionTimeout;
  private final Deque<Kind> firstRound = new ArrayDeque<>();
  private int drawn;

  /** @param sessionTimeout the session timeout of the clients whose links are broken */
  public ChaosSchedule(long seed, Duration sessionTimeout) {
    this.random = new Random(seed);
    this.sessionTimeout = sessionTimeout;
    List<Kind> others = new ArrayList<>(List.of(Kind.values()));
    others.remove(Kind.KILL_LEADER);
    Collections.shuffle(others, random);
    firstRound.add(Kind.KILL_LEADER);
    firstRound.addAll(others);
  }

  /** Whether every kind has been drawn once (the first round is over): a short run goes on until then. */
  public boolean everyKindDrawn() {
    return firstRound.isEmpty();
  }

  /** The next fault; every call draws the same number of values, so a seed replays exactly. */
  public Fault next() {
    Kind drawnKind = WEIGHTED.get(random.nextInt(WEIGHTED.size()));
    Kind kind = firstRound.isEmpty() ? drawnKind : firstRound.poll();
    int target = random.nextInt(1 << 16);
    Duration serverDown = millis(1_000, 3_000);
    // Past the session by at least half a second: the ensemble expires it on a tick boundary.
    Duration pastSession = sessionTimeout.plus(millis(500, 1_500));
    Duration brief = millis(100, 800);
    Duration delayFor = millis(1_500, 4_000);
    Duration latency = millis(50, 250);
    Duration slowFirst = millis(1_000, 2_000);
    Duration quietAfter = millis(300, 1_500);
    Duration length = switch (kind) {
      case KILL_LEADER, KILL_FOLLOWER -> serverDown;
      case CUT_PAST_SESSION, BLACKHOLE_PAST_SESSION, SLOW_THEN_SILENT -> pastSession;
      case CUT_BRIEFLY -> brief;
      case DELAY_LINK -> delayFor;
      case KILL_CLIENT -> Duration.ZERO;
    };
    boolean slow = kind == Kind.DELAY_LINK || kind == Kind.SLOW_THEN_SILENT;
    return new Fault(++drawn, kind, target, length, slow ? latency : Duration.ZERO,
        kind == Kind.SLOW_THEN_SILENT ? slowFirst : Duration.ZERO, quietAfter);
  }

  /** The seed of {@value #SEED_PROPERTY}, or {@code defaultSeed} if it is not set. */
  public static long seedFromProperty(long defaultSeed) {
    return parseSeed(SEED_PROPERTY, System.getProperty(SEED_PROPERTY, Long.toString(defaultSeed)));
  }

  /** The run length of {@value #DURATION_PROPERTY}, or {@code defaultDuration} if it is not set. */
  public static Duration durationFromProperty(String defaultDuration) {
    return parseDuration(DURATION_PROPERTY, System.getProperty(DURATION_PROPERTY, defaultDuration));
  }

  private Duration millis(int from, int to) {
    return Duration.ofMillis(from + random.nextInt(to - from + 1));
  }

  /**
   * A run length as given in {@code -Dbaton.chaos.duration}: {@code 90s}, {@code 10m}, {@code 1h},
   * {@code 500ms}, a bare number of seconds, or ISO-8601 ({@code PT10M}).
   *
   * @throws IllegalArgumentException naming the property if the text is not a positive duration
   */
  public static Duration parseDuration(String property, String text) {
    String trimmed = text.trim();
    Duration parsed;
    Matcher simple = SIMPLE_DURATION.matcher(trimmed.toLowerCase(Locale.ROOT));
    try {
      if (simple.matches()) {
        long amount = Long.parseLong(simple.group(1));
        String unit = simple.group(2) == null ? "s" : simple.group(2);
        parsed = switch (unit) {
          case "ms" -> Duration.ofMillis(amount);
          case "m" -> Duration.ofMinutes(amount);
          case "h" -> Duration.ofHours(amount);
          default -> Duration.ofSeconds(amount);
        };
      } else {
        parsed = Duration.parse(trimmed);
      }
    } catch (DateTimeParseException | ArithmeticException | NumberFormatException e) {
      throw new IllegalArgumentException(property + " '" + text + "' is not a duration; use e.g. 90s, 10m,"
          + " 1h or PT10M", e);
    }
    if (parsed.isNegative() || parsed.isZero()) {
      throw new IllegalArgumentException(property + " must be positive, was '" + text + "'");
    }
    return parsed;
  }

  /**
   * A seed as given in {@code -Dbaton.chaos.seed}: a decimal or {@code 0x} hexadecimal long.
   *
   * @throws IllegalArgumentException naming the property if the text is not a number
   */
  public static long parseSeed(String property, String text) {
    try {
      return Long.decode(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(property + " '" + text + "' is not a number", e);
    }
  }
}
