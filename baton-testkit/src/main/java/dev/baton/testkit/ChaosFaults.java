package dev.baton.testkit;

import static org.awaitility.Awaitility.await;

import dev.baton.testkit.ChaosSchedule.Fault;
import dev.baton.testkit.ChaosSchedule.Kind;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Injects the faults of a {@link ChaosSchedule} into a {@link TestCluster} and the links of the
 * clients a run put behind {@link FaultProxyGroup}s, one fault at a time: {@link #inject} returns
 * once the fault has healed (a stopped server is serving again, a link forwards normally again),
 * so the run can then check what must hold once faults heal. Killing a client is the run's own
 * business (only it knows what a client is): it is handed to the run's {@link Victims}. Each step
 * goes to the run's {@link ChaosLog}; {@link #summary()} counts the faults by kind.
 *
 * <pre>{@code
 * ChaosSchedule schedule = new ChaosSchedule(seed, sessionTimeout);
 * ChaosFaults faults = new ChaosFaults(cluster, log);
 * while (running) {
 *   faults.inject(schedule.next(), victims);   // returns once healed
 *   checkEveryClientCatchesUp();
 * }
 * }</pre>
 */
public final class ChaosFaults {

  /** The clients a run exposes to link faults, and what killing one means. */
  public interface Victims {
    /** The links of the client that fault target {@code target} picks (map it onto the clients alive). */
    FaultProxyGroup links(int target);

    /**
     * Kills the client that {@code target} picks, as a crash would (its link silent for good,
     * nothing closed), and replaces it if the run wants to keep its number of clients.
     *
     * @return what was killed, for the timeline
     */
    String kill(int target);
  }

  private final TestCluster cluster;
  private final ChaosLog log;
  private final Map<Kind, Integer> injected = new EnumMap<>(Kind.class);

  public ChaosFaults(TestCluster cluster, ChaosLog log) {
    this.cluster = cluster;
    this.log = log;
  }

  /** Injects {@code fault} and returns once it has healed; every server is serving then. */
  public void inject(Fault fault, Victims victims) {
    injected.merge(fault.kind(), 1, Integer::sum);
    switch (fault.kind()) {
      case KILL_LEADER -> {
        int server = cluster.stopLeader();
        log.add("fault " + fault + ": stopped server " + server + ", the leader");
        restartAfter(server, fault.length());
      }
      case KILL_FOLLOWER -> {
        int leading = cluster.leader();
        List<Integer> followers = IntStream.range(0, cluster.size()).filter(s -> s != leading).boxed()
            .collect(Collectors.toList());
        int server = followers.get(fault.target() % followers.size());
        cluster.stop(server);
        log.add("fault " + fault + ": stopped server " + server + ", a follower");
        restartAfter(server, fault.length());
      }
      case CUT_PAST_SESSION, CUT_BRIEFLY -> broken(fault, victims.links(fault.target()), FaultProxyGroup::cut);
      case BLACKHOLE_PAST_SESSION -> broken(fault, victims.links(fault.target()), FaultProxyGroup::blackhole);
      case SLOW_THEN_SILENT -> {
        FaultProxyGroup links = victims.links(fault.target());
        links.delay(fault.latency());
        log.add("fault " + fault + ": link slowed");
        pause(fault.slowFirst());
        broken(fault, links, FaultProxyGroup::blackhole);
      }
      case DELAY_LINK -> {
        FaultProxyGroup links = victims.links(fault.target());
        links.delay(fault.latency());
        log.add("fault " + fault + ": link delayed");
        pause(fault.length());
        links.restore();
        log.add("fault " + fault + ": link back to normal");
      }
      case KILL_CLIENT -> log.add("fault " + fault + ": " + victims.kill(fault.target()));
    }
  }

  private void broken(Fault fault, FaultProxyGroup links, java.util.function.Consumer<FaultProxyGroup> breaking) {
    breaking.accept(links);
    log.add("fault " + fault + ": link broken");
    pause(fault.length());
    links.restore();
    log.add("fault " + fault + ": link restored");
  }

  /**
   * Starts {@code server} again after {@code down}, and returns once the whole ensemble serves:
   * for runs that stop servers themselves.
   */
  public void restartAfter(int server, Duration down) {
    pause(down);
    cluster.start(server);
    cluster.awaitServing(server);
    cluster.awaitServing();
    log.add("server " + server + " serving again");
  }

  /** How many faults of each kind were injected so far. */
  public Map<Kind, Integer> injected() {
    return new EnumMap<>(injected);
  }

  /** {@code faults=<n> {kind=count,...}}, for a run's summary line. */
  public String summary() {
    return summary(injected);
  }

  /** The summary of {@code injected}, for runs that inject faults themselves. */
  public static String summary(Map<Kind, Integer> injected) {
    int faults = injected.values().stream().mapToInt(Integer::intValue).sum();
    return "faults=" + faults + " " + injected.entrySet().stream()
        .map(e -> e.getKey().name().toLowerCase(Locale.ROOT) + "=" + e.getValue())
        .collect(Collectors.joining(",", "{", "}"));
  }

  /**
   * Lets {@code length} pass while the clients and the fault run: not a check, so no condition;
   * Awaitility's poll delay keeps the interrupt handling of every other wait of the run.
   */
  public static void pause(Duration length) {
    if (length.isNegative() || length.isZero()) {
      return;
    }
    await().pollDelay(length).atMost(length.plusSeconds(10)).until(() -> true);
  }

  /** For {@link Victims#links}: the member of {@code alive} that {@code target} picks. */
  public static <T> T pick(List<T> alive, int target) {
    return alive.get(target % alive.size());
  }

  /**
   * Victims made of the links exposed to link faults (picked by {@link #pick}) and a way to kill a
   * client, given the fault's target.
   */
  public static Victims victims(List<FaultProxyGroup> links, IntFunction<String> kill) {
    return new Victims() {
      @Override
      public FaultProxyGroup links(int target) {
        return pick(links, target);
      }

      @Override
      public String kill(int target) {
        return kill.apply(target);
      }
    };
  }
}
