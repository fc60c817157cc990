package dev.baton.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.BatonException;
import dev.baton.HelperZk;
import dev.baton.ProxiedClient;
import dev.baton.testkit.ChaosFaults;
import dev.baton.testkit.ChaosRun;
import dev.baton.testkit.ChaosSchedule;
import dev.baton.testkit.ChaosSchedule.Fault;
import dev.baton.testkit.FaultProxyGroup;
import dev.baton.testkit.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The service registry under chaos (issue 21): a 3-node ensemble; four provider clients
 * registering and unregistering instances of one service in loops, and three clients watching the
 * service through a {@link ServiceView}, each with its own session behind its own proxies; a
 * seeded {@link ChaosSchedule} of faults (servers killed, the leader among them, links cut,
 * silenced past the session timeout so sessions expire, slowed, delayed, providers killed without
 * closing and replaced).
 *
 * <p>After each fault heals, the providers pause (each finishes the call it is in), and within
 * {@link #CONVERGENCE_BOUND}:
 * <ul>
 *   <li>the instance nodes on the server are exactly the open registrations of the live
 *       providers: an instance whose session expired is registered again, and no instance of a
 *       closed registration or of a killed provider is left (a ghost);</li>
 *   <li>every open registration says it is registered;</li>
 *   <li>every view sees exactly those instances, and is not stale.</li>
 * </ul>
 * The same holds once the run is over; no caller sees an exception other than a {@link
 * BatonException}. It runs for {@code -Dbaton.chaos.duration} (default {@value
 * #DEFAULT_DURATION}, and at least until every kind of fault has struck once) with the faults of
 * {@code -Dbaton.chaos.seed}; failures name the seed, and
 * the summary line goes to standard output.
 */
class RegistryChaosTest {
  private static final long DEFAULT_SEED = 2122L;
  private static final String DEFAULT_DURATION = "15s";
  private static final Duration SESSION = Duration.ofSeconds(2);
  private static final Duration CONVERGENCE_BOUND = Duration.ofSeconds(20);
  private static final String BASE = "/chaos-services";
  private static final String SERVICE = "svc";
  private static final int PROVIDERS = 4;
  private static final int WATCHERS = 3;
  /** At most this many instances open per provider, so closes come as often as registrations. */
  private static final int MAX_OPEN = 2;

  private final ChaosRun run = ChaosRun.fromProperties(DEFAULT_SEED, DEFAULT_DURATION,
      "./mvnw verify -pl baton-discovery -am -Dtest=RegistryChaosTest");
  private TestCluster cluster;
  private final List<Provider> providers = new ArrayList<>();
  private final List<Provider> killed = new ArrayList<>();
  private final List<Client> watchers = new ArrayList<>();
  private final List<ServiceView> views = new ArrayList<>();
  private final LongAdder registrations = new LongAdder();
  private final LongAdder closes = new LongAdder();
  private final Map<String, LongAdder> failures = new ConcurrentHashMap<>();
  private final Queue<String> unexpected = new ConcurrentLinkedQueue<>();
  private volatile boolean paused;
  private int clientsMade;
  private long slowestCatchUpNanos;
  /** Providers' sessions that expired (their instances had to be registered again). */
  private int sessionsExpired;

  @AfterEach
  void closeAll() {
    List<Client> all = new ArrayList<>(watchers);
    providers.forEach(p -> all.add(p.client));
    killed.forEach(p -> all.add(p.client));
    providers.forEach(Provider::stop);
    all.forEach(Client::close);
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void viewsAndInstances_whileServersAndLinksFail_matchTheLiveRegistrations() throws Exception {
    cluster = TestCluster.builder().ensemble(3).property("maxSessionTimeout", "30000").start();
    ChaosFaults faults = new ChaosFaults(cluster, run.log());
    ChaosSchedule schedule = run.schedule(SESSION);
    try {
      for (int i = 0; i < PROVIDERS; i++) {
        providers.add(newProvider());
      }
      for (int i = 0; i < WATCHERS; i++) {
        Client watcher = newClient();
        watchers.add(watcher);
        views.add(watcher.registry.watch(SERVICE));
      }
      long end = System.nanoTime() + run.duration().toNanos();
      while (System.nanoTime() - end < 0 || !schedule.everyKindDrawn()) {
        Fault fault = schedule.next();
        List<FaultProxyGroup> exposed = providers.stream().map(p -> p.client.link.proxies)
            .collect(Collectors.toCollection(ArrayList::new));
        watchers.forEach(watcher -> exposed.add(watcher.link.proxies));
        faults.inject(fault, ChaosFaults.victims(exposed, target -> kill(ChaosFaults.pick(providers, target))));
        checkConverged("after fault " + fault);
        ChaosFaults.pause(fault.quietAfter());
      }
      checkConverged("at the end");
      if (!unexpected.isEmpty()) {
        throw run.failure("unexpected exceptions:\n" + String.join("\n", unexpected), null);
      }
      System.out.println("registry chaos summary: seed=" + run.seed() + " " + faults.summary()
          + " registrations=" + registrations + " closes=" + closes + " failed-calls=" + failures
          + " clients=" + clientsMade + "(providers-killed=" + killed.size() + ")"
          + " provider-sessions-expired=" + sessionsExpired
          + String.format(Locale.ROOT, " slowest-catch-up=%.1fs", slowestCatchUpNanos / 1e9) + " violations=0");
    } finally {
      System.out.println("registry chaos timeline:\n" + run.log().tail(Integer.MAX_VALUE));
    }
  }

  /** Pauses the providers and waits for the server and every view to show exactly the live instances. */
  private void checkConverged(String when) throws Exception {
    paused = true;
    try {
      run.awaitOrFail(CONVERGENCE_BOUND, "every provider finished its call " + when,
          () -> assertThat(providers).noneMatch(p -> p.busy));
      long from = System.nanoTime();
      Set<String> live = new TreeSet<>();
      providers.forEach(p -> live.addAll(p.open.keySet()));
      try (HelperZk raw = HelperZk.connect(cluster.connectString())) {
        run.awaitOrFail(CONVERGENCE_BOUND, "instances " + when + " are exactly the live registrations " + live,
            () -> {
              assertThat(new TreeSet<>(raw.children(BASE + "/" + SERVICE))).as("instance nodes on the server"
                  + " (a ghost is one no open registration of a live provider holds)").isEqualTo(live);
              providers.forEach(p -> p.open.forEach((id, registration) ->
                  assertThat(registration.isRegistered()).as(id + " says it is registered").isTrue()));
              for (int i = 0; i < views.size(); i++) {
                ServiceView view = views.get(i);
                Set<String> seen = view.instances().stream().map(ServiceInstance::id)
                    .collect(Collectors.toCollection(TreeSet::new));
                assertThat(seen).as(watchers.get(i).name + "'s view").isEqualTo(live);
                assertThat(view.isStale()).as(watchers.get(i).name + "'s view is stale").isFalse();
              }
            });
      }
      slowestCatchUpNanos = Math.max(slowestCatchUpNanos, System.nanoTime() - from);
      for (Provider provider : providers) {
        long session = provider.client.baton.sessionId();
        if (provider.session != session) {
          sessionsExpired += provider.session == 0 ? 0 : 1;
          provider.session = session;
        }
      }
      run.log().add("server and views show the " + live.size() + " live instances " + when);
    } finally {
      paused = false;
    }
  }

  /** Kills a provider as a crash would (its instances must go with its session), and replaces it. */
  private String kill(Provider victim) {
    victim.client.link.kill();
    victim.stop();
    killed.add(victim);
    Provider replacement = newProvider();
    providers.set(providers.indexOf(victim), replacement);
    return victim.client.name + " killed with " + victim.open.keySet() + " registered; "
        + replacement.client.name + " takes its place";
  }

  private Client newClient() {
    Client client = new Client("c" + clientsMade++, cluster);
    run.log().add(client.name + " opened, session 0x" + Long.toHexString(client.baton.sessionId()));
    return client;
  }

  private Provider newProvider() {
    Provider provider = new Provider(newClient(), new Random(run.seed() * 31 + clientsMade));
    provider.thread.start();
    return provider;
  }

  /** A client: a session behind its own proxies, and a registry on it. */
  private static final class Client {
    final String name;
    final ProxiedClient link;
    final Baton baton;
    final ServiceRegistry registry;

    Client(String name, TestCluster cluster) {
      this.name = name;
      this.link = new ProxiedClient(name, cluster, SESSION);
      this.baton = link.baton;
      this.registry = ServiceRegistry.open(baton, BASE);
    }

    void close() {
      registry.close();
      link.close();
    }
  }

  /**
   * Registers and unregisters instances of its own ids in a loop, on a thread of its own, except
   * while the run is paused. {@link #open} holds the registrations that returned and were not
   * closed: the instances that must be on the server once faults heal.
   */
  private final class Provider implements Runnable {
    final Client client;
    final Random random;
    final Thread thread;
    final Map<String, Registration> open = new ConcurrentHashMap<>();
    final CountDownLatch stopped = new CountDownLatch(1);
    volatile boolean busy;
    /** The session seen at the last check. */
    long session;
    private int made;

    Provider(Client client, Random random) {
      this.client = client;
      this.random = random;
      this.thread = new Thread(this, "chaos-" + client.name);
      this.session = client.baton.sessionId();
      thread.setDaemon(true);
    }

    void stop() {
      stopped.countDown();
      busy = false; // a killed provider's call never returns; its instances must go all the same
    }

    @Override
    public void run() {
      try {
        while (!stopped.await(random.nextInt(30), TimeUnit.MILLISECONDS)) {
          busy = true;
          if (paused || stopped.getCount() == 0) {
            busy = false;
            continue;
          }
          try {
            step();
          } catch (BatonException e) {
            failures.computeIfAbsent(e.getClass().getSimpleName(), k -> new LongAdder()).increment();
          } finally {
            busy = false;
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (RuntimeException e) {
        unexpected.add(client.name + ": " + e);
      }
    }

    private void step() {
      if (!open.isEmpty() && (open.size() >= MAX_OPEN || random.nextBoolean())) {
        String id = open.keySet().iterator().next();
        Registration registration = open.remove(id);
        registration.close(); // if it throws, the node goes in the background or with the session
        closes.increment();
        return;
      }
      String id = client.name + "-" + (++made);
      open.put(id, client.registry.register(ServiceInstance.builder(SERVICE).id(id).address("127.0.0.1")
          .port(8000 + made % 1000).build()));
      registrations.increment();
    }
  }
}
