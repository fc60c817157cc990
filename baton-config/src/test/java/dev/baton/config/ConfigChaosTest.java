package dev.baton.config;

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
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The config center under chaos (issue 21): a 3-node ensemble; two writers setting and deleting a
 * few keys in loops and four readers, each client with its own session behind its own proxies and
 * a listener on its config center; a seeded {@link ChaosSchedule} of faults (servers killed, the
 * leader among them, links cut, silenced past the session timeout, slowed, delayed, readers
 * killed without closing and replaced).
 *
 * <p>What it checks:
 * <ul>
 *   <li>After each fault heals, a value written then by a client that talks to the ensemble
 *       directly reaches every live client's copy and listener within {@link #CONVERGENCE_BOUND}.</li>
 *   <li>Once the writers stop, every live client's copy equals the tree on the server, and what
 *       each listener heard, applied in order to the copy it started from, equals it too: each
 *       listener heard each key's final value (or its deletion).</li>
 *   <li>No listener heard a value that no writer tried to write to that key.</li>
 *   <li>No caller saw an exception other than a {@link BatonException}.</li>
 * </ul>
 * It runs for {@code -Dbaton.chaos.duration} (default {@value #DEFAULT_DURATION}, and at least until
 * every kind of fault has struck once) with the faults
 * of {@code -Dbaton.chaos.seed}; failures name the seed, and the summary line goes to standard
 * output ({@code surefire-reports/dev.baton.config.ConfigChaosTest-output.txt}).
 */
class ConfigChaosTest {
  private static final long DEFAULT_SEED = 2121L;
  private static final String DEFAULT_DURATION = "15s";
  private static final Duration SESSION = Duration.ofSeconds(2);
  private static final Duration CONVERGENCE_BOUND = Duration.ofSeconds(20);
  private static final String PREFIX = "/chaos-config";
  private static final int KEYS = 8;
  private static final int WRITERS = 2;
  private static final int READERS = 4;

  private final ChaosRun run = ChaosRun.fromProperties(DEFAULT_SEED, DEFAULT_DURATION,
      "./mvnw verify -pl baton-config -am -Dtest=ConfigChaosTest");
  private TestCluster cluster;
  private final List<ConfigClient> writers = new ArrayList<>();
  private final List<ConfigClient> readers = new ArrayList<>();
  private final List<ConfigClient> killed = new ArrayList<>();
  private final List<Thread> writerThreads = new ArrayList<>();
  private final CountDownLatch stop = new CountDownLatch(1);
  /** Every value a writer tried to give each key, whether or not the write returned. */
  private final Map<String, Set<String>> tried = new ConcurrentHashMap<>();
  private final LongAdder writes = new LongAdder();
  private final Map<String, LongAdder> failures = new ConcurrentHashMap<>();
  private final Queue<String> unexpected = new ConcurrentLinkedQueue<>();
  private int clientsMade;
  private long slowestCatchUpNanos;
  /** Clients' sessions that expired (their copies had to be loaded again on a new one). */
  private int sessionsExpired;

  @AfterEach
  void closeAll() {
    stop.countDown();
    List<ConfigClient> all = new ArrayList<>(writers);
    all.addAll(readers);
    all.addAll(killed);
    all.forEach(ConfigClient::close);
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void copiesAndListeners_whileServersAndLinksFail_catchUpWithTheServersTree() throws Exception {
    cluster = TestCluster.builder().ensemble(3).property("maxSessionTimeout", "30000").start();
    ChaosFaults faults = new ChaosFaults(cluster, run.log());
    ChaosSchedule schedule = run.schedule(SESSION);
    try (Baton direct = Baton.connect(cluster.connectString());
        ConfigCenter marker = ConfigCenter.open(direct, PREFIX)) {
      for (int i = 0; i < WRITERS; i++) {
        ConfigClient writer = newClient();
        writers.add(writer);
        Thread thread = new Thread(() -> write(writer, new Random(run.seed() + writers.size())), "chaos-" + writer.name);
        thread.setDaemon(true);
        writerThreads.add(thread);
        thread.start();
      }
      for (int i = 0; i < READERS; i++) {
        readers.add(newClient());
      }
      long end = System.nanoTime() + run.duration().toNanos();
      while (System.nanoTime() - end < 0 || !schedule.everyKindDrawn()) {
        Fault fault = schedule.next();
        List<FaultProxyGroup> exposed = live().stream().map(c -> c.link.proxies).collect(Collectors.toList());
        faults.inject(fault, ChaosFaults.victims(exposed, target -> kill(ChaosFaults.pick(readers, target))));
        String value = "heal-" + fault.number();
        tried.computeIfAbsent("heal", k -> ConcurrentHashMap.newKeySet()).add(value);
        marker.set("heal", value);
        long from = System.nanoTime();
        run.awaitOrFail(CONVERGENCE_BOUND, "every copy and listener has " + value + " after fault " + fault,
            () -> assertThat(live()).allSatisfy(client -> {
              assertThat(client.config.get("heal")).as(client.name + "'s copy").contains(value);
              assertThat(client.heard.get("heal")).as(client.name + "'s listener").isEqualTo(value);
            }));
        slowestCatchUpNanos = Math.max(slowestCatchUpNanos, System.nanoTime() - from);
        run.log().add("every copy caught up with " + value);
        for (ConfigClient client : live()) {
          long session = client.baton.sessionId();
          sessionsExpired += session != client.session ? 1 : 0;
          client.session = session;
        }
        ChaosFaults.pause(fault.quietAfter());
      }
      stop.countDown();
      for (Thread thread : writerThreads) {
        thread.join(CONVERGENCE_BOUND.toMillis());
        if (thread.isAlive()) {
          throw run.failure(thread.getName() + " still writing " + CONVERGENCE_BOUND.toSeconds() + " s after the stop", null);
        }
      }
      Map<String, String> server = serverTree();
      run.awaitOrFail(CONVERGENCE_BOUND, "every copy and listener equals the server's tree " + server,
          () -> assertThat(live()).allSatisfy(client -> {
            assertThat(client.config.snapshot()).as(client.name + "'s copy").isEqualTo(server);
            assertThat(client.heard).as(client.name + "'s listener").isEqualTo(server);
          }));
      checkHeardOnlyWhatWasTried();
      System.out.println("config chaos summary: seed=" + run.seed() + " " + faults.summary() + " writes=" + writes
          + " failed-writes=" + failures + " clients=" + clientsMade + "(killed=" + killed.size() + ")"
          + " sessions-expired=" + sessionsExpired
          + " heard=" + live().stream().mapToLong(c -> c.events.sum()).sum()
          + String.format(Locale.ROOT, " slowest-catch-up=%.1fs", slowestCatchUpNanos / 1e9)
          + " keys-at-end=" + server.size() + " violations=0");
    } finally {
      System.out.println("config chaos timeline:\n" + run.log().tail(Integer.MAX_VALUE));
    }
  }

  private ConfigClient newClient() {
    ConfigClient client = new ConfigClient("c" + clientsMade++, cluster);
    run.log().add(client.name + " opened, session 0x" + Long.toHexString(client.baton.sessionId()));
    return client;
  }

  /** Kills a reader as a crash would, and puts a new one in its place. */
  private String kill(ConfigClient victim) {
    victim.link.kill();
    killed.add(victim);
    ConfigClient replacement = newClient();
    readers.set(readers.indexOf(victim), replacement);
    return victim.name + " killed; " + replacement.name + " takes its place";
  }

  private List<ConfigClient> live() {
    List<ConfigClient> all = new ArrayList<>(writers);
    all.addAll(readers);
    return all;
  }

  /** Sets (mostly) or deletes random keys until stopped; every value tried is recorded first. */
  private void write(ConfigClient writer, Random random) {
    int n = 0;
    try {
      while (!stop.await(random.nextInt(20), TimeUnit.MILLISECONDS)) {
        String key = "k" + random.nextInt(KEYS);
        try {
          if (random.nextInt(100) < 15) {
            writer.config.delete(key);
          } else {
            String value = writer.name + "-" + (++n);
            tried.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(value);
            writer.config.set(key, value);
          }
          writes.increment();
        } catch (BatonException e) {
          failures.computeIfAbsent(e.getClass().getSimpleName(), k -> new LongAdder()).increment();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      unexpected.add(writer.name + ": " + e);
    }
  }

  private void checkHeardOnlyWhatWasTried() {
    List<String> violations = new ArrayList<>(unexpected);
    for (ConfigClient client : live()) {
      client.everHeard.forEach((key, values) -> values.stream()
          .filter(value -> !tried.getOrDefault(key, Set.of()).contains(value))
          .forEach(value -> violations.add(client.name + "'s listener heard " + key + " = " + value
              + ", which no writer tried to write")));
    }
    if (!violations.isEmpty()) {
      throw run.failure("broken promises:\n" + String.join("\n", violations), null);
    }
  }

  /** The keys under the prefix and their values, read from the ensemble without the config center. */
  private Map<String, String> serverTree() throws Exception {
    Map<String, String> keys = new TreeMap<>();
    try (HelperZk raw = HelperZk.connect(cluster.connectString())) {
      List<String> todo = new ArrayList<>(List.of(PREFIX));
      while (!todo.isEmpty()) {
        String path = todo.remove(todo.size() - 1);
        for (String child : raw.children(path)) {
          String childPath = path + "/" + child;
          byte[] data = raw.zk().getData(childPath, false, null);
          if (data != null) { // null data: a folder, not a key
            keys.put(childPath.substring(PREFIX.length() + 1), new String(data, StandardCharsets.UTF_8));
          }
          todo.add(childPath);
        }
      }
    }
    return keys;
  }

  /**
   * One client: a session behind its own proxies, a config center, and a listener that keeps
   * what it heard: the copy as the listener tells it (started from the copy when it was added)
   * and every value it was ever told, per key.
   */
  private static final class ConfigClient {
    final String name;
    final ProxiedClient link;
    final Baton baton;
    final ConfigCenter config;
    final Map<String, String> heard = new ConcurrentHashMap<>();
    final Map<String, Set<String>> everHeard = new ConcurrentHashMap<>();
    final LongAdder events = new LongAdder();
    /** The session seen at the last check. */
    long session;
    private final ExecutorService listenerThread;

    ConfigClient(String name, TestCluster cluster) {
      this.name = name;
      this.link = new ProxiedClient(name, cluster, SESSION);
      this.baton = link.baton;
      this.config = ConfigCenter.open(baton, PREFIX);
      this.session = baton.sessionId();
      this.listenerThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "chaos-" + name + "-listener"));
      config.addListener((key, oldValue, newValue) -> {
        events.increment();
        if (newValue == null) {
          heard.remove(key);
        } else {
          heard.put(key, newValue);
          everHeard.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(newValue);
        }
      }, listenerThread);
      // The listener starts from the copy as it is when this task runs: a change already in it
      // whose call comes after the task is told again, in order, so nothing is missed or undone.
      listenerThread.execute(() -> heard.putAll(config.snapshot()));
    }

    void close() {
      config.close();
      link.close();
      listenerThread.shutdown();
    }
  }
}
